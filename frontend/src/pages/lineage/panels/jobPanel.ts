// Side panel for a job: its latest run with the signature status, recent runs, inputs and outputs, and what its facets
// say about it (type, tags, documentation, code location, SQL).

import { api } from "../../../api/client";
import type { JobDetail, RunPage } from "../../../api/types";
import { h, link, nameBreaks, replace } from "../../../dom";
import { formatDuration, formatTime, idLabel } from "../../../format";
import { jobFacetSections } from "../../../facets/job";
import { errorMessage, inferredMark, loading, nodeLink, section, stateBadge, verificationBadge } from "../../../shell/widgets";
import { streamingSummary } from "../../runs/streaming";
import type { PanelActions } from "./types";

export function jobPanel(id: string, actions: PanelActions): HTMLElement {
  const body = h("div", { class: "panel-body" }, loading());
  const panel = h("div", { class: "side-panel-content", "data-node": id }, body);
  void (async () => {
    try {
      const [detail, runs] = await Promise.all([api.job(id), api.jobRuns(id, { limit: 8 })]);
      replace(body, ...jobSections(detail, runs, actions));
    } catch (error) {
      replace(body, errorMessage(error));
    }
  })();
  return panel;
}

/** An application job stands for its actions: expand it into them, or fold an action back into it. */
function applicationSection(detail: JobDetail, actions: PanelActions): HTMLElement | null {
  const members = actions.actionsOf(detail.id);
  if (members.length) {
    return section(`Application · ${members.length} action${members.length === 1 ? "" : "s"}`,
      h("ul", { class: "actions-list" }, members.map((id) => h("li", { title: idLabel(id) }, nodeLink(id)))),
      h("button", { type: "button", id: "expand-application", onclick: () => actions.expandApplication(detail.id) },
        "Show as its actions"));
  }
  const app = actions.applicationOf(detail.id);
  if (app) {
    return section("Action of an application",
      h("p", {}, nodeLink(app)),
      h("button", { type: "button", id: "collapse-application", onclick: () => actions.collapseApplication(app) },
        "Fold back into the application"));
  }
  return null;
}

function jobSections(detail: JobDetail, runs: RunPage, actions: PanelActions): HTMLElement[] {
  const latest = detail.latestRun ?? runs.results[0] ?? null;
  const application = applicationSection(detail, actions);
  return [
    h("div", { class: "panel-head" },
      h("span", { class: "tag tag-job" }, "job"),
      h("h2", { class: "node-name" }, nameBreaks(detail.name)),
      h("div", { class: "muted" }, detail.namespace, detail.jobType ? ` · ${detail.jobType}` : "")),
    h("div", { class: "panel-actions" },
      h("button", { type: "button", onclick: () => actions.expand(detail.id) }, "Expand neighbours"),
      h("button", { type: "button", onclick: () => actions.openAsRoot(detail.id) }, "Center lineage here"),
      link(`/job?nodeId=${encodeURIComponent(detail.id)}`, "Run history →")),
    ...(application ? [application] : []),
    section("Latest run",
      latest
        ? h("div", { class: "latest-run" },
          stateBadge(latest.state), " ", formatTime(latest.startedAt), " · ", formatDuration(latest.durationMs),
          latest.streaming ? h("div", { class: "latest-streaming" }, streamingSummary(latest.streaming, latest.state)) : null,
          h("div", { class: "latest-verification" }, verificationBadge(latest.verification)),
          latest.errorMessage ? h("pre", { class: "error-text" }, latest.errorMessage) : null)
        : h("p", { class: "muted" }, "No runs yet.")),
    section(`Recent runs (${runs.count})`,
      runs.results.length
        ? h("ul", { class: "runs" }, runs.results.map((run) =>
          h("li", {}, stateBadge(run.state), " ", formatTime(run.startedAt), h("span", { class: "muted" }, ` ${formatDuration(run.durationMs)}`))))
        : h("p", { class: "muted" }, "No runs.")),
    section("Reads", detail.inputs.length ? h("ul", {}, detail.inputs.map((id) => h("li", {}, nodeLink(id), inferredMark(detail.inferredInputs.includes(id))))) : h("p", { class: "muted" }, "—")),
    section("Writes", detail.outputs.length ? h("ul", {}, detail.outputs.map((id) => h("li", {}, nodeLink(id)))) : h("p", { class: "muted" }, "—")),
    ...jobFacetSections(detail.facets),
  ];
}
