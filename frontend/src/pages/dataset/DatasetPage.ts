// A dataset: what its facets say about it, the rows and bytes its runs wrote, its schema versions, the diff between
// any two (schema drift), and the datasets it affects.

import { api } from "../../api/client";
import type { DatasetDetail, FormerJob, VersionDiff } from "../../api/types";
import { h, link, replace } from "../../dom";
import { formatTime } from "../../format";
import { setQuery } from "../../router";
import { errorMessage, inferredMark, lineageHref, loading, nodeLink, stateBadge } from "../../shell/widgets";
import { datasetFacetSections } from "../../facets/dataset";
import { subscribeButton } from "../alerts/subscribe";
import { fieldId, impactPageHref } from "../impact/model";
import { aliasList } from "./aliases";
import { qualitySection } from "./quality";
import { writeTrend } from "./writeTrend";

export function DatasetPage(root: HTMLElement, url: URL): void {
  const nodeId = url.searchParams.get("nodeId");
  if (!nodeId) { replace(root, h("div", { class: "page" }, h("p", {}, "No dataset chosen."))); return; }
  replace(root, h("div", { class: "page" }, loading()));
  api.dataset(nodeId).then((detail) => replace(root, datasetView(detail, url)), (error) => replace(root, h("div", { class: "page" }, errorMessage(error))));
}

function datasetView(detail: DatasetDetail, url: URL): HTMLElement {
  const versions = detail.versions;
  const diffBox = h("div", { class: "diff", id: "diff" });
  const pick = (name: string, preferred: string | null, fallback: number) => {
    const select = h("select", { name, id: `diff-${name}` }, versions.map((v, i) =>
      h("option", { value: v.version }, `v${i + 1} · ${formatTime(v.firstSeen)}`)));
    const wanted = versions.find((v) => v.version === preferred) ?? versions[Math.max(0, fallback)];
    if (wanted) select.value = wanted.version;
    return select;
  };
  const from = pick("from", url.searchParams.get("from"), versions.length - 2);
  const to = pick("to", url.searchParams.get("to"), versions.length - 1);
  const compare = async () => {
    const params = new URLSearchParams({ nodeId: detail.id, from: from.value, to: to.value });
    setQuery(params, { replace: true });
    replace(diffBox, loading());
    try {
      replace(diffBox, diffView(await api.versionDiff(detail.id, from.value, to.value)));
    } catch (error) {
      replace(diffBox, errorMessage(error));
    }
  };
  from.addEventListener("change", () => void compare());
  to.addEventListener("change", () => void compare());
  if (versions.length >= 2) void compare();

  return h("div", { class: "page" },
    h("div", { class: "page-head" },
      h("span", { class: "tag tag-dataset" }, "dataset"),
      h("h1", { class: "node-name" }, detail.name),
      h("div", { class: "muted" }, detail.namespace),
      h("div", { class: "panel-actions" },
        link(lineageHref([detail.id]), "Lineage"),
        link(lineageHref([detail.id], { direction: "downstream", depth: 5 }), "Downstream impact"),
        link(lineageHref([detail.id], { view: "column" }), "Column lineage"),
        link(impactPageHref([detail.id]), "Impact report"),
        subscribeButton({ targetType: "dataset", namespace: detail.namespace, name: detail.name }))),
    h("div", { class: "facet-sections", id: "dataset-facets" }, datasetFacetSections(detail.facets)),
    h("h2", {}, "Rows and bytes written"),
    writeTrend(detail.writeStatistics),
    qualitySection(detail.id),
    h("div", { class: "two-columns" },
      h("section", {},
        h("h2", {}, `Current schema (${detail.fields.filter((f) => f.current).length} fields)`),
        h("table", { class: "grid", id: "schema" },
          h("thead", {}, h("tr", {}, h("th", {}, "Field"), h("th", {}, "Type"), h("th", {}, "Description"))),
          h("tbody", {}, detail.fields.filter((f) => f.current).map((f) =>
            h("tr", { "data-field": f.name },
              h("td", {}, link(lineageHref([detail.id], { view: "column", field: f.name }), f.name), " ", link(impactPageHref([fieldId(detail.namespace, detail.name, f.name)]), h("span", { class: "muted" }, "impact"))),
              h("td", { class: "mono" }, f.type ?? ""),
              h("td", { class: "field-description" }, f.description ?? "")))))),
      h("section", {},
        h("h2", {}, "Also known as"),
        h("div", { id: "dataset-aliases" }, aliasList(detail.aliases)),
        h("h2", {}, "Owners"),
        detail.owners.length ? h("ul", {}, detail.owners.map((o) => h("li", {}, o.name, o.role ? ` · ${o.role}` : ""))) : h("p", { class: "muted" }, "None recorded."),
        h("h2", {}, "Recent runs"),
        detail.lastRuns.length
          ? h("ul", { class: "runs", id: "last-runs" }, detail.lastRuns.map((r) => h("li", { "data-run": r.runId },
            stateBadge(r.state), " ", nodeLink(r.job), ` ${formatTime(r.startedAt)}`,
            // A run that named the part it wrote (a partition) wrote that part, not the whole dataset.
            r.subset ? h("span", { class: "tag tag-subset", title: "the part of the dataset this run wrote (subset facet)" }, `partition ${r.subset}`) : null)))
          : h("p", { class: "muted" }, "None."),
        ...producersAndConsumers(detail))),
    h("h2", {}, `Schema versions (${versions.length})`),
    h("table", { class: "grid", id: "versions" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "First seen"), h("th", {}, "Last seen"), h("th", {}, "Fields"), h("th", {}, "Created by run"))),
      h("tbody", {}, versions.map((v, i) => h("tr", {},
        h("td", {}, `v${i + 1}`), h("td", {}, formatTime(v.firstSeen)), h("td", {}, formatTime(v.lastSeen)),
        h("td", {}, v.fields.map((f) => `${f.name}: ${f.type || "?"}`).join(", ")),
        h("td", { class: "mono muted" }, v.createdByRun ?? "—"))))),
    h("h2", {}, "Schema drift"),
    versions.length >= 2
      ? h("div", {}, h("div", { class: "filters" }, h("label", {}, "From ", from), h("label", {}, "To ", to)), diffBox)
      : h("p", { class: "muted" }, "Only one schema version so far: nothing to compare."));
}

function diffView(diff: VersionDiff): HTMLElement {
  // A rename stands as one row, not as the removed and added fields it also is in the answer.
  const renamedFrom = new Set(diff.renamed.map((r) => r.from));
  const renamedTo = new Set(diff.renamed.map((r) => r.to));
  const types = new Map(diff.added.map((f) => [f.name, f.type]));
  const rows = [
    ...diff.renamed.map((r) => h("tr", { class: "renamed" }, h("td", {}, "↦ renamed"), h("td", {}, `${r.from} → ${r.to}`), h("td", { class: "mono" }, types.get(r.to) ?? ""))),
    ...diff.added.filter((f) => !renamedTo.has(f.name)).map((f) => h("tr", { class: "added" }, h("td", {}, "+ added"), h("td", {}, f.name), h("td", { class: "mono" }, f.type ?? ""))),
    ...diff.removed.filter((f) => !renamedFrom.has(f.name)).map((f) => h("tr", { class: "removed" }, h("td", {}, "− removed"), h("td", {}, f.name), h("td", { class: "mono" }, f.type ?? ""))),
    ...diff.changed.map((f) => h("tr", { class: "changed" }, h("td", {}, "~ changed"), h("td", {}, f.name), h("td", { class: "mono" }, `${f.fromType ?? "?"} → ${f.toType ?? "?"}`))),
  ];
  return h("div", {},
    rows.length
      ? h("table", { class: "grid diff-table" }, h("thead", {}, h("tr", {}, h("th", {}, "Change"), h("th", {}, "Field"), h("th", {}, "Type"))), h("tbody", {}, rows))
      : h("p", { class: "muted" }, "No differences between these versions."),
    h("h3", {}, `Downstream datasets affected (${diff.downstream.length}${diff.truncated ? "+, truncated" : ""})`),
    diff.downstream.length
      ? h("ul", { class: "affected", id: "affected" }, diff.downstream.map((id) => h("li", {}, nodeLink(id), " ", link(lineageHref([id]), "lineage"))))
      : h("p", { class: "muted" }, "Nothing downstream."));
}

/** The jobs that write and read the dataset now and, apart, the ones that did once but whose latest completed run no longer does. */
export function producersAndConsumers(detail: DatasetDetail): HTMLElement[] {
  const current = (title: string, id: string, jobs: string[], none: string, inferred: string[] = []) => [
    h("h2", {}, `${title} (${jobs.length})`),
    jobs.length
      ? h("ul", { class: "job-list", id }, jobs.map((job) => h("li", { "data-job": job }, nodeLink(job), inferredMark(inferred.includes(job)))))
      : h("p", { class: "muted", id }, none),
  ];
  const former = (title: string, id: string, verb: string, jobs: FormerJob[]) => [
    h("h2", { title: `Jobs that ${verb} this dataset before, whose latest completed run no longer did` }, `${title} (${jobs.length})`),
    jobs.length
      ? h("ul", { class: "job-list former", id }, jobs.map((job) => h("li", { "data-job": job.id },
        nodeLink(job.id), h("span", { class: "muted" }, ` · last ${verb} ${formatTime(job.lastSeen)} · stopped ${formatTime(job.staleSince)}`))))
      : h("p", { class: "muted", id }, "None."),
  ];
  return [
    ...current("Read by", "consumers", detail.consumers, "No job reads it now.", detail.inferredConsumers),
    ...former("Formerly read by", "former-consumers", "read", detail.formerConsumers),
    ...current("Written by", "producers", detail.producers, "No job writes it now."),
    ...(detail.formerProducers.length ? former("Formerly written by", "former-producers", "wrote", detail.formerProducers) : []),
  ];
}
