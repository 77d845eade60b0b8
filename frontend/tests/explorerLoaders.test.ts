import { afterEach, describe, expect, it, vi } from "vitest";
import type { DatasetDetail, LineageNode, LineageResponse } from "../src/api/types";
import { columnLineageLoad, nearMissLoad, neighboursLoad, tableLineageLoad } from "../src/pages/lineage/loaders";
import { parseState } from "../src/pages/lineage/state";
import { CURRENT } from "./current";

/** A fetch that answers each URL by its path and query, and records what was asked. */
function fakeFetch(answers: Record<string, unknown>) {
  return vi.fn(async (url: string) => {
    const body = answers[url];
    return body === undefined
      ? new Response(JSON.stringify({ error: "not_found", message: url }), { status: 404, headers: { "Content-Type": "application/json" } })
      : new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
  });
}

function node(id: string, outs: string[] = []): LineageNode {
  return {
    id, type: id.startsWith("job:") ? "JOB" : "DATASET",
    data: { nodeId: id, namespace: "ns", name: id.split(":").pop() ?? id, firstSeen: null, lastSeen: null },
    inEdges: [], outEdges: outs.map((destination) => ({ origin: id, destination, ...CURRENT })),
  };
}

function lineage(graph: LineageNode[], truncated = false): LineageResponse {
  return { nodeId: graph[0]?.id ?? "", depth: 2, direction: "both", level: "application", truncated, graph, clusters: [] };
}

const signal = new AbortController().signal;

afterEach(() => vi.unstubAllGlobals());

describe("explorer loaders", () => {
  it("loads the lineage of every root into one model and says when an answer was truncated", async () => {
    const fetchMock = fakeFetch({
      "/api/v1/lineage?nodeId=dataset%3Ans%3Aa&depth=3&direction=upstream&level=action": lineage([node("dataset:ns:a", ["job:ns:j"]), node("job:ns:j")]),
      "/api/v1/lineage?nodeId=dataset%3Ans%3Ab&depth=3&direction=upstream&level=action": lineage([node("dataset:ns:b"), node("job:ns:j")], true),
    });
    vi.stubGlobal("fetch", fetchMock);
    const place = parseState(new URLSearchParams("nodeId=dataset%3Ans%3Aa&nodeId=dataset%3Ans%3Ab&depth=3&direction=upstream&level=action"));
    const { model, truncated } = await tableLineageLoad({ place, signal });
    expect([...model.nodes.keys()].sort()).toEqual(["dataset:ns:a", "dataset:ns:b", "job:ns:j"]);
    expect([...model.edges.keys()]).toEqual(["dataset:ns:a->job:ns:j"]);
    expect(truncated).toBe(true);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("asks for the neighbours one hop around a node at the job level asked", async () => {
    const body = lineage([node("job:ns:app")]);
    vi.stubGlobal("fetch", fakeFetch({ "/api/v1/lineage?nodeId=job%3Ans%3Aapp&depth=1&direction=both&level=action": body }));
    expect(await neighboursLoad({ id: "job:ns:app", level: "action", signal })).toEqual(body);
  });

  it("asks for the column lineage of the place's field by its field id", async () => {
    const detail = { id: "dataset:db:clean", namespace: "db", name: "clean" } as DatasetDetail;
    const body = { nodeId: "datasetField:db:clean:id", depth: 4, direction: "downstream", truncated: false, graph: [] };
    vi.stubGlobal("fetch", fakeFetch({ "/api/v1/column-lineage?nodeId=datasetField%3Adb%3Aclean%3Aid&depth=4&direction=downstream": body }));
    const place = parseState(new URLSearchParams("view=column&depth=4&direction=downstream&field=id"));
    expect(await columnLineageLoad({ place, detail, field: "id", signal })).toEqual({ fieldId: "datasetField:db:clean:id", answer: body });
  });

  it("asks why two datasets are not connected", async () => {
    const body = { a: "dataset:a:x", b: "dataset:b:x", connected: false, pathLength: null, direction: null, nearMisses: [] };
    vi.stubGlobal("fetch", fakeFetch({ "/api/v1/datasets/near-miss?a=dataset%3Aa%3Ax&b=dataset%3Ab%3Ax": body }));
    expect(await nearMissLoad({ a: "dataset:a:x", b: "dataset:b:x", signal })).toEqual(body);
  });

  it("passes an API error on to the page", async () => {
    vi.stubGlobal("fetch", fakeFetch({}));
    const place = parseState(new URLSearchParams("nodeId=dataset%3Ans%3Agone"));
    await expect(tableLineageLoad({ place, signal })).rejects.toThrow("/api/v1/lineage");
  });
});
