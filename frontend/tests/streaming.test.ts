import { describe, expect, it } from "vitest";
import type { Streaming } from "../src/api/types";
import { formatRate, streamingKind, streamingSummary } from "../src/pages/runs/streaming";

const progress: Streaming = {
  runningSince: "2026-01-05T08:00:00.000Z",
  lastProgressAt: "2026-01-05T09:30:00.000Z",
  inputRowsPerSecond: 1250,
  processedRowsPerSecond: 7.25,
  batchId: 42,
  intervalSeconds: 30,
  stalled: false,
};

describe("streamingSummary", () => {
  it("shows a running query as live, with running-since, last progress and throughput", () => {
    const summary = streamingSummary(progress, "RUNNING");
    expect(summary.dataset.streaming).toBe("live");
    expect(summary.querySelector(".badge")!.textContent).toBe("● live");
    const facts = summary.querySelector(".streaming-facts")!.textContent;
    expect(facts).toBe(
      "since 2026-01-05 08:00Z · last progress 2026-01-05 09:30Z · 1.3k rows/s in · 7.3 rows/s processed · batch 42");
  });

  it("flags a running query that went silent as stalled", () => {
    const summary = streamingSummary({ ...progress, stalled: true }, "RUNNING");
    expect(summary.dataset.streaming).toBe("stalled");
    expect(summary.querySelector(".badge")!.className).toContain("stream-stalled");
    expect(summary.querySelector(".badge")!.getAttribute("title")).toContain("30 s");
  });

  it("says what a query has not measured yet with a dash, and no batch before the first", () => {
    const started = { ...progress, lastProgressAt: null, inputRowsPerSecond: null, processedRowsPerSecond: null, batchId: null };
    expect(streamingSummary(started, "RUNNING").querySelector(".streaming-facts")!.textContent)
      .toBe("since 2026-01-05 08:00Z · last progress — · — in · — processed");
  });
});

describe("streamingKind", () => {
  it("is live only while running, and an ended query is never stalled by its state alone", () => {
    expect(streamingKind(progress, "RUNNING")).toBe("live");
    expect(streamingKind(progress, "COMPLETED")).toBe("ended");
    expect(streamingKind({ ...progress, stalled: true }, "RUNNING")).toBe("stalled");
  });
});

describe("formatRate", () => {
  it("scales rows per second for reading", () => {
    expect(formatRate(0)).toBe("0.0 rows/s");
    expect(formatRate(55.5)).toBe("56 rows/s");
    expect(formatRate(2_500_000)).toBe("2.5M rows/s");
    expect(formatRate(null)).toBe("—");
  });
});
