// Overview: namespaces, datasets and jobs with their last run state, each opening the explorer.

import { api } from "../../api/client";
import type { FacetWarningCount } from "../../api/types";
import { h, link, replace } from "../../dom";
import { formatTime } from "../../format";
import { datasetShortName } from "../../graph/names";
import { errorMessage, lineageHref, loading, stateBadge } from "../../shell/widgets";

export function HomePage(root: HTMLElement): void {
  const namespaces = h("div", {}, loading());
  const datasets = h("div", {}, loading());
  const jobs = h("div", {}, loading());
  const warnings = h("section", { id: "facet-warnings" });
  replace(root, h("div", { class: "page" },
    h("h1", {}, "Overview"),
    h("section", {}, h("h2", {}, "Namespaces"), namespaces),
    h("div", { class: "two-columns" },
      h("section", {}, h("h2", {}, "Datasets"), datasets),
      h("section", {}, h("h2", {}, "Jobs"), jobs)),
    warnings));

  // Producers whose events had a facet left out (it failed its schema; the rest was applied).
  api.facetWarnings().then(({ results }) => replace(warnings, ...facetWarningSection(results)),
    (error) => replace(warnings, errorMessage(error)));

  api.namespaces({ limit: 100 }).then((page) => replace(namespaces, page.results.length
    ? h("ul", { class: "chips" }, page.results.map((ns) =>
      h("li", {}, h("span", { class: "chip" }, ns.name, h("span", { class: "muted" }, ` ${ns.datasetCount} datasets · ${ns.jobCount} jobs`)))))
    : h("p", { class: "muted" }, "No lineage yet: send OpenLineage events to /api/v1/lineage.")),
  (error) => replace(namespaces, errorMessage(error)));

  api.datasets({ limit: 50 }).then((page) => replace(datasets, h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, h("th", {}, "Dataset"), h("th", {}, "Namespace"), h("th", {}, "Last run"), h("th", {}, "Last seen"))),
    h("tbody", {}, page.results.map((d) => h("tr", {},
      h("td", { title: d.name }, link(lineageHref([d.id]), datasetShortName(d.namespace, d.name))),
      h("td", { class: "muted" }, d.namespace),
      h("td", {}, stateBadge(d.lastRunState)),
      h("td", {}, formatTime(d.lastSeen))))))),
  (error) => replace(datasets, errorMessage(error)));

  api.jobs({ limit: 50 }).then((page) => replace(jobs, h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, h("th", {}, "Job"), h("th", {}, "Namespace"), h("th", {}, "Latest run"), h("th", {}, ""))),
    h("tbody", {}, page.results.map((j) => h("tr", {},
      h("td", {}, link(lineageHref([j.id]), j.name)),
      h("td", { class: "muted" }, j.namespace),
      h("td", {}, stateBadge(j.latestRunState), " ", formatTime(j.latestRunTime)),
      h("td", {}, link(`/job?nodeId=${encodeURIComponent(j.id)}`, "runs"))))))),
  (error) => replace(jobs, errorMessage(error)));
}

/** Producers whose events had a facet left out (it failed its schema; the rest was applied); nothing when none. */
export function facetWarningSection(results: FacetWarningCount[]): HTMLElement[] {
  if (!results.length) return [];
  return [
    h("h2", {}, "Facets left out, by producer"),
    h("p", { class: "muted" }, "These facets failed their schema: the events were stored as sent and applied without them."),
    h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", {}, "Producer"), h("th", {}, "Facet"), h("th", {}, "Events"))),
      h("tbody", {}, results.map((row) => h("tr", {},
        h("td", { title: row.producer }, row.producer || "—"), h("td", { class: "mono" }, row.facet),
        h("td", { class: "num" }, String(row.events)))))),
  ];
}
