import { afterEach, describe, expect, it, vi } from "vitest";
import type { Failure, FailureGroup, RunSummary } from "../src/api/types";
import { FailuresPage, blastRadius, causeHeadline } from "../src/pages/failures/FailuresPage";
import {
  classificationLabel, failureFilters, failureRootCauseHref, failuresHref, rootCauseWalkHref, sinceLastSuccessText, splitCause,
  streakText,
} from "../src/pages/failures/model";
import { runCause } from "../src/pages/runs/JobRunsPage";

const CAUSE = "java.lang.RuntimeException: negative amount in order 250";

function failure(overrides: Partial<Failure> = {}): Failure {
  return {
    runId: "r-7", job: "job:spark:validate_orders", state: "FAILED", startedAt: "2026-01-07T09:00:00.000000Z",
    endedAt: "2026-01-07T09:05:00.000000Z", errorMessage: "Py4JJavaError: An error occurred while calling o607.parquet.",
    stackTrace: "Traceback (most recent call last):\n  …\nCaused by: " + CAUSE, cause: CAUSE,
    classification: "data_validation", causeRunId: "r-7", parentRunId: null, failedActions: [],
    outputs: ["dataset:db:quality.orders_checked"], testedDatasets: [], ...overrides,
  };
}

function group(overrides: Partial<FailureGroup> = {}): FailureGroup {
  return {
    job: "job:spark:validate_orders", namespace: "spark", name: "validate_orders", failureCount: 3,
    consecutiveFailures: 3, consecutiveFailuresCapped: false, failingSince: "2026-01-05T08:00:00.000000Z",
    latestRunState: "FAILED", lastFailure: failure(), sinceLastSuccess: null,
    blastRadius: {
      datasets: [
        { id: "dataset:db:quality.orders_checked", namespace: "db", name: "quality.orders_checked", distance: 0, owners: [] },
        { id: "dataset:db:quality.report", namespace: "db", name: "quality.report", distance: 2, owners: ["user:ana"] },
        {
          id: "dataset:file:/tmp/pytest-of-root/pytest-130/example0/lake/gold/daily_revenue", namespace: "file",
          name: "/tmp/pytest-of-root/pytest-130/example0/lake/gold/daily_revenue", distance: 3, owners: [],
        },
      ],
      owners: ["user:ana"], total: 3, truncated: false, depth: 6,
    },
    ...overrides,
  };
}

function serve(routes: Record<string, unknown>) {
  const fetchMock = vi.fn(async (url: string) => {
    const path = new URL(url, "http://x").pathname.replace("/api/v1", "");
    return new Response(JSON.stringify(routes[path]), { status: 200, headers: { "Content-Type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

afterEach(() => vi.unstubAllGlobals());

describe("failure model", () => {
  it("splits a cause into its exception class and message", () => {
    expect(splitCause(CAUSE)).toEqual({ exception: "java.lang.RuntimeException", message: "negative amount in order 250" });
    expect(splitCause("org.apache.hadoop.ipc.RemoteException(org.apache.hadoop.security.AccessControlException): Permission denied"))
      .toEqual({ exception: "org.apache.hadoop.ipc.RemoteException(org.apache.hadoop.security.AccessControlException)", message: "Permission denied" });
    expect(splitCause("ExecutorLostFailure (executor 23 exited) Reason: Container killed"))
      .toEqual({ exception: "ExecutorLostFailure", message: "(executor 23 exited) Reason: Container killed" });
    expect(splitCause("boom: it broke")).toEqual({ exception: "", message: "boom: it broke" });
  });

  it("keeps its filters in the URL and drops a classification it does not know", () => {
    const href = failuresHref({ namespace: "spark", classification: "out_of_memory", since: "2026-01-05T00:00:00Z" });
    expect(href).toBe("/failures?namespace=spark&classification=out_of_memory&since=2026-01-05T00%3A00%3A00Z");
    expect(failureFilters(new URL(href, "http://x").searchParams)).toEqual({
      namespace: "spark", job: undefined, classification: "out_of_memory", since: "2026-01-05T00:00:00Z", until: undefined });
    expect(failureFilters(new URLSearchParams("classification=flaky")).classification).toBeUndefined();
    expect(failuresHref({})).toBe("/failures");
  });

  it("walks upstream of the failed job for its root cause", () => {
    const params = new URL(rootCauseWalkHref("job:spark:validate_orders"), "http://x");
    expect(params.pathname).toBe("/lineage");
    expect(params.searchParams.getAll("nodeId")).toEqual(["job:spark:validate_orders"]);
    expect(params.searchParams.get("direction")).toBe("upstream");
    expect(Number(params.searchParams.get("depth"))).toBeGreaterThan(0);
  });

  it("walks upstream of the tested dataset for a data-quality failure's root cause", () => {
    const tested = failure({ classification: "data_quality", testedDatasets: ["dataset:pg:stg_orders"], outputs: [] });
    const params = new URL(failureRootCauseHref(tested), "http://x").searchParams;
    expect(params.getAll("nodeId")).toEqual(["dataset:pg:stg_orders"]);
    expect(params.get("direction")).toBe("upstream");
    expect(new URL(failureRootCauseHref(failure()), "http://x").searchParams.getAll("nodeId")).toEqual(["job:spark:validate_orders"]);
  });

  it("names classifications and streaks for people", () => {
    expect(classificationLabel("missing_input")).toBe("Missing input");
    expect(classificationLabel("data_quality")).toBe("Data quality");
    expect(classificationLabel(null)).toBe("Not classified");
    expect([streakText(0, false), streakText(3, false), streakText(500, true)]).toEqual(["recovered", "3 in a row", "≥ 500 in a row"]);
  });
});

describe("failure rendering", () => {
  it("headlines the cause as text, the exception class first, the whole line in the title", () => {
    const el = causeHeadline("ValueError: <img src=x onerror=alert(1)>", "none");
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector(".cause-class")?.textContent).toBe("ValueError");
    expect(el.querySelector(".cause-message")?.textContent).toBe("<img src=x onerror=alert(1)>");
    expect(el.title).toBe("ValueError: <img src=x onerror=alert(1)>");
    expect(causeHeadline(null, "Aborted (no error reported)").textContent).toBe("Aborted (no error reported)");
  });

  it("shows the blast radius as dataset chips by short name (full name on hover) and owner chips linking to the impact report", () => {
    const el = blastRadius(group().blastRadius, failure());
    const chips = [...el.querySelectorAll<HTMLElement>(".chip-dataset")];
    expect(chips.map((c) => c.textContent)).toEqual(["quality.orders_checked", "quality.report", "gold/daily_revenue"]);
    expect(chips[2].title).toContain("file:/tmp/pytest-of-root/pytest-130/example0/lake/gold/daily_revenue · 3 hops");
    expect([...el.querySelectorAll(".chip-owner")].map((c) => c.textContent)).toEqual(["user:ana"]);
    const impact = new URL(el.querySelector<HTMLAnchorElement>(".blast-impact")!.href, "http://x");
    expect(impact.pathname).toBe("/impact");
    expect(impact.searchParams.getAll("nodeId")).toEqual(["dataset:db:quality.orders_checked"]);
    expect(blastRadius({ datasets: [], owners: [], total: 0, truncated: false, depth: 6 }, null).textContent).toContain("nothing");
  });

  it("renders failing jobs and every failure, with the filters from the URL", async () => {
    const fetchMock = serve({
      "/failures/jobs": { count: 1, results: [group()] },
      "/failures": { count: 2, results: [
        failure({ cause: null, classification: "data_validation", causeRunId: "r-8" }),
        failure({ runId: "r-9", state: "ABORTED", cause: null, classification: "cancelled", causeRunId: "r-9", errorMessage: null, stackTrace: null }),
      ] },
    });
    const root = document.createElement("div");
    FailuresPage(root, new URL("http://x/failures?classification=data_validation&namespace=spark"));
    await settle();
    const urls = fetchMock.mock.calls.map((call) => String(call[0]));
    expect(urls.some((u) => u.startsWith("/api/v1/failures/jobs?") && u.includes("classification=data_validation"))).toBe(true);
    expect(root.querySelector<HTMLSelectElement>("select[name=classification]")!.value).toBe("data_validation");

    const row = root.querySelector("#failure-groups tr[data-job]")!;
    expect(row.textContent).toContain("3 in a row");
    expect(row.textContent).toContain("2026-01-05 08:00Z");
    expect(row.querySelector(".failure-class")!.textContent).toBe("Data validation");
    expect(row.querySelector(".failure-cause")!.getAttribute("title")).toBe(CAUSE);
    expect([...row.querySelectorAll("a")].find((a) => a.textContent === "Root cause walk")!.getAttribute("href"))
      .toContain("direction=upstream");
    expect(root.querySelectorAll(".failure-group-table th").length).toBe(7);

    const cards = root.querySelectorAll("article.failure");
    expect(cards.length).toBe(2);
    expect(cards[0].textContent).toContain("Cause reported by action run r-8");
    const details = cards[0].querySelector("details")!;
    expect(details.open).toBe(false);
    expect(details.querySelector(".stack-trace")!.textContent).toContain("Caused by:");
    expect(cards[1].querySelector(".failure-cause")!.textContent).toBe("Aborted (no error reported)");
    expect(cards[1].querySelector("details")).toBeNull();
  });

  it("names what a failed run should have written by its short name, the full name on hover", async () => {
    const path = "dataset:file:/tmp/pytest-of-root/pytest-26/example0/lake/quality/orders_checked";
    serve({ "/failures/jobs": { count: 0, results: [] }, "/failures": { count: 1, results: [failure({ outputs: [path] })] } });
    const root = document.createElement("div");
    FailuresPage(root, new URL("http://x/failures"));
    await settle();
    const written = root.querySelector<HTMLAnchorElement>("article.failure .failure-outputs a")!;
    expect(written.textContent).toBe("quality/orders_checked");
    expect(written.querySelector("span")!.title).toBe(path.slice("dataset:".length));
    expect(written.getAttribute("href")).toBe(`/dataset?nodeId=${encodeURIComponent(path)}`);
  });
});

describe("run history", () => {
  it("shows a failed run's classification and cause, the full error in the title", () => {
    const run: RunSummary = { runId: "r", state: "FAILED", startedAt: null, endedAt: null, durationMs: null,
      errorMessage: "Py4JJavaError: …", cause: CAUSE, classification: "data_validation", verification: null, command: null };
    const cell = runCause(run) as HTMLElement;
    expect(cell.querySelector(".failure-class")!.textContent).toBe("Data validation");
    expect(cell.querySelector(".ellipsis")!.textContent).toBe(CAUSE);
    expect(cell.querySelector(".ellipsis")!.getAttribute("title")).toBe("Py4JJavaError: …");
    expect(runCause({ ...run, state: "COMPLETED", errorMessage: null, cause: null, classification: null })).toBe("");
  });
});

describe("since the last success", () => {
  it("names new and dropped inputs by their short names, and nothing when nothing changed", () => {
    const changes = {
      runId: "r-1", addedReads: ["dataset:file:/lake:reference/eur_rates.csv"],
      removedReads: ["dataset:file:/lake:reference/blocked_customers.csv"], addedWrites: [], removedWrites: [],
    };
    const text = sinceLastSuccessText(changes)!;
    expect(text).toMatch(/^New input since the last success: .*eur_rates\.csv · no longer read: .*blocked_customers\.csv$/);
    expect(sinceLastSuccessText({ ...changes, addedReads: [], removedReads: [] })).toBeNull();
    expect(sinceLastSuccessText(null)).toBeNull();
  });
});
