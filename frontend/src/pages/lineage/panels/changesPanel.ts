// Beside a comparison's graph: what changed between its two instants, in words (datasets, jobs, fields and edges
// added or removed, schema changes), each node a button that selects it in the graph.

import { h } from "../../../dom";
import { formatTime, idLabel } from "../../../format";
import type { GraphModel, GraphNode } from "../../../graph/model";
import { idShortName } from "../../../graph/names";
import type { Change, SchemaChange } from "../../../api/types";

type Shown = Exclude<Change, "unchanged">;

/** What the comparison found, by kind of thing: the nodes and edges added and removed. */
export interface ChangeList {
  datasets: Record<Shown, GraphNode[]>;
  jobs: Record<Shown, GraphNode[]>;
  fields: Record<Shown, GraphNode[]>;
  edges: Record<Shown, { source: string; target: string }[]>;
}

const KINDS: Partial<Record<GraphNode["type"], keyof Omit<ChangeList, "edges">>> = { DATASET: "datasets", JOB: "jobs", DATASET_FIELD: "fields" };

/** The changes a diff's model is marked with, each list by name. */
export function changeList(model: GraphModel): ChangeList {
  const list: ChangeList = {
    datasets: { added: [], removed: [] }, jobs: { added: [], removed: [] }, fields: { added: [], removed: [] }, edges: { added: [], removed: [] },
  };
  for (const node of model.nodes.values()) {
    const kind = KINDS[node.type];
    if (kind && (node.change === "added" || node.change === "removed")) list[kind][node.change].push(node);
  }
  for (const edge of model.edges.values()) {
    if (edge.change === "added" || edge.change === "removed") list.edges[edge.change].push(edge);
  }
  for (const kind of ["datasets", "jobs", "fields"] as const) {
    for (const change of ["added", "removed"] as const) list[kind][change].sort((a, b) => a.label.localeCompare(b.label));
  }
  return list;
}

/** How many nodes and edges came and went. */
export function changeCounts(list: ChangeList): Record<Shown, number> {
  const count = (change: Shown) => list.datasets[change].length + list.jobs[change].length + list.fields[change].length + list.edges[change].length;
  return { added: count("added"), removed: count("removed") };
}

/** The word and sign of a change, so that it reads without its colour. */
export function changeBadge(change: Shown): HTMLElement {
  return h("span", { class: `change-badge change-${change}` }, change === "added" ? "+ added" : "− removed");
}

export interface ChangesPanelInput {
  model: GraphModel;
  schemaChanges: SchemaChange[];
  from: string;
  to: string;
  /** Select a node in the graph. */
  select(id: string): void;
}

export function changesPanel({ model, schemaChanges, from, to, select }: ChangesPanelInput): HTMLElement {
  const list = changeList(model);
  const counts = changeCounts(list);
  const label = (id: string) => model.nodes.get(id)?.label ?? idShortName(id);
  const nodeItems = (kind: keyof Omit<ChangeList, "edges">) => (["added", "removed"] as const).flatMap((change) =>
    list[kind][change].map((node) => h("li", { "data-change": change, "data-id": node.id },
      changeBadge(change), " ",
      h("button", { type: "button", class: "link-button", title: idLabel(node.id), onclick: () => select(node.id) }, node.label))));
  const section = (id: string, title: string, items: HTMLElement[]) => items.length
    ? h("section", { class: "panel-section changes-section", id }, h("h3", {}, `${title} (${items.length})`), h("ul", { class: "change-list" }, items))
    : null;
  const edgeItems = (["added", "removed"] as const).flatMap((change) => list.edges[change].map((edge) =>
    h("li", { "data-change": change, "data-edge": `${edge.source}->${edge.target}`, title: `${idLabel(edge.source)} → ${idLabel(edge.target)}` },
      changeBadge(change), " ", label(edge.source), h("span", { class: "muted" }, " → "), label(edge.target))));
  const nothing = !counts.added && !counts.removed && !schemaChanges.length;
  return h("div", { class: "side-panel-content changes", id: "changes" },
    h("div", { class: "panel-head" },
      h("span", { class: "tag tag-change" }, "comparison"),
      h("h2", {}, "What changed"),
      h("div", { class: "muted" }, `from ${formatTime(from)} to ${formatTime(to)}`),
      h("p", { class: "change-summary", id: "change-summary" },
        nothing ? "No changes between these instants." : `${counts.added} added, ${counts.removed} removed, ${schemaChanges.length} schema change${schemaChanges.length === 1 ? "" : "s"}.`)),
    section("changes-datasets", "Datasets", nodeItems("datasets")),
    section("changes-jobs", "Jobs", nodeItems("jobs")),
    section("changes-fields", "Fields", nodeItems("fields")),
    section("changes-edges", "Edges", edgeItems),
    section("changes-schemas", "Schema changes", schemaChanges.map((change) => schemaItem(change, label))),
    h("p", { class: "muted" }, "Click a node to see its details; unchanged nodes and edges are drawn faded."));
}

function schemaItem(change: SchemaChange, label: (id: string) => string): HTMLElement {
  const versions = new URLSearchParams({ nodeId: change.datasetId });
  if (change.fromVersion) versions.set("from", change.fromVersion);
  if (change.toVersion) versions.set("to", change.toVersion);
  const renamedFrom = new Set(change.renamedFields.map((r) => r.from));
  const renamedTo = new Set(change.renamedFields.map((r) => r.to));
  return h("li", { "data-dataset": change.datasetId },
    h("a", { href: `/dataset?${versions}`, "data-link": "", title: idLabel(change.datasetId) }, label(change.datasetId)),
    h("ul", { class: "schema-change" },
      change.renamedFields.map((r) => h("li", {}, h("span", { class: "change-badge change-changed" }, "↦ renamed"), " field ",
        h("code", {}, r.from), " → ", h("code", {}, r.to))),
      change.addedFields.filter((name) => !renamedTo.has(name)).map((name) => h("li", {}, changeBadge("added"), " field ", h("code", {}, name))),
      change.removedFields.filter((name) => !renamedFrom.has(name)).map((name) => h("li", {}, changeBadge("removed"), " field ", h("code", {}, name))),
      change.changedFields.map((field) => h("li", {}, h("span", { class: "change-badge change-changed" }, "~ changed"), " field ",
        h("code", {}, field.name), `: ${field.fromType ?? "?"} → ${field.toType ?? "?"}`))));
}
