import { describe, expect, it } from "vitest";
import { eventWarnings } from "../src/pages/runs/JobRunsPage";

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
