// Impact analysis: pick what will change, see everything downstream grouped by owner with paths, download the report.

import { api } from "../../api/client";
import type { DatasetDetail } from "../../api/types";
import { h, link, replace } from "../../dom";
import { formatTime, idLabel, idType } from "../../format";
import { navigate } from "../../router";
import { errorMessage, loading, nodeLink, qualityBadge, stateBadge } from "../../shell/widgets";
import { idShortName } from "../../graph/names";
import { IMPACT_FORMATS, impactApi, type ImpactAsset, type ImpactResponse } from "./api";
import { DEFAULT_DEPTH, NO_OWNER, edgeText, fieldId, groupByOwner, impactPageHref, ownerText } from "./model";

const ROWS_PER_GROUP = 200; // the page shows this many per owner; the reports hold everything

export function ImpactPage(root: HTMLElement, url: URL): () => void {
  const nodeIds = url.searchParams.getAll("nodeId").filter(Boolean);
  const depthValue = Number(url.searchParams.get("depth") ?? DEFAULT_DEPTH);
  const depth = Number.isInteger(depthValue) && depthValue >= 1 && depthValue <= 20 ? depthValue : DEFAULT_DEPTH;
  const abort = new AbortController();
  const picker = h("div", { class: "impact-picker", id: "impact-picker" });
  const result = h("div", { id: "impact-result" });
  replace(root, h("div", { class: "page" },
    h("h1", {}, "Impact analysis"),
    h("p", { class: "muted" }, "Everything downstream of what will change, who owns it, and how it is reached."),
    picker, result));
  replace(picker, changeForm(nodeIds, depth));
  if (!nodeIds.length) {
    replace(result, h("p", { class: "muted" }, "Add a dataset, job or field id above (or open this page from a dataset, a field or a failure)."));
    return () => abort.abort();
  }
  const dataset = nodeIds.length === 1 && idType(nodeIds[0]) === "dataset" ? nodeIds[0]
    : nodeIds.every((id) => idType(id) === "datasetField") ? datasetOfFields(nodeIds) : null;
  if (dataset) {
    api.dataset(dataset).then((detail) => picker.appendChild(fieldChooser(detail, nodeIds, depth)), () => undefined);
  }
  replace(result, loading("Tracing everything downstream…"));
  impactApi.impact(nodeIds, depth, abort.signal).then(
    (response) => replace(result, impactView(response)),
    (error) => { if (!abort.signal.aborted) replace(result, errorMessage(error)); });
  return () => abort.abort();
}

/** The dataset all of `ids` (fields) belong to, when they share one. */
function datasetOfFields(ids: string[]): string | null {
  const datasets = new Set(ids.map((id) => id.slice("datasetField:".length).replace(/:[^:]*$/, "")));
  return datasets.size === 1 ? `dataset:${[...datasets][0]}` : null;
}

function changeForm(nodeIds: string[], depth: number): HTMLElement {
  const input = h("input", { type: "text", name: "nodeId", id: "impact-add", placeholder: "dataset:…, job:… or datasetField:…", size: 48 });
  const depthInput = h("input", { type: "number", name: "depth", id: "impact-depth", min: 1, max: 20, value: depth });
  const form = h("form", { class: "filters", id: "impact-form" },
    h("label", {}, "Add ", input), h("label", {}, "Depth ", depthInput), h("button", { type: "submit" }, "Analyse"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = input.value.trim() ? [...nodeIds.filter((id) => id !== input.value.trim()), input.value.trim()] : nodeIds;
    navigate(impactPageHref(next, Number(depthInput.value) || depth));
  });
  return h("div", {},
    h("h2", {}, "What will change"),
    nodeIds.length
      ? h("ul", { class: "impact-changes", id: "impact-changes" }, nodeIds.map((id) => h("li", { "data-node": id },
        h("span", { class: "mono" }, id), " ",
        link(impactPageHref(nodeIds.filter((other) => other !== id), depth), "remove"))))
      : h("p", { class: "muted" }, "Nothing chosen yet."),
    form);
}

/** For one dataset (or some of its fields): switch between the whole dataset and a set of its fields. */
function fieldChooser(detail: DatasetDetail, nodeIds: string[], depth: number): HTMLElement {
  const boxes = detail.fields.filter((f) => f.current).map((f) => {
    const id = fieldId(detail.namespace, detail.name, f.name);
    return h("label", { class: "field-choice" },
      h("input", { type: "checkbox", name: "field", value: id, checked: nodeIds.includes(id) }), ` ${f.name}`);
  });
  const form = h("form", { class: "filters", id: "impact-fields" },
    h("span", {}, `Only some fields of ${detail.name}: `), boxes,
    h("button", { type: "submit" }, "Analyse these fields"), " ",
    link(impactPageHref([detail.id], depth), "whole dataset"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = [...form.querySelectorAll<HTMLInputElement>("input[name=field]:checked")].map((box) => box.value);
    navigate(impactPageHref(chosen.length ? chosen : [detail.id], depth));
  });
  return boxes.length ? form : h("span", {});
}

function impactView(response: ImpactResponse): HTMLElement {
  const { summary } = response;
  const groups = groupByOwner(response.assets);
  return h("div", {},
    h("div", { class: "impact-downloads", id: "impact-downloads" }, "Download the report: ",
      IMPACT_FORMATS.flatMap((format, i) => [i ? " · " : "",
        h("a", { href: impactApi.reportUrl(response.nodeIds, response.depth, format), download: "", "data-format": format },
          format.toUpperCase())])),
    h("h2", { id: "impact-total" }, `${summary.total} affected asset${summary.total === 1 ? "" : "s"}`),
    h("p", { class: "muted", id: "impact-counts" },
      Object.entries(summary.byType).map(([type, n]) => `${n} ${type.toLowerCase().replace("dataset_field", "field")}`).join(" · "),
      summary.total ? ` · by distance: ${Object.entries(summary.byDepth).map(([d, n]) => `${d}: ${n}`).join(", ")}` : ""),
    groups.length
      ? groups.map((group) => ownerSection(group.owner, group.inherited, group.assets))
      : h("p", { class: "muted" }, "Nothing downstream: this change affects no other asset."));
}

/** A path as steps that wrap at their arrows (never in the middle of a name), each step's full id on hover. */
function pathSteps(path: string[]): HTMLElement {
  return h("span", { class: "path-steps" }, path.flatMap((id, i) => [
    i ? h("span", { class: "arrow" }, " → ") : "",
    h("span", { class: "step", title: idLabel(id) }, idShortName(id)),
  ]));
}

/** A link to a node, named by its short id (the full id is the cell's title). */
function shortLink(id: string): HTMLElement {
  const element = nodeLink(id);
  element.textContent = idShortName(id);
  return element;
}


function ownerSection(owner: string, inherited: boolean, assets: ImpactAsset[]): HTMLElement {
  const shown = assets.slice(0, ROWS_PER_GROUP);
  return h("section", { class: "impact-group", "data-owner": owner },
    h("h3", {}, owner === NO_OWNER ? "No owner recorded" : owner, inherited && owner !== NO_OWNER ? " (inherited from namespace)" : "",
      h("span", { class: "muted" }, ` · ${assets.length}`)),
    h("table", { class: "grid impact-table" },
      h("colgroup", {}, ["asset", "type", "distance", "path", "owners", "last-run"].map((name) => h("col", { class: `col-${name}` }))),
      h("thead", {}, h("tr", {}, h("th", {}, "Asset"), h("th", {}, "Type"), h("th", { title: "Hops from what changes" }, "Distance"),
        h("th", {}, "Path"), h("th", {}, "Owners"), h("th", {}, "Last run"))),
      h("tbody", {}, shown.map((asset) => h("tr", { "data-asset": asset.id },
        h("td", { class: "cell-asset", title: idLabel(asset.id) }, shortLink(asset.id),
          asset.quality && asset.quality !== "unknown" ? [" ", qualityBadge(asset.quality)] : null,
          asset.actions?.length
            ? h("div", { class: "muted impact-actions" }, `${asset.actions.length} action${asset.actions.length === 1 ? "" : "s"}: `,
              asset.actions.map((id) => idLabel(id).slice(idLabel(asset.id).length + 1) || idLabel(id)).join(", "))
            : null),
        h("td", { class: "nowrap" }, asset.type.toLowerCase().replace("dataset_field", "field")),
        h("td", { class: "num" }, String(asset.distance)),
        h("td", { class: "impact-path", title: asset.path.map(idLabel).join(" → ") }, pathSteps(asset.path),
          asset.transformations.length ? h("div", { class: "muted mono" }, asset.transformations.map(edgeText).join(" → ")) : null),
        h("td", {}, asset.owners.length
          ? h("span", { class: "owner-chips" }, asset.owners.map((owner) => h("span", { class: "owner-chip", title: ownerText(owner) }, owner.name)))
          : "—"),
        h("td", { class: "nowrap" }, asset.lastRunState ? stateBadge(asset.lastRunState) : "—", " ", formatTime(asset.lastRunTime)))))),
    assets.length > shown.length
      ? h("p", { class: "muted" }, `${assets.length - shown.length} more: download the report for all of them.`)
      : null);
}
