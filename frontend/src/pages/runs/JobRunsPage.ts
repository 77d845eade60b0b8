// A job's page: what its facets say about it (type, tags, documentation, code location, SQL), and its run history
// (opened on one run with `run=<runId>`: that run's page): a timeline of runs, durations and states, with each run's facets, error and stack trace, how its reads and writes
// changed from the previous completed run, and the facets its events were applied without (they failed their schema).

import { api } from "../../api/client";
import type { Cleanup } from "../../router";
import type { JobDetail, RunDetail, RunSummary } from "../../api/types";
import { h, link, replace, svg } from "../../dom";
import { STATE_COLORS, formatDuration, formatTime, idLabel, stateKey } from "../../format";
import { jobFacetSections } from "../../facets/job";
import { runFacetSections } from "../../facets/run";
import { subscribeButton } from "../alerts/subscribe";
import { errorMessage, inferredMark, lineageHref, loading, nodeLink, stateBadge, verificationBadge } from "../../shell/widgets";
import { classificationChip } from "../failures/FailuresPage";
import { rootCauseWalkHref } from "../failures/model";
import { LoadQueue, lineageChangeLoad } from "./lineageChange";
import { runHierarchy } from "./hierarchy";
import { ledgerPositions } from "./ledgerPositions";
import { streamingSummary } from "./streaming";

const PAGE = 50;
/** How many runs' lineage changes are asked for at once. */
const LINEAGE_LOADS = 4;

export function JobRunsPage(root: HTMLElement, url: URL): Cleanup | void {
  const nodeId = url.searchParams.get("nodeId");
  if (!nodeId) { replace(root, h("div", { class: "page" }, h("p", {}, "No job chosen."))); return; }
  // `run`: the page of one run (what search opens for a run id): that run first, then the job's history.
  const focusRun = url.searchParams.get("run");
  const focus = focusRun ? h("section", { class: "run-focus", id: "run-focus", "data-run": focusRun }, loading()) : null;
  const abort = new AbortController();
  const lineageQueue = new LoadQueue(LINEAGE_LOADS);
  const head = h("div", {}, loading());
  const timeline = h("div", { class: "timeline", id: "timeline" });
  const table = h("tbody", {});
  const more = h("div", {});
  replace(root, h("div", { class: "page" }, head, focus,
    h("h2", {}, "Timeline"), timeline,
    h("h2", {}, "Runs"),
    h("table", { class: "grid runs-table", id: "runs" },
      h("thead", {}, h("tr", {}, h("th", {}, "State"), h("th", {}, "Started"), h("th", {}, "Ended"), h("th", {}, "Duration"),
        h("th", {}, "Signature"), h("th", { title: "How the run's reads and writes changed from the job's previous completed run" }, "Lineage change"),
        h("th", {}, "Cause"), h("th", {}, ""))),
      table),
    more));

  api.job(nodeId).then((job) => replace(head, jobHead(job)), (error) => replace(head, errorMessage(error)));
  if (focus && focusRun) {
    api.run(focusRun).then(
      (full) => replace(focus, h("h2", {}, "Run ", stateBadge(full.state)),
        h("div", { class: "muted" }, `${formatTime(full.startedAt)} → ${formatTime(full.endedAt)} · ${formatDuration(full.durationMs)}`),
        ...runDetail(full)),
      (error) => replace(focus, errorMessage(error)));
  }

  const runs: RunSummary[] = [];
  let offset = 0;
  const loadPage = async () => {
    try {
      const page = await api.jobRuns(nodeId, { limit: PAGE, offset });
      runs.push(...page.results);
      offset += page.results.length;
      for (const run of page.results) {
        const rows = runRows(run, run.runId === focusRun);
        table.append(...rows);
        const cell = rows[0].querySelector<HTMLElement>(".run-lineage-change");
        if (cell) lineageChangeLoad(lineageQueue, cell, run.runId, abort.signal);
      }
      replace(timeline, runs.length ? runTimeline(runs) : h("p", { class: "muted" }, "No runs yet."));
      replace(more, offset < page.count
        ? h("button", { type: "button", onclick: () => void loadPage() }, `Older runs (${page.count - offset} left)`)
        : h("p", { class: "muted" }, `${page.count} runs`));
    } catch (error) {
      replace(more, errorMessage(error));
    }
  };
  void loadPage();
  return () => abort.abort();
}

function idLinks(ids: string[], inferred: string[] = []): (HTMLElement | string | null)[] | string {
  return ids.length ? ids.flatMap((id, i) => [i ? ", " : "", nodeLink(id), inferredMark(inferred.includes(id))]) : "—";
}

function jobHead(job: JobDetail): HTMLElement {
  return h("div", { class: "page-head" },
    h("span", { class: "tag tag-job" }, "job"),
    h("h1", { class: "node-name" }, job.name),
    h("div", { class: "muted" }, job.namespace, job.jobType ? ` · ${job.jobType}` : ""),
    job.streaming ? h("div", { class: "job-streaming" }, streamingSummary(job.streaming, job.latestRun?.state)) : null,
    job.latestByCommand.length
      ? h("div", { class: "job-commands", id: "job-commands", title: "each command's latest run: a failed test does not make the build fail" },
        "Latest: ", ...job.latestByCommand.flatMap(({ command, run }, i) => [i ? " · " : "", h("span", { "data-command": command }, command, " ", stateBadge(run.state))]))
      : null,
    h("div", { class: "io" },
      h("span", { id: "job-inputs" }, "Reads: ", idLinks(job.inputs, job.inferredInputs)),
      h("span", {}, " · Writes: ", idLinks(job.outputs))),
    job.formerInputs.length || job.formerOutputs.length
      ? h("div", { class: "io io-former muted", title: "its latest completed runs no longer read or write these" },
        job.formerInputs.length ? h("span", {}, "Read before: ", idLinks(job.formerInputs)) : null,
        job.formerInputs.length && job.formerOutputs.length ? " · " : null,
        job.formerOutputs.length ? h("span", {}, "Wrote before: ", idLinks(job.formerOutputs)) : null)
      : null,
    dependencyList(job.dependencies),
    h("div", { class: "panel-actions" },
      link(lineageHref([job.id]), "Lineage"),
      link(`/failures?job=${encodeURIComponent(job.id)}`, "Failures of this job"),
      link(rootCauseWalkHref(job.id), "Root cause walk"),
      subscribeButton({ targetType: "job", namespace: job.namespace, name: job.name })),
    h("div", { class: "facet-sections", id: "job-facets" }, jobFacetSections(job.facets)));
}

/** The jobs its runs (or theirs) declared it runs after or before (`jobDependencies`); nothing when none did. */
function dependencyList(dependencies: JobDetail["dependencies"]): HTMLElement | null {
  if (!dependencies.length) return null;
  return h("div", { class: "io job-dependencies", id: "job-dependencies" },
    "Declared dependencies: ",
    ...dependencies.flatMap((dependency, i) => [
      i ? " · " : "",
      h("span", {
        class: dependency.current ? "dependency" : "dependency muted",
        "data-direction": dependency.direction,
        title: [
          `declared by ${dependency.declaredBy.map(idLabel).join(", ")}`,
          dependency.dependencyType, dependency.sequenceTriggerRule, dependency.statusTriggerRule,
          dependency.current ? "" : "no longer declared by the latest completed runs",
        ].filter(Boolean).join("\n"),
      }, dependency.direction === "upstream" ? "after " : "before ", nodeLink(dependency.jobId), dependency.current ? "" : " (former)"),
    ]));
}

/** The part of dataset `id` a run read or wrote (a partition, its `subset` facet), beside the dataset; nothing when whole. */
function subsetChip(subsets: RunDetail["outputSubsets"], id: string): HTMLElement | null {
  const subset = subsets.find((s) => s.datasetId === id)?.subset;
  return subset ? h("span", { class: "tag tag-subset", "data-subset": id, title: "only this part of the dataset (subset facet)" }, `partition ${subset}`) : null;
}

/** What an orchestrator's run ran (dbt's `run`, `test`, …), beside its state; nothing for other runs. */
function commandChip(command: string | null): HTMLElement | null {
  return command ? h("span", { class: "tag tag-command", title: "the command this run ran" }, command) : null;
}

/** What a run read (or wrote): its own, each with the part of it the run read or wrote (a partition), then what
 * only its steps did ("through its steps"), or "—" for neither. */
function ioLine(verb: "Read" | "Wrote", own: string[], steps: string[], subsets: RunDetail["outputSubsets"]): HTMLElement {
  const links = (ids: string[], parts: RunDetail["outputSubsets"]) => ids.flatMap((id, i) => [i ? ", " : "", nodeLink(id), subsetChip(parts, id)]);
  const attributes = { class: verb === "Read" ? "run-reads" : "run-writes", "data-io": verb.toLowerCase() };
  if (!own.length && !steps.length) return h("div", attributes, `${verb}: —`);
  return h("div", attributes, `${verb}: `, links(own, subsets),
    steps.length ? h("span", { class: "step-io" }, own.length ? "; through its steps: " : "through its steps: ", links(steps, [])) : null);
}

/** A run's id, error, stack trace, reads and writes, and the facets its events were applied without. */
function runDetail(full: RunDetail): (HTMLElement | null)[] {
  return [
    h("div", { class: "mono muted" }, `run ${full.runId}`),
    runHierarchy(full.runId, full.hierarchy),
    full.errorMessage ? h("pre", { class: "error-text" }, full.errorMessage) : null,
    full.stackTrace ? h("details", { class: "stack" }, h("summary", {}, "Stack trace"), h("pre", { class: "stack-trace" }, full.stackTrace)) : null,
    h("div", { class: "facet-sections run-facets" }, runFacetSections(full.facets)),
    ioLine("Read", full.inputs, full.stepInputs, full.inputSubsets),
    ioLine("Wrote", full.outputs, full.stepOutputs, full.outputSubsets),
    eventWarnings(full.events),
    ledgerPositions(full.events),
    full.outputs.length || full.stepOutputs.length
      ? link(lineageHref([...full.outputs, ...full.stepOutputs], { depth: 5, direction: "downstream" }), "Downstream of this run's outputs")
      : null,
  ];
}

function runRows(run: RunSummary, focused: boolean): HTMLElement[] {
  const detail = h("tr", { class: "run-detail", hidden: true }, h("td", { colspan: "8" }));
  const toggle = h("button", { type: "button", class: "link-button" }, "details");
  toggle.addEventListener("click", async () => {
    detail.hidden = !detail.hidden;
    if (detail.hidden || detail.dataset.loaded) return;
    detail.dataset.loaded = "1";
    const cell = detail.firstElementChild as HTMLElement;
    replace(cell, loading());
    try {
      replace(cell, ...runDetail(await api.run(run.runId)));
    } catch (error) {
      replace(cell, errorMessage(error));
    }
  });
  return [
    h("tr", { "data-run": run.runId, class: focused ? "run-focused" : "" },
      h("td", {}, stateBadge(run.state), commandChip(run.command),
        run.streaming ? h("div", {}, streamingSummary(run.streaming, run.state)) : null),
      h("td", {}, formatTime(run.startedAt)),
      h("td", {}, formatTime(run.endedAt)),
      h("td", {}, formatDuration(run.durationMs)),
      h("td", {}, verificationBadge(run.verification)),
      h("td", { class: "run-lineage-change" }, h("span", { class: "muted" }, "…")),
      h("td", { class: "error-cell" }, runCause(run)),
      h("td", {}, toggle)),
    detail,
  ];
}

/** An event of a run as `GET /jobs/runs/<runId>` lists it; `warnings` only when facets were left out. */
export interface RunEventEntry {
  id: number;
  eventType: string;
  eventTime: string;
  warnings?: { path: string; message: string }[];
}

/** The facets a run's events were applied without, one short line each; null when there are none. */
export function eventWarnings(events: unknown[]): HTMLElement | null {
  const warned = (events as RunEventEntry[]).filter((event) => event.warnings?.length);
  if (!warned.length) return null;
  return h("div", { class: "facet-warnings" },
    h("div", { class: "muted" }, "Facets left out (they failed their schema; the stored events keep them):"),
    h("ul", {}, warned.flatMap((event) => (event.warnings ?? []).map((warning) =>
      h("li", {}, `${event.eventType} ${formatTime(event.eventTime)}: `, h("code", {}, warning.path), ` — ${warning.message}`)))));
}

/** A failed run's classification and root cause (the full error in the title); else its error, if any. */
export function runCause(run: RunSummary): HTMLElement | string {
  if (run.classification || run.cause) {
    const cause = run.cause ?? (run.state === "ABORTED" ? "Aborted (no error reported)" : "(no error reported)");
    return h("span", { class: "run-cause" }, classificationChip(run.classification), " ",
      h("span", { class: "ellipsis", title: run.errorMessage ?? cause }, cause));
  }
  return run.errorMessage ? h("span", { class: "ellipsis", title: run.errorMessage }, run.errorMessage) : "";
}

/** Runs as bars on a time axis (oldest left), height by duration; colour by state. */
export function runTimeline(runs: RunSummary[]): SVGElement {
  const width = 900;
  const height = 120;
  const timed = runs.filter((r) => r.startedAt).map((r) => ({
    run: r, start: Date.parse(r.startedAt!), end: r.endedAt ? Date.parse(r.endedAt) : Date.parse(r.startedAt!) + (r.durationMs ?? 0),
  }));
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height + 24}`, class: "timeline-svg", role: "img", "aria-label": "Run timeline" });
  if (!timed.length) return chart;
  const t0 = Math.min(...timed.map((t) => t.start));
  const t1 = Math.max(...timed.map((t) => t.end), t0 + 1);
  const longest = Math.max(...timed.map((t) => t.run.durationMs ?? t.end - t.start), 1);
  const x = (t: number) => 10 + ((t - t0) / (t1 - t0)) * (width - 20);
  chart.appendChild(svg("line", { x1: 10, x2: width - 10, y1: height, y2: height, stroke: "#d0d7de" }));
  for (const t of timed) {
    const duration = t.run.durationMs ?? t.end - t.start;
    const barHeight = Math.max(4, (duration / longest) * (height - 10));
    const barWidth = Math.max(4, x(t.end) - x(t.start));
    const bar = svg("rect", {
      x: x(t.start), y: height - barHeight, width: barWidth, height: barHeight, rx: 2,
      fill: STATE_COLORS[stateKey(t.run.state)], "data-run": t.run.runId,
    });
    bar.appendChild(svg("title", {}, `${t.run.state} · ${formatTime(t.run.startedAt)} · ${formatDuration(t.run.durationMs)}`));
    chart.appendChild(bar);
  }
  chart.appendChild(svg("text", { x: 10, y: height + 18, "font-size": 11, fill: "#57606a" }, formatTime(new Date(t0).toISOString())));
  chart.appendChild(svg("text", { x: width - 10, y: height + 18, "font-size": 11, fill: "#57606a", "text-anchor": "end" }, formatTime(new Date(t1).toISOString())));
  return chart;
}
