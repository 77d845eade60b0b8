// Overview: namespaces, datasets and jobs with their last run state, each opening the explorer.

import { api } from "../../api/client";
import { h, link, replace } from "../../dom";
import { formatTime } from "../../format";
import { errorMessage, lineageHref, loading, stateBadge } from "../../shell/widgets";

export function HomePage(root: HTMLElement): void {
  const namespaces = h("div", {}, loading());
  const datasets = h("div", {}, loading());
  const jobs = h("div", {}, loading());
  replace(root, h("div", { class: "page" },
    h("h1", {}, "Overview"),
    h("section", {}, h("h2", {}, "Namespaces"), namespaces),
    h("div", { class: "two-columns" },
      h("section", {}, h("h2", {}, "Datasets"), datasets),
      h("section", {}, h("h2", {}, "Jobs"), jobs))));

  api.namespaces({ limit: 100 }).then((page) => replace(namespaces, page.results.length
    ? h("ul", { class: "chips" }, page.results.map((ns) =>
      h("li", {}, h("span", { class: "chip" }, ns.name, h("span", { class: "muted" }, ` ${ns.datasetCount} datasets · ${ns.jobCount} jobs`)))))
    : h("p", { class: "muted" }, "No lineage yet: send OpenLineage events to /api/v1/lineage.")),
  (error) => replace(namespaces, errorMessage(error)));

  api.datasets({ limit: 50 }).then((page) => replace(datasets, h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, h("th", {}, "Dataset"), h("th", {}, "Namespace"), h("th", {}, "Last run"), h("th", {}, "Last seen"))),
    h("tbody", {}, page.results.map((d) => h("tr", {},
      h("td", {}, link(lineageHref([d.id]), d.name)),
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
