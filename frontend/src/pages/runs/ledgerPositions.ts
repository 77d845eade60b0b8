// A run's events in the ledger: each one's chain position (stream, seq) and its place in the transparency log
// (leaf index, the first checkpoint that includes it, witnessed or not), so an auditor sees what can be proven.

import type { RunDetailEvent } from "../../api/types";
import { h, link } from "../../dom";
import { formatTime } from "../../format";
import { streamInstance } from "../trust/model";

/** How many events are listed (a streaming run has one per progress interval). */
const SHOWN = 50;

export function ledgerPositions(events: RunDetailEvent[]): HTMLElement | null {
  if (!events.length) return null;
  const shown = events.slice(-SHOWN);
  return h("section", { class: "ledger-positions-panel" },
    h("h3", {}, "Ledger"),
    h("p", { class: "muted" }, "Each event's place in its producer's signed chain, and in the transparency log.",
      events.length > SHOWN ? ` The latest ${SHOWN} of ${events.length} events.` : ""),
    h("table", { class: "grid ledger-positions" },
      h("thead", {}, h("tr", {},
        h("th", {}, "Event"), h("th", {}, "Stream"), h("th", {}, "Seq"), h("th", {}, "Leaf"),
        h("th", {}, "In checkpoint"), h("th", {}, "Witnessed"))),
      h("tbody", {}, shown.map(positionRow))),
    link("/trust", "Trust page"));
}

function positionRow(event: RunDetailEvent): HTMLElement {
  const inclusion = event.inclusion;
  return h("tr", { "data-event": String(event.id), "data-content-hash": event.contentHash },
    h("td", { title: event.contentHash }, `${event.eventType} ${formatTime(event.eventTime)}`),
    event.chain
      ? h("td", { class: "mono ledger-stream", title: event.chain.stream }, streamInstance(event.chain.stream))
      : h("td", { class: "muted ledger-stream" }, "unchained"),
    h("td", { class: "num ledger-seq" }, event.chain ? String(event.chain.seq) : "—"),
    h("td", { class: "num ledger-leaf" }, inclusion ? String(inclusion.leafIndex) : "—"),
    h("td", { class: "ledger-checkpoint" },
      !inclusion ? "not in the log" : inclusion.checkpoint === null ? h("span", { class: "muted" }, "pending the next checkpoint") : `tree size ${inclusion.checkpoint}`),
    h("td", { class: "ledger-witnessed" }, inclusion?.witnessed
      ? h("span", { class: "badge witness-yes" }, "witnessed")
      : h("span", { class: "badge witness-no" }, "not yet")));
}
