// Small shared pieces: state and verification badges, messages, node links.

import { ApiError } from "../api/client";
import type { QualityStatus } from "../api/types";
import { h, link, nameBreaks } from "../dom";
import { idLabel, idType, stateKey } from "../format";
import { idShortName } from "../graph/names";

export function stateBadge(state: string | null | undefined): HTMLElement {
  const key = stateKey(state);
  return h("span", { class: `badge state-${key.toLowerCase()}`, "data-state": key }, state ?? "unknown");
}

/** A dataset's data-quality status as a badge: passing, warning (a check of severity warn failed), failing or unknown. */
export function qualityBadge(status: QualityStatus): HTMLElement {
  return h("span", { class: `badge quality-${status}`, "data-quality": status, title: "data quality now" }, `quality ${status}`);
}

/** What each signature status the server reports means, in words (the schema types the status as a string). */
const VERIFICATION_TEXT: Record<string, string> = {
  VERIFIED: "Signature verified",
  UNSIGNED: "Unsigned",
  INVALID_SIGNATURE: "Invalid signature",
  UNKNOWN_KEY: "Unknown key",
  REVOKED_KEY: "Revoked key",
  RETIRED_KEY: "Retired key",
  NAMESPACE_NOT_ALLOWED: "Namespace not allowed",
};

export function verificationBadge(status: string | null | undefined): HTMLElement {
  const kind = status === "VERIFIED" ? "ok" : status === "UNSIGNED" || !status ? "neutral" : "bad";
  const text = status ? VERIFICATION_TEXT[status] ?? status : "Not checked";
  return h("span", { class: `badge verify-${kind}`, "data-verification": status ?? "", title: status ?? "not checked yet" },
    kind === "ok" ? "✔ " : kind === "bad" ? "✖ " : "", text);
}

export function errorMessage(error: unknown): HTMLElement {
  const text = error instanceof ApiError
    ? `${error.body.message}${error.body.path ? ` (${error.body.path})` : ""}`
    : error instanceof Error ? error.message : String(error);
  return h("div", { class: "message error", role: "alert" }, text);
}

export function loading(text = "Loading…"): HTMLElement {
  return h("div", { class: "message loading" }, text);
}

/**
 * A link to the page that best shows a node id (datasets to the dataset page, jobs to their runs), named by the id
 * without its type, which wraps only at its separators.
 */
export function nodeLink(id: string): HTMLElement {
  const href = nodeHref(id);
  const text = nameBreaks(idLabel(id));
  return href ? link(href, text) : text;
}

/** The mark of an input inferred from column lineage (docs/dbt.md): after its link, when `inferred`. */
export function inferredMark(inferred: boolean): HTMLElement | null {
  return inferred
    ? h("span", { class: "muted inferred-mark", "data-inferred": "true", title: "its column lineage names it as a source; no event listed it as an input" },
      " (inferred from column lineage)")
    : null;
}

/** A dataset's or job's short name (the full one on hover), linking to its page. */
export function nodeShortLink(id: string): HTMLElement {
  const href = nodeHref(id);
  const text = h("span", { title: idLabel(id) }, idShortName(id));
  return href ? link(href, text) : text;
}

function nodeHref(id: string): string | null {
  const type = idType(id);
  return type === "dataset" ? `/dataset?nodeId=${encodeURIComponent(id)}`
    : type === "job" ? `/job?nodeId=${encodeURIComponent(id)}` : null;
}

/** A run's page: its job's run history, opened on that run. */
export function runHref(jobId: string, runId: string): string {
  return `/job?${new URLSearchParams({ nodeId: jobId, run: runId })}`;
}

export function lineageHref(nodeIds: string[], options: { depth?: number; direction?: string; view?: string; field?: string } = {}): string {
  const params = new URLSearchParams();
  for (const id of nodeIds) params.append("nodeId", id);
  if (options.depth !== undefined) params.set("depth", String(options.depth));
  if (options.direction) params.set("direction", options.direction);
  if (options.view) params.set("view", options.view);
  if (options.field) params.set("field", options.field);
  return `/lineage?${params}`;
}

export function section(title: string, ...body: (Node | string | null | false)[]): HTMLElement {
  return h("section", { class: "panel-section" }, h("h3", {}, title), ...body);
}
