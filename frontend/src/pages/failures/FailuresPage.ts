// Fleet-wide failures: failing jobs first (since when, how many in a row, the blast radius), then
// every failure headlined by its root cause, with the full error and stack one click away.

import { api } from "../../api/client";
import type { BlastRadius, Failure, FailureGroup } from "../../api/types";
import { h, link, replace } from "../../dom";
import { formatTime, idLabel } from "../../format";
import { datasetShortName } from "../../graph/names";
import { navigate } from "../../router";
import { errorMessage, lineageHref, loading, nodeLink, nodeShortLink, stateBadge } from "../../shell/widgets";
import { impactPageHref } from "../impact/model";
import {
  CLASSIFICATIONS, classificationLabel, failureFilters, failureRootCauseHref, failureStarts, failuresHref, rootCauseWalkHref,
  sinceLastSuccessText, splitCause,
  streakText,
} from "./model";

const PAGE = 50;
const GROUP_PAGE = 20;

type FailureStart = Pick<Failure, "job" | "outputs" | "classification" | "testedDatasets">;

/** The explorer opened downstream from where the failure starts (`failureStarts`). */
export function impactHref(failure: FailureStart, depth = 5): string {
  return lineageHref(failureStarts(failure), { depth, direction: "downstream" });
}

export function FailuresPage(root: HTMLElement, url: URL): void {
  const params = url.searchParams;
  const filters = failureFilters(params);
  const namespace = h("input", { type: "text", name: "namespace", placeholder: "any", value: filters.namespace ?? "" });
  const since = h("input", { type: "datetime-local", name: "since", value: (filters.since ?? "").slice(0, 16) });
  const classification = h("select", { name: "classification" },
    h("option", { value: "" }, "any"),
    CLASSIFICATIONS.map((c) => h("option", { value: c.value, selected: c.value === filters.classification }, c.label)));
  const form = h("form", { class: "filters" },
    h("label", {}, "Namespace ", namespace), h("label", {}, "Since (UTC) ", since),
    h("label", {}, "Kind ", classification),
    h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    navigate(failuresHref({
      ...filters,
      namespace: namespace.value.trim() || undefined,
      since: since.value ? `${since.value}:00Z` : undefined,
      classification: (classification.value || undefined) as typeof filters.classification,
    }));
  });
  const groups = h("div", { class: "failure-groups", id: "failure-groups" }, loading());
  const list = h("div", { class: "failures", id: "failures" }, loading());
  const more = h("div", {});
  replace(root, h("div", { class: "page" },
    h("h1", {}, "Failures"),
    filters.job ? h("p", {}, "Job ", nodeLink(filters.job), " · ", link(failuresHref({ ...filters, job: undefined }), "all jobs")) : null,
    form,
    h("h2", {}, "Failing jobs"), groups,
    h("h2", {}, "Every failure"), list, more));

  api.failureJobs({ ...filters, limit: GROUP_PAGE }).then(
    (page) => replace(groups, page.results.length ? groupTable(page.results, page.count) : h("p", { class: "muted" }, "No failing jobs.")),
    (error) => replace(groups, errorMessage(error)));

  let offset = 0;
  const loadPage = async () => {
    try {
      const page = await api.failures({ ...filters, limit: PAGE, offset });
      if (offset === 0) replace(list, page.results.length ? null : h("p", { class: "muted" }, "No failed or aborted runs."));
      for (const failure of page.results) list.appendChild(failureCard(failure));
      offset += page.results.length;
      replace(more, offset < page.count
        ? h("button", { type: "button", onclick: () => void loadPage() }, `Show more (${page.count - offset} left)`)
        : h("p", { class: "muted" }, `${page.count} failures`));
    } catch (error) {
      replace(list, errorMessage(error));
    }
  };
  void loadPage();
}

/** A chip naming what kind of failure it is. */
export function classificationChip(value: string | null | undefined): HTMLElement {
  return h("span", { class: `chip failure-class class-${value ?? "none"}`, "data-classification": value ?? "" },
    classificationLabel(value));
}

/** The root cause as its headline: exception class, then message; the whole line in the title. */
export function causeHeadline(cause: string | null, fallback: string): HTMLElement {
  if (!cause) return h("p", { class: "failure-cause muted" }, fallback);
  const { exception, message } = splitCause(cause);
  return h("p", { class: "failure-cause", title: cause },
    exception ? h("strong", { class: "cause-class mono" }, exception) : null,
    exception && message ? ": " : null,
    message ? h("span", { class: "cause-message" }, message) : null);
}

function ellipsised(text: string, className = ""): HTMLElement {
  return h("span", { class: `ellipsis ${className}`.trim(), title: text }, text);
}

export function groupTable(groups: FailureGroup[], count: number): HTMLElement {
  return h("div", { class: "table-scroll" },
    h("table", { class: "grid failure-group-table" },
      h("thead", {}, h("tr", {},
        h("th", {}, "Job"), h("th", {}, "Failing since"), h("th", {}, "In a row"), h("th", {}, "Kind"),
        h("th", {}, "Last cause"), h("th", {}, "Blast radius"), h("th", {}, ""))),
      h("tbody", {}, groups.map(groupRow))),
    count > groups.length ? h("p", { class: "muted" }, `${groups.length} of ${count} failing jobs`) : null);
}

function groupRow(group: FailureGroup): HTMLElement {
  const last = group.lastFailure;
  return h("tr", { "data-job": group.job },
    h("td", { class: "cell-job" }, link(`/job?nodeId=${encodeURIComponent(group.job)}`, ellipsised(group.name)),
      h("div", { class: "muted" }, ellipsised(group.namespace))),
    h("td", { class: "nowrap" }, group.failingSince ? formatTime(group.failingSince) : "—"),
    h("td", { class: "nowrap", title: `${group.failureCount} failures matching the filters` },
      streakText(group.consecutiveFailures, group.consecutiveFailuresCapped)),
    h("td", {}, classificationChip(last?.classification)),
    h("td", { class: "cell-cause" },
      last ? causeHeadline(last.cause, last.state === "ABORTED" ? "Aborted (no error reported)" : "(no error reported)") : "—",
      sinceLastSuccessLine(group)),
    h("td", { class: "cell-blast" }, blastRadius(group.blastRadius, last)),
    h("td", { class: "cell-links" },
      link(last ? failureRootCauseHref(last) : rootCauseWalkHref(group.job), "Root cause walk"), " ",
      link(failuresHref({ job: group.job }), "Failures")));
}

function sinceLastSuccessLine(group: FailureGroup): HTMLElement | null {
  const text = sinceLastSuccessText(group.sinceLastSuccess);
  return text ? h("p", { class: "since-last-success muted", title: `compared with run ${group.sinceLastSuccess?.runId}` }, text) : null;
}

export function blastRadius(radius: BlastRadius, failure: FailureStart | null): HTMLElement {
  if (!radius.datasets.length) return h("span", { class: "muted" }, "nothing recorded downstream");
  const starts = failure ? failureStarts(failure).filter((id) => id !== failure.job) : [];
  const impact = impactPageHref(starts.length ? starts : radius.datasets.filter((d) => d.distance === 0).map((d) => d.id));
  return h("div", { class: "blast-radius" },
    h("div", { class: "chips" }, radius.datasets.map((d) =>
      h("a", { href: impact, "data-link": "", class: "chip chip-dataset",
        title: `${idLabel(d.id)} · ${d.distance} hops · owners: ${d.owners.join(", ") || "none"}` }, datasetShortName(d.namespace, d.name)))),
    radius.owners.length ? h("div", { class: "chips" }, radius.owners.map((o) => h("span", { class: "chip chip-owner", title: o }, o))) : null,
    h("a", { href: impact, "data-link": "", class: "blast-impact" },
      radius.truncated ? `Impact report (${radius.total} datasets)` : "Impact report"));
}

function failureCard(failure: Failure): HTMLElement {
  const borrowed = failure.causeRunId !== failure.runId;
  return h("article", { class: "failure", "data-run": failure.runId, "data-classification": failure.classification ?? "" },
    h("header", {},
      stateBadge(failure.state), " ",
      classificationChip(failure.classification), " ",
      h("strong", { class: "failure-job" }, idLabel(failure.job)), " ",
      h("span", { class: "muted" }, formatTime(failure.endedAt ?? failure.startedAt)),
      failure.parentRunId ? h("span", { class: "muted" }, ` · action of run ${failure.parentRunId}`) : null),
    causeHeadline(failure.cause, failure.state === "ABORTED" ? "Aborted (no error reported)" : "(no error reported)"),
    borrowed ? h("p", { class: "muted" }, `Cause reported by action run ${failure.causeRunId}`) : null,
    failure.errorMessage || failure.stackTrace
      ? h("details", { class: "stack" }, h("summary", {}, "Full error and stack trace"),
        failure.errorMessage ? h("pre", { class: "error-text failure-message" }, failure.errorMessage) : null,
        failure.stackTrace ? h("pre", { class: "stack-trace" }, failure.stackTrace) : null)
      : null,
    failure.testedDatasets.length
      ? h("div", { class: "failure-tested" }, "Failed checks on: ",
        failure.testedDatasets.flatMap((id, i) => [i ? ", " : "", link(`/dataset?nodeId=${encodeURIComponent(id)}`, idLabel(id))]))
      : null,
    h("div", { class: "failure-outputs" }, "Should have written: ",
      failure.outputs.length ? failure.outputs.flatMap((id, i) => [i ? ", " : "", nodeShortLink(id)]) : "—"),
    h("div", { class: "failure-links" },
      link(failureRootCauseHref(failure), "Root cause walk"),
      link(lineageHref([failure.job], { depth: 2, direction: "both" }), "Lineage"),
      link(impactHref(failure), "Downstream impact"),
      link(impactPageHref(failureStarts(failure)), "Impact report"),
      link(`/job?nodeId=${encodeURIComponent(failure.job)}`, "Run history"),
      h("span", { class: "muted mono" }, `run ${failure.runId}`)));
}
