// Side panel for a dataset: schema, owners, recent runs and the latest run's signature status.

import { api } from "../../../api/client";
import type { DatasetDetail } from "../../../api/types";
import { h, link, nameBreaks, replace } from "../../../dom";
import { formatTime } from "../../../format";
import { errorMessage, inferredMark, loading, nodeLink, section, stateBadge, verificationBadge } from "../../../shell/widgets";
import { aliasList } from "../../dataset/aliases";
import type { PanelActions } from "./types";

export function datasetPanel(id: string, actions: PanelActions): HTMLElement {
  const body = h("div", { class: "panel-body" }, loading());
  const panel = h("div", { class: "side-panel-content", "data-node": id }, body);
  void (async () => {
    try {
      const detail = await api.dataset(id);
      replace(body, ...datasetSections(detail, actions));
      const latest = detail.lastRuns[0];
      const badge = body.querySelector<HTMLElement>(".latest-verification");
      if (latest && badge) {
        try {
          const run = await api.run(latest.runId);
          replace(badge, verificationBadge(run.verification));
        } catch (error) {
          replace(badge, errorMessage(error));
        }
      }
    } catch (error) {
      replace(body, errorMessage(error));
    }
  })();
  return panel;
}

function datasetSections(detail: DatasetDetail, actions: PanelActions): HTMLElement[] {
  const latest = detail.lastRuns[0];
  return [
    h("div", { class: "panel-head" },
      h("span", { class: "tag tag-dataset" }, "dataset"),
      h("h2", { class: "node-name" }, nameBreaks(detail.name)),
      h("div", { class: "muted" }, detail.namespace)),
    h("div", { class: "panel-actions" },
      h("button", { type: "button", onclick: () => actions.expand(detail.id) }, "Expand neighbours"),
      h("button", { type: "button", onclick: () => actions.openAsRoot(detail.id) }, "Center lineage here"),
      link(`/dataset?nodeId=${encodeURIComponent(detail.id)}`, "Schema history →")),
    section("Latest run",
      latest
        ? h("div", { class: "latest-run" }, stateBadge(latest.state), " ", formatTime(latest.endedAt ?? latest.startedAt),
          h("div", { class: "latest-verification" }, loading("Checking signature…")))
        : h("p", { class: "muted" }, "No run has written this dataset.")),
    section(`Schema (${detail.fields.length} fields)`,
      detail.fields.length
        ? h("table", { class: "fields" },
          h("thead", {}, h("tr", {}, h("th", {}, "Field"), h("th", {}, "Type"), h("th", {}, ""))),
          h("tbody", {}, detail.fields.map((field) =>
            h("tr", { class: field.current ? "" : "stale" },
              h("td", {}, field.name), h("td", { class: "mono" }, field.type ?? ""),
              h("td", {}, h("button", { type: "button", class: "link-button", "data-field": field.name,
                onclick: () => actions.showField(detail.id, field.name) }, "column lineage"))))))
        : h("p", { class: "muted" }, "No schema recorded.")),
    section("Also known as", aliasList(detail.aliases)),
    section("Owners",
      detail.owners.length
        ? h("ul", { class: "owners" }, detail.owners.map((owner) =>
          h("li", {}, owner.name, owner.role ? h("span", { class: "muted" }, ` · ${owner.role}`) : null)))
        : h("p", { class: "muted" }, "No owners recorded.")),
    section("Recent runs",
      detail.lastRuns.length
        ? h("ul", { class: "runs" }, detail.lastRuns.map((run) =>
          h("li", {}, stateBadge(run.state), " ", nodeLink(run.job), h("span", { class: "muted" }, ` ${formatTime(run.startedAt)}`))))
        : h("p", { class: "muted" }, "No runs.")),
    section("Producers and consumers",
      h("div", {}, h("strong", {}, "Written by: "), detail.producers.length ? detail.producers.flatMap((id, i) => [i ? ", " : "", nodeLink(id)]) : "—"),
      h("div", {}, h("strong", {}, "Read by: "), detail.consumers.length
        ? detail.consumers.flatMap((id, i) => [i ? ", " : "", nodeLink(id), inferredMark(detail.inferredConsumers.includes(id))])
        : "—"),
      detail.formerConsumers.length
        ? h("div", { class: "former-consumers", title: "Read it before; their latest completed run no longer did" }, h("strong", {}, "Formerly read by: "),
          detail.formerConsumers.flatMap((job, i) => [i ? ", " : "", nodeLink(job.id), h("span", { class: "muted" }, ` (stopped ${formatTime(job.staleSince)})`)]))
        : null),
  ];
}
