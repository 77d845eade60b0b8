import { describe, expect, it } from "vitest";
import type { DatasetQuality, QualityCheck, QualityReport } from "../src/api/types";
import { qualityView, sparkline } from "../src/pages/dataset/quality";
import { drawnLabel } from "../src/graph/view";

function check(overrides: Partial<QualityCheck> = {}): QualityCheck {
  return {
    facet: "dataQualityAssertions", name: null, assertion: "not_null", column: "id", severity: "error",
    outcome: "passed", actual: null, expected: null, description: null, ...overrides,
  };
}

function report(at: string, checks: QualityCheck[], rowCount: number | null, nulls: number | null): QualityReport {
  return {
    runId: `run-${at}`, job: "job:ge:orders_suite", runState: "COMPLETED", at, datasetVersion: null,
    status: checks.some((c) => c.outcome === "failed") ? "failing" : "passing", checks,
    metrics: rowCount === null ? null : {
      rowCount, bytes: null, fileCount: null, lastUpdated: null,
      columns: { id: { nullCount: nulls, distinctCount: rowCount, count: null, sum: null, min: null, max: null } },
    },
  };
}

describe("the dataset page's quality section", () => {
  const quality: DatasetQuality = {
    id: "dataset:pg:orders", status: "failing", count: 2,
    results: [  // newest first, as the API answers
      report("2026-01-06T08:00:00Z", [check(), check({ assertion: "unique", outcome: "failed", actual: "3", expected: "0" })], 960, 12),
      report("2026-01-05T08:00:00Z", [check()], 900, 0),
    ],
  };

  it("lays each check out run by run, oldest first, a check a run did not report left blank", () => {
    const section = document.createElement("div");
    section.append(...qualityView(quality));
    expect(section.querySelector("h2 [data-quality]")?.textContent).toBe("quality failing");
    const heads = [...section.querySelectorAll("#quality-checks thead th")].map((th) => th.textContent);
    expect(heads).toEqual(["Check", "Column", "2026-01-05 08:00Z", "2026-01-06 08:00Z"]);
    const unique = section.querySelector("tr[data-check='unique']")!;
    expect([...unique.querySelectorAll("td.check")].map((td) => td.getAttribute("data-outcome"))).toEqual([null, "failed"]);
    expect(unique.querySelector("td[data-outcome='failed']")?.textContent).toBe("✗ 3");
  });

  it("shows row count and per-column null and distinct counts as trends with first and latest values", () => {
    const section = document.createElement("div");
    section.append(...qualityView(quality));
    const nulls = section.querySelector("tr[data-metric='id · nulls']")!;
    expect([...nulls.querySelectorAll("td.num")].map((td) => td.textContent)).toEqual(["0", "12"]);
    expect(nulls.querySelectorAll("svg.sparkline circle")).toHaveLength(2);
  });

  it("says so when nothing was ever reported", () => {
    const section = document.createElement("div");
    section.append(...qualityView({ id: "dataset:pg:x", status: "unknown", count: 0, results: [] }));
    expect(section.textContent).toContain("No data-quality checks or metrics were reported");
  });

  it("draws a gap where a report sent no value, and one flat line for one value", () => {
    expect(sparkline([1, null, 3]).querySelectorAll("circle")).toHaveLength(2);
    expect(sparkline([5]).querySelector("circle")?.getAttribute("cx")).toBe("80.0");
  });
});

describe("the explorer's quality badge", () => {
  it("marks a checked dataset's label by its status, and nothing else", () => {
    const node = (quality?: string) => ({ id: "dataset:pg:orders", type: "DATASET" as const, label: "orders", data: { quality } });
    expect(drawnLabel(node("failing"), false)).toBe("✗ orders");
    expect(drawnLabel(node("warning"), false)).toBe("! orders");
    expect(drawnLabel(node("passing"), false)).toBe("✓ orders");
    expect(drawnLabel(node("unknown"), false)).toBe("orders");
    expect(drawnLabel({ ...node("failing"), type: "JOB" as const, id: "job:x:y" }, false)).toBe("orders");
  });
});
