// A streaming query's run at a glance: a live badge with running-since, last progress and throughput, or "stalled".

import type { Streaming } from "../../api/types";
import { h } from "../../dom";
import { formatTime } from "../../format";

/** `12.5 rows/s`, `1.2k rows/s`; a dash when the query has not measured it yet. */
export function formatRate(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined) return "—";
  if (perSecond >= 1_000_000) return `${(perSecond / 1_000_000).toFixed(1)}M rows/s`;
  if (perSecond >= 1000) return `${(perSecond / 1000).toFixed(1)}k rows/s`;
  return `${perSecond.toFixed(perSecond < 10 ? 1 : 0)} rows/s`;
}

/** Which badge a streaming run gets: `stalled` (running but silent too long), `live` (running), or `ended`. */
export function streamingKind(streaming: Streaming, state: string | null | undefined): "stalled" | "live" | "ended" {
  if (streaming.stalled) return "stalled";
  return state === "RUNNING" ? "live" : "ended";
}

/** The badge and one line of progress for a streaming query's run. */
export function streamingSummary(streaming: Streaming, state: string | null | undefined): HTMLElement {
  const kind = streamingKind(streaming, state);
  const label = kind === "stalled" ? "⚠ stalled" : kind === "live" ? "● live" : "stream";
  const title = kind === "stalled"
    ? `No progress reported for several intervals of ${streaming.intervalSeconds} s: the query may be hung or gone`
    : `A streaming query; progress reported at most every ${streaming.intervalSeconds} s`;
  const facts = [
    `since ${formatTime(streaming.runningSince)}`,
    `last progress ${formatTime(streaming.lastProgressAt)}`,
    `${formatRate(streaming.inputRowsPerSecond)} in`,
    `${formatRate(streaming.processedRowsPerSecond)} processed`,
    ...(streaming.batchId !== null ? [`batch ${streaming.batchId}`] : []),
  ];
  return h("span", { class: "streaming", "data-streaming": kind },
    h("span", { class: `badge stream-${kind}`, title }, label), " ",
    h("span", { class: "muted streaming-facts" }, facts.join(" · ")));
}
