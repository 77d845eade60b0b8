// The Trust page's model: how a stream's state and seq ranges read, and how streams group by producer.

import type { LedgerState, LedgerStream } from "../../api/types";

export const STATE_LABELS: Record<LedgerState | "unchained", string> = {
  contiguous: "contiguous",
  gap: "gap",
  fork: "fork",
  truncated: "truncated",
  unchained: "unchained",
};

/** `3` for a one-seq range, `3–5` for a longer one. */
export function seqRange(from: number, to: number): string {
  return from === to ? String(from) : `${from}–${to}`;
}

/** The instance part of a stream (`<keyId>/<instance>`): what tells a producer's streams apart. */
export function streamInstance(stream: string): string {
  const slash = stream.indexOf("/");
  return slash < 0 ? stream : stream.slice(slash + 1);
}

/** Streams by producer, producers in the order the API answered them. */
export function byProducer(streams: LedgerStream[]): Map<string, LedgerStream[]> {
  const groups = new Map<string, LedgerStream[]>();
  for (const stream of streams) {
    const group = groups.get(stream.producer) ?? [];
    group.push(stream);
    groups.set(stream.producer, group);
  }
  return groups;
}

/** A producer's worst state: fork, then gap, then truncated, else contiguous. */
export function worstState(streams: LedgerStream[]): LedgerState {
  const order: LedgerState[] = ["fork", "gap", "truncated", "contiguous"];
  return order.find((state) => streams.some((s) => s.state === state)) ?? "contiguous";
}
