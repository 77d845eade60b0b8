// Trust: an alarm when a witness refused the log, the log's checkpoints with their witnesses, every producer's
// signed streams and whether each is complete — contiguous, or where it has a gap, a fork or a truncated tail
// (docs/ledger.md) — and the producers whose events came unchained.

import { api } from "../../api/client";
import type { LedgerStream, LedgerUnchained } from "../../api/types";
import { checkpointHistory } from "./checkpoints";
import { h, replace } from "../../dom";
import { formatTime } from "../../format";
import { navigate } from "../../router";
import { errorMessage, loading } from "../../shell/widgets";
import { STATE_LABELS, byProducer, seqRange, streamInstance, worstState } from "./model";

const LIMIT = 500;

export function TrustPage(root: HTMLElement, url: URL): void {
  const producer = url.searchParams.get("producer") ?? "";
  const input = h("input", { type: "text", name: "producer", placeholder: "any", value: producer });
  const form = h("form", { class: "filters" }, h("label", {}, "Producer ", input), h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = input.value.trim();
    navigate(value ? `/trust?producer=${encodeURIComponent(value)}` : "/trust");
  });
  const body = h("div", { id: "trust-streams" }, loading());
  replace(root, h("div", { class: "page trust" },
    h("h1", {}, "Trust"),
    checkpointHistory(),
    h("h2", {}, "Producers' streams"),
    h("p", { class: "muted" },
      "Each producer instance signs a chain: every event names its place and the one before. ",
      "A missing event shows as a gap, two versions of one event as a fork, a withheld tail (beyond the last heartbeat) as truncated."),
    form, body));
  api.ledgerStreams({ producer: producer || undefined, limit: LIMIT }).then(
    (answer) => replace(body,
      answer.results.length ? producerSections(answer.results) : h("p", { class: "muted" }, "No chained streams."),
      answer.count > answer.results.length ? h("p", { class: "muted" }, `${answer.results.length} of ${answer.count} streams`) : null,
      answer.unchained.length ? unchainedTable(answer.unchained) : null),
    (error) => replace(body, errorMessage(error)));
}

function stateBadge(state: keyof typeof STATE_LABELS): HTMLElement {
  return h("span", { class: `badge ledger-state-${state}`, "data-state": state }, STATE_LABELS[state]);
}

function producerSections(streams: LedgerStream[]): HTMLElement[] {
  return [...byProducer(streams)].map(([producer, group]) =>
    h("section", { class: "ledger-producer", "data-producer": producer },
      h("h2", {}, producer, " ", stateBadge(worstState(group)), " ",
        h("span", { class: "muted" }, `${group.length} stream${group.length === 1 ? "" : "s"}`)),
      h("div", { class: "table-scroll" },
        h("table", { class: "grid ledger-streams" },
          h("thead", {}, h("tr", {},
            h("th", {}, "Stream"), h("th", {}, "State"), h("th", {}, "Seq"), h("th", {}, "Gaps"),
            h("th", {}, "Forks"), h("th", {}, "Truncated"), h("th", {}, "Last heartbeat"), h("th", {}, "Last seen"))),
          h("tbody", {}, group.map(streamRow))))));
}

function streamRow(stream: LedgerStream): HTMLElement {
  return h("tr", { "data-stream": stream.stream, "data-state": stream.state },
    h("td", { class: "mono", title: stream.stream }, streamInstance(stream.stream),
      stream.follows ? h("div", { class: "muted", title: stream.follows }, `follows ${stream.follows.slice(0, 12)}…`) : null),
    h("td", {}, stateBadge(stream.state)),
    h("td", { class: "nowrap", title: `every seq from 1 to ${stream.contiguousTo} arrived` },
      stream.contiguousTo === stream.high ? `1–${stream.high}` : `1–${stream.contiguousTo} … ${stream.high}`),
    h("td", { class: "ledger-gaps" },
      stream.gaps.length
        ? stream.gaps.map((gap) => h("span", {
          class: "chip ledger-gap",
          title: `noticed ${formatTime(gap.noticedAt)}${gap.openSince ? `, open since ${formatTime(gap.openSince)}` : ""}`,
        }, seqRange(gap.from, gap.to)))
        : "—",
      stream.gapCount > stream.gaps.length ? h("span", { class: "muted" }, ` +${stream.gapCount - stream.gaps.length} more`) : null),
    h("td", { class: "ledger-forks" },
      stream.forks.length
        ? stream.forks.map((fork) => h("span", { class: "chip ledger-fork", title: fork.events.join("\n") }, String(fork.seq)))
        : "—"),
    h("td", { class: "ledger-truncated" },
      stream.truncated ? h("span", { class: "chip", title: `announced ${formatTime(stream.truncated.announcedAt)}` },
        seqRange(stream.truncated.from, stream.truncated.to)) : "—"),
    h("td", { class: "nowrap" }, stream.heartbeat ? `seq ${stream.heartbeat.seq} · ${formatTime(stream.heartbeat.at)}` : "—"),
    h("td", { class: "nowrap" }, formatTime(stream.lastSeen)));
}

function unchainedTable(rows: LedgerUnchained[]): HTMLElement {
  return h("section", { class: "ledger-unchained" },
    h("h2", {}, "Unchained producers"),
    h("p", { class: "muted" }, "Events with no verified chain position (older agents, unsigned producers): accepted, but their completeness cannot be shown."),
    h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", {}, "Producer"), h("th", {}, "State"), h("th", {}, "Events"), h("th", {}, "Last event"))),
      h("tbody", {}, rows.map((row) => h("tr", { "data-producer": row.producer },
        h("td", { class: "mono" }, row.producer), h("td", {}, stateBadge(row.state)),
        h("td", { class: "num" }, String(row.events)), h("td", { class: "nowrap" }, formatTime(row.lastEventTime)))))));
}
