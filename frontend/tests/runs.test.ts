import { describe, expect, it } from "vitest";
import { eventWarnings } from "../src/pages/runs/JobRunsPage";
import { lineageChangeView } from "../src/pages/runs/lineageChange";

describe("eventWarnings", () => {
  it("lists each facet an event was applied without, with what is wrong", () => {
    const list = eventWarnings([
      { id: 1, eventType: "START", eventTime: "2026-01-05T08:00:00.000000Z" },
      { id: 2, eventType: "COMPLETE", eventTime: "2026-01-05T08:05:00.000000Z", warnings: [
        { path: "run.facets.processing_engine", message: "'version' is a required property" },
        { path: "outputs[0].facets.catalog", message: "'name' is a required property" },
      ] },
    ]);
    const items = [...list!.querySelectorAll("li")].map((li) => li.textContent);
    expect(items).toHaveLength(2);
    expect(items[0]).toContain("COMPLETE");
    expect(items[0]).toContain("run.facets.processing_engine — 'version' is a required property");
    expect(list!.querySelector("li code")!.textContent).toBe("run.facets.processing_engine");
  });

  it("shows nothing for a run whose events kept every facet", () => {
    expect(eventWarnings([{ id: 1, eventType: "START", eventTime: "2026-01-05T08:00:00.000000Z" }])).toBeNull();
    expect(eventWarnings([{ id: 1, eventType: "START", eventTime: "2026-01-05T08:00:00.000000Z", warnings: [] }])).toBeNull();
  });
});

describe("a run's lineage change", () => {
  const run = { runId: "r2", jobId: "job:spark:etl", state: "COMPLETED" as const, startedAt: null, endedAt: null, reads: [], writes: [] };
  const none = { addedReads: [], removedReads: [], addedWrites: [], removedWrites: [] };

  it("says in words and signs which datasets it started and stopped reading or writing", () => {
    const view = lineageChangeView({ ...run, previousRunId: "r1", changes: { ...none, addedReads: ["dataset:db:c"], removedReads: ["dataset:db:b"] } });
    const lines = [...view.querySelectorAll("li")].map((li) => [li.dataset.change, li.textContent]);
    expect(lines).toEqual([["added-reads", "+ reads c"], ["removed-reads", "− reads b"]]);
    expect(view.querySelector("a")?.getAttribute("href")).toBe("/dataset?nodeId=dataset%3Adb%3Ac");
  });

  it("says when nothing changed, and when there is no earlier run to compare with", () => {
    expect(lineageChangeView({ ...run, previousRunId: "r1", changes: none }).textContent).toBe("same reads and writes");
    expect(lineageChangeView({ ...run, previousRunId: null, changes: null }).textContent).toBe("first completed run");
  });
});
