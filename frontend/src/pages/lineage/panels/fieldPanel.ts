// The column view's side panel head: the traced field, with the fields it comes from and feeds, each edge's
// transformation in words and the job that derives it.

import { h, link, nameBreaks } from "../../../dom";
import { idLabel } from "../../../format";
import type { GraphEdge, GraphModel, GraphNode } from "../../../graph/model";
import { datasetShortName } from "../../../graph/names";
import { transformationOf, transformationText, type TransformationEdge } from "../../../graph/transformations";
import { nodeLink, section } from "../../../shell/widgets";
import { impactPageHref } from "../../impact/model";
import type { Intent } from "../store";
import { transformationSample } from "./columnBar";

/** A field as a short name (`silver/orders_clean.amount`) with its full name on hover. */
function fieldName(field: GraphNode | undefined, id: string): HTMLElement {
  const short = field ? `${datasetShortName(String(field.data.namespace), String(field.data.dataset))}.${String(field.data.name)}` : idLabel(id);
  return nameBreaks(short, { title: idLabel(id) });
}

/** One edge of the traced field: the field at its other end, its transformation and job. */
function edgeRow(model: GraphModel, edge: GraphEdge, otherEnd: string): HTMLElement {
  const data = edge.data as TransformationEdge & { job?: string | null };
  return h("li", { class: "field-edge-row", "data-edge": edge.id },
    h("div", {}, transformationSample(transformationOf(data)), " ", fieldName(model.nodes.get(otherEnd), otherEnd)),
    h("div", { class: "muted" }, transformationText(data)),
    data.job ? h("div", { class: "field-edge-job" }, "by ", nodeLink(data.job)) : null);
}

export function fieldPanel({ model, fieldId, root, emit }: {
  model: GraphModel; fieldId: string; root: string | null; emit: (intent: Intent) => void;
}): HTMLElement {
  const field = model.nodes.get(fieldId);
  const edges = [...model.edges.values()];
  const into = edges.filter((edge) => edge.target === fieldId);
  const out = edges.filter((edge) => edge.source === fieldId);
  const name = String(field?.data.name ?? idLabel(fieldId));
  return h("div", { class: "side-panel-content traced-field", "data-field-id": fieldId },
    h("div", { class: "panel-head" },
      h("span", { class: "tag tag-field" }, "field"),
      h("h2", { class: "node-name" }, nameBreaks(name)),
      h("div", { class: "muted" }, nameBreaks(String(field?.data.dataset ?? "")), field?.data.type ? ` · ${String(field.data.type)}` : "")),
    h("div", { class: "panel-actions" },
      fieldId !== root && field
        ? h("button", { type: "button", id: "trace-from-field", onclick: () => emit({ kind: "show-field", datasetId: String(field.parent), field: name }) },
          "Draw its own lineage")
        : null,
      link(impactPageHref([fieldId]), `Impact of ${name} →`)),
    section(`Comes from (${into.length})`, into.length
      ? h("ul", { class: "field-edges", id: "field-comes-from" }, into.map((edge) => edgeRow(model, edge, edge.source)))
      : h("p", { class: "muted" }, "Nothing drawn here.")),
    section(`Feeds (${out.length})`, out.length
      ? h("ul", { class: "field-edges", id: "field-feeds" }, out.map((edge) => edgeRow(model, edge, edge.target)))
      : h("p", { class: "muted" }, "Nothing drawn here.")));
}
