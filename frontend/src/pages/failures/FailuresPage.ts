// Fleet-wide failures: what failed, when, the error and stack trace, and links to lineage and impact.

import { api } from "../../api/client";
import type { Failure } from "../../api/types";
import { h, link, replace } from "../../dom";
import { formatTime, idLabel } from "../../format";
import { navigate } from "../../router";
import { errorMessage, lineageHref, loading, nodeLink, stateBadge } from "../../shell/widgets";
import { impactPageHref } from "../impact/model";

const PAGE = 50;

/** The explorer opened downstream from what the failed run should have written (its job if nothing). */
export function impactHref(failure: Pick<Failure, "job" | "outputs">, depth = 5): string {
  const roots = failure.outputs.length ? failure.outputs : [failure.job];
  return lineageHref(roots, { depth, direction: "downstream" });
}

export function FailuresPage(root: HTMLElement, url: URL): void {
  const params = url.searchParams;
  const namespace = h("input", { type: "text", name: "namespace", placeholder: "any", value: params.get("namespace") ?? "" });
  const since = h("input", { type: "datetime-local", name: "since", value: (params.get("since") ?? "").slice(0, 16) });
  const form = h("form", { class: "filters" },
    h("label", {}, "Namespace ", namespace), h("label", {}, "Since (UTC) ", since),
    h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (namespace.value.trim()) next.set("namespace", namespace.value.trim());
    if (since.value) next.set("since", `${since.value}:00Z`);
    if (params.get("job")) next.set("job", params.get("job")!);
    navigate(`/failures?${next}`);
  });
  const list = h("div", { class: "failures", id: "failures" }, loading());
  const more = h("div", {});
  replace(root, h("div", { class: "page" },
    h("h1", {}, "Failures"),
    params.get("job") ? h("p", {}, "Job ", nodeLink(params.get("job")!), " · ", link("/failures", "all jobs")) : null,
    form, list, more));

  let offset = 0;
  const loadPage = async () => {
    try {
      const page = await api.failures({
        namespace: params.get("namespace") ?? undefined, job: params.get("job") ?? undefined,
        since: params.get("since") ?? undefined, until: params.get("until") ?? undefined, limit: PAGE, offset,
      });
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

function failureCard(failure: Failure): HTMLElement {
  return h("article", { class: "failure", "data-run": failure.runId },
    h("header", {},
      stateBadge(failure.state), " ",
      h("strong", { class: "failure-job" }, idLabel(failure.job)), " ",
      h("span", { class: "muted" }, formatTime(failure.endedAt ?? failure.startedAt))),
    h("pre", { class: "error-text failure-message" }, failure.errorMessage ?? "(no error message)"),
    failure.stackTrace
      ? h("details", { class: "stack" }, h("summary", {}, "Stack trace"), h("pre", { class: "stack-trace" }, failure.stackTrace))
      : null,
    h("div", { class: "failure-outputs" }, "Should have written: ",
      failure.outputs.length ? failure.outputs.flatMap((id, i) => [i ? ", " : "", nodeLink(id)]) : "—"),
    h("div", { class: "failure-links" },
      link(lineageHref([failure.job], { depth: 2, direction: "both" }), "Lineage"),
      link(impactHref(failure), "Downstream impact"),
      link(impactPageHref(failure.outputs.length ? failure.outputs : [failure.job]), "Impact report"),
      link(`/job?nodeId=${encodeURIComponent(failure.job)}`, "Run history"),
      h("span", { class: "muted mono" }, `run ${failure.runId}`)));
}
