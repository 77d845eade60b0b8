// When the explorer looks: now, at one instant, or comparing two; instants as the URL and the API write them
// (UTC, ISO 8601), and as a `datetime-local` input shows them (UTC too: every time the UI prints is UTC).

import { formatTime } from "../../format";

/** The lineage now (current edges), as it was at an instant, or what changed between two instants. */
export type TimeChoice =
  | { kind: "now" }
  | { kind: "at"; at: string }
  | { kind: "compare"; from: string; to: string };

export type TimeKind = TimeChoice["kind"];

export const NOW: TimeChoice = { kind: "now" };

/** An instant as the URL and the API take it: `2026-01-06T08:00:00Z` (milliseconds only when there are some). */
export function instantText(date: Date): string {
  return date.toISOString().replace(/\.000Z$/, "Z");
}

/** A URL's instant, normalised; null when it is missing or no instant. */
export function instantParse(text: string | null): string | null {
  if (!text) return null;
  // A bare date-time without an offset is read as UTC, as the UI shows every time.
  const withZone = /[zZ]|[+-]\d\d:?\d\d$/.test(text.slice(10)) ? text : `${text}Z`;
  const millis = Date.parse(withZone);
  return Number.isNaN(millis) ? null : instantText(new Date(millis));
}

/** The time choice a URL names: `from` and `to` compare, `at` (or the older `asOf`) looks back, else now. */
export function timeParse(params: URLSearchParams): TimeChoice {
  const from = instantParse(params.get("from")), to = instantParse(params.get("to"));
  if (from && to) return { kind: "compare", from, to };
  const at = instantParse(params.get("at") ?? params.get("asOf"));
  return at ? { kind: "at", at } : NOW;
}

export function timeParams(time: TimeChoice, params: URLSearchParams): void {
  if (time.kind === "at") params.set("at", time.at);
  if (time.kind === "compare") { params.set("from", time.from); params.set("to", time.to); }
}

/** An instant as a `datetime-local` input's value, in UTC to the minute (or second, when it has seconds). */
export function inputValue(instant: string): string {
  const text = instantText(new Date(instant));
  return text.replace(/(:00)?(\.\d+)?Z$/, "");
}

/** A `datetime-local` input's value (UTC) as an instant; null when empty or invalid. */
export function inputInstant(value: string): string | null {
  return value ? instantParse(value) : null;
}

/** What the status line says about the time shown. */
export function timeText(time: TimeChoice, stale: boolean): string {
  switch (time.kind) {
    case "now": return stale ? "now, with stale edges" : "now";
    case "at": return `as at ${formatTime(time.at)}${stale ? ", with edges stale then" : ""}`;
    case "compare": return `changes from ${formatTime(time.from)} to ${formatTime(time.to)}`;
  }
}
