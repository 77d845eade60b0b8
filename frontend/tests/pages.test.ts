import { describe, expect, it } from "vitest";
import { h } from "../src/dom";
import { computeLayout } from "../src/graph/layoutCompute";
import { impactHref } from "../src/pages/failures/FailuresPage";
import { columnDataset, parseState, stateParams, tableKey } from "../src/pages/lineage/state";
import { searchMatchText, searchMoreText, searchResultHref } from "../src/shell/searchBox";

describe("explorer state in the URL", () => {
  it("round-trips several roots, depth, direction, level, view, focus, field and the temporary datasets toggle", () => {
    const params = new URLSearchParams("nodeId=dataset%3Adb%3Aa&nodeId=dataset%3Adb%3Ab&depth=4&direction=downstream&level=action&view=column&focus=dataset%3Adb%3Ab&field=id&temporary=1");
    const state = parseState(params);
    expect(state).toEqual({ roots: ["dataset:db:a", "dataset:db:b"], depth: 4, direction: "downstream", level: "action", view: "column", all: false, focus: "dataset:db:b", field: "id", time: { kind: "now" }, stale: false, temporary: true });
    expect(parseState(stateParams(state))).toEqual(state);
  });

  it("falls back to safe defaults for bad values", () => {
    const state = parseState(new URLSearchParams("depth=999&direction=sideways&view=3d"));
    expect(state).toMatchObject({ depth: 20, direction: "both", level: "application", view: "table", roots: [] });
    expect(parseState(new URLSearchParams("depth=x")).depth).toBe(2);
  });

  it("keeps the table graph's key when only the view or focus changes", () => {
    const a = parseState(new URLSearchParams("nodeId=job%3As%3Aj&depth=3"));
    const b = { ...a, view: "column" as const, focus: "dataset:db:x", field: "id" };
    expect(tableKey(a)).toBe(tableKey(b));
    expect(columnDataset(b)).toBe("dataset:db:x");
    expect(columnDataset(a)).toBeNull();
  });
});

describe("links", () => {
  it("opens a field search result in the column view of its dataset", () => {
    const href = searchResultHref({ id: "datasetField:file:///d:raw/orders:id", type: "DATASET_FIELD", namespace: "file:///d", name: "id",
      dataset: "raw/orders", matched: { by: "name", text: "id" } });
    const params = new URL(href, "http://x").searchParams;
    expect(params.get("nodeId")).toBe("dataset:file:///d:raw/orders");
    expect(params.get("view")).toBe("column");
    expect(params.get("field")).toBe("id");
  });

  it("opens a run search result on the run's page: its job's run history, opened on the run", () => {
    const runId = "3f0e5c52-9b1d-4c8e-a7f1-2f5d0c9b8e11";
    const run = { id: `run:${runId}`, type: "RUN" as const, namespace: "dbt", name: "orders", runId, state: "COMPLETED",
      job: "job:dbt:orders", matched: { by: "runId" as const, text: runId } };
    const url = new URL(searchResultHref(run), "http://x");
    expect(url.pathname).toBe("/job");
    expect([url.searchParams.get("nodeId"), url.searchParams.get("run")]).toEqual(["job:dbt:orders", runId]);
    expect(searchMatchText(run)).toBe("run id");
  });

  it("says there are at least one more matches than shown, and nothing when all are shown", () => {
    expect(searchMoreText(20, true)).toBe("The best 20 of at least 21 matches: type more to narrow");
    expect(searchMoreText(3, false)).toBe("");
  });

  it("says why a search result matched unless its own name did", () => {
    const base = { id: "dataset:db:a", type: "DATASET" as const, namespace: "db", name: "a" };
    expect(searchMatchText({ ...base, matched: { by: "name", text: "a" } })).toBe("");
    expect(searchMatchText({ ...base, matched: { by: "tag", text: "pii:true" } })).toBe("tag pii:true");
    expect(searchMatchText({ ...base, matched: { by: "owner", text: "team:analytics" } })).toBe("owner team:analytics");
    expect(searchMatchText({ ...base, matched: { by: "alias", text: "s3://b/a" } })).toBe("also named s3://b/a");
  });

  it("opens a failure's impact downstream from every output, or from the job when it wrote nothing", () => {
    const failure = { job: "job:s:j", outputs: ["dataset:db:a", "dataset:db:b"], classification: "schema" as const, testedDatasets: [] };
    const withOutputs = new URL(impactHref(failure), "http://x").searchParams;
    expect(withOutputs.getAll("nodeId")).toEqual(["dataset:db:a", "dataset:db:b"]);
    expect(withOutputs.get("direction")).toBe("downstream");
    expect(new URL(impactHref({ ...failure, outputs: [] }), "http://x").searchParams.getAll("nodeId")).toEqual(["job:s:j"]);
  });

  it("opens a data-quality failure's impact downstream from the tested dataset, not the test job's outputs", () => {
    const failure = { job: "job:dbt:stg.test", outputs: [], classification: "data_quality" as const, testedDatasets: ["dataset:pg:stg"] };
    expect(new URL(impactHref(failure), "http://x").searchParams.getAll("nodeId")).toEqual(["dataset:pg:stg"]);
  });
});

describe("h", () => {
  it("renders data as text, never as markup", () => {
    const el = h("div", {}, "<img src=x onerror=alert(1)>", h("span", {}, "<script>alert(1)</script>"));
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector("script")).toBeNull();
    expect(el.textContent).toBe("<img src=x onerror=alert(1)><script>alert(1)</script>");
  });
});

describe("computeLayout", () => {
  it("places every node, upstream left of downstream", () => {
    const result = computeLayout({
      id: 1, rankdir: "LR",
      nodes: ["a", "j", "b"].map((id) => ({ id, width: 100, height: 30 })),
      edges: [{ source: "a", target: "j" }, { source: "j", target: "b" }],
    });
    expect(Object.keys(result.positions).sort()).toEqual(["a", "b", "j"]);
    expect(result.positions.a.x).toBeLessThan(result.positions.j.x);
    expect(result.positions.j.x).toBeLessThan(result.positions.b.x);
  });

  it("lays out a 1,000-node graph", () => {
    const nodes = Array.from({ length: 1000 }, (_, i) => ({ id: `n${i}`, width: 120, height: 36 }));
    const edges = nodes.slice(1).map((n, i) => ({ source: `n${Math.floor(i / 3)}`, target: n.id }));
    const result = computeLayout({ id: 2, nodes, edges });
    expect(Object.keys(result.positions)).toHaveLength(1000);
  });

  it("positions fields inside compound dataset nodes (the cards are drawn around them)", () => {
    const result = computeLayout({
      id: 3, compound: true,
      nodes: [
        { id: "d1", width: 0, height: 0 }, { id: "f1", width: 60, height: 20, parent: "d1" },
        { id: "d2", width: 0, height: 0 }, { id: "f2", width: 60, height: 20, parent: "d2" },
      ],
      edges: [{ source: "f1", target: "f2" }],
    });
    expect(Object.keys(result.positions).sort()).toEqual(["f1", "f2"]);
  });
});

describe("layeredLayout", () => {
  it("puts each node after its inputs, never overlapping within a column, even with a cycle", async () => {
    const { layeredLayout } = await import("../src/graph/layered");
    const nodes = ["a", "b", "c", "d", "e"].map((id) => ({ id, width: 100, height: 30 }));
    const positions = layeredLayout({
      nodes, nodesep: 10,
      edges: [{ source: "a", target: "c" }, { source: "b", target: "c" }, { source: "c", target: "d" }, { source: "c", target: "e" }, { source: "e", target: "c" }],
    });
    expect(positions.a.x).toBeLessThan(positions.c.x);
    expect(positions.c.x).toBeLessThan(positions.d.x);
    const column = (x: number) => Object.values(positions).filter((p) => p.x === x).map((p) => p.y).sort((p, q) => p - q);
    for (const x of new Set(Object.values(positions).map((p) => p.x))) {
      const ys = column(x);
      for (let i = 1; i < ys.length; i++) expect(ys[i] - ys[i - 1]).toBeGreaterThanOrEqual(40);
    }
  });
});
