import { describe, expect, it } from "vitest";
import type { ColumnLineageResponse, LineageNode, LineageNodeData, LineageResponse } from "../src/api/types";
import { cardsShown } from "../src/graph/columnCards";
import {
  cardFieldsMerge, columnModel, columnSides, emptyModel, fieldTrace, mergeLineage, pathEdgeIds, shortestPath,
} from "../src/graph/model";
import { transformationLabel, transformationOf, transformationText } from "../src/graph/transformations";
import { CURRENT } from "./current";

function node(id: string, edges: { in?: string[]; out?: string[] } = {}, data: Partial<LineageNodeData> = {}): LineageNode {
  const name = id.split(":").pop()!;
  return {
    id, type: id.startsWith("job:") ? "JOB" : "DATASET", data: { nodeId: id, namespace: "ns", name, firstSeen: null, lastSeen: null, ...data },
    inEdges: (edges.in ?? []).map((origin) => ({ origin, destination: id, ...CURRENT })),
    outEdges: (edges.out ?? []).map((destination) => ({ origin: id, destination, ...CURRENT })),
  };
}

function response(nodeId: string, graph: LineageNode[]): LineageResponse {
  return { nodeId, depth: 1, direction: "both", level: "application", truncated: false, graph, clusters: [] };
}

// raw -> etl -> clean -> report_job -> report
const A = "dataset:ns:raw", J1 = "job:ns:etl", B = "dataset:ns:clean", J2 = "job:ns:report_job", C = "dataset:ns:report";

describe("mergeLineage", () => {
  it("adds nodes and edges once, whichever side of a node lists the edge", () => {
    const model = emptyModel();
    const added = mergeLineage(model, response(A, [node(A, { out: [J1] }), node(J1, { in: [A], out: [B] }), node(B, { in: [J1] })]));
    expect(added).toEqual([A, J1, B]);
    expect([...model.edges.keys()].sort()).toEqual([`${A}->${J1}`, `${J1}->${B}`]);
  });

  it("merges an expansion: only new nodes are reported, shared ones take the newer data", () => {
    const model = emptyModel();
    mergeLineage(model, response(A, [node(A, { out: [J1] }), node(J1, { in: [A] }, { latestRunState: "RUNNING" })]));
    const added = mergeLineage(model, response(J1, [
      node(A, { out: [J1] }), node(J1, { in: [A], out: [B] }, { latestRunState: "FAILED" }), node(B, { in: [J1] }),
    ]));
    expect(added).toEqual([B]);
    expect(model.nodes.size).toBe(3);
    expect(model.edges.size).toBe(2);
    expect(model.nodes.get(J1)!.data.latestRunState).toBe("FAILED");
  });

  it("keeps names as plain labels, markup included", () => {
    const model = emptyModel();
    const evil = "dataset:ns:<img src=x onerror=alert(1)>";
    mergeLineage(model, response(evil, [node(evil)]));
    expect(model.nodes.get(evil)!.label).toBe("<img src=x onerror=alert(1)>");
  });

  it("ignores edges to nodes the response did not include", () => {
    const model = emptyModel();
    mergeLineage(model, response(A, [node(A, { out: [J1] })]));
    expect(model.edges.size).toBe(0);
  });
});

describe("shortestPath", () => {
  const model = emptyModel();
  mergeLineage(model, response(A, [
    node(A, { out: [J1] }), node(J1, { in: [A], out: [B] }), node(B, { in: [J1], out: [J2] }),
    node(J2, { in: [B], out: [C] }), node(C, { in: [J2] }), node("dataset:ns:lonely"),
  ]));

  it("follows data flow from the first to the second node", () => {
    expect(shortestPath(model, A, C)).toEqual([A, J1, B, J2, C]);
  });

  it("finds the path when the second node is upstream of the first, listed from the first", () => {
    expect(shortestPath(model, C, A)).toEqual([C, J2, B, J1, A]);
  });

  it("falls back to ignoring direction between siblings", () => {
    mergeLineage(model, response(J1, [node(J1, { out: ["dataset:ns:side"] }), node("dataset:ns:side", { in: [J1] })]));
    expect(shortestPath(model, B, "dataset:ns:side")).toEqual([B, J1, "dataset:ns:side"]);
  });

  it("answers null for unconnected or unknown nodes", () => {
    expect(shortestPath(model, A, "dataset:ns:lonely")).toBeNull();
    expect(shortestPath(model, A, "dataset:ns:nope")).toBeNull();
  });

  it("lists the edges along a path whichever way they point", () => {
    expect(pathEdgeIds(model, [C, J2, B])).toEqual([`${J2}->${C}`, `${B}->${J2}`]);
  });
});

describe("column lineage", () => {
  const field = (ds: string, name: string) => `datasetField:db:${ds}:${name}`;
  const edge = (o: string, d: string, transformation: string, subtype: string | null, indirect = false) =>
    ({ origin: o, destination: d, job: "job:spark:etl", transformation, subtype, indirect, ...CURRENT });
  const e1 = edge(field("raw", "amount"), field("clean", "amount_eur"), "DIRECT", "TRANSFORMATION");
  const e2 = edge(field("clean", "amount_eur"), field("report", "total"), "DIRECT", "AGGREGATION");
  const e3 = edge(field("raw", "status"), field("clean", "amount_eur"), "INDIRECT", "FILTER", true);
  const col = (ds: string, name: string, ins: typeof e1[], outs: typeof e1[]) => ({
    id: field(ds, name), type: "DATASET_FIELD" as const, data: { namespace: "db", dataset: ds, name, type: "double" }, inEdges: ins, outEdges: outs,
  });
  const res: ColumnLineageResponse = {
    nodeId: field("clean", "amount_eur"), depth: 2, direction: "both", truncated: false,
    graph: [col("raw", "amount", [], [e1]), col("raw", "status", [], [e3]), col("clean", "amount_eur", [e1, e3], [e2]), col("report", "total", [e2], [])],
  };

  it("puts each dataset's fields in one card under its head row, edges field to field with no label", () => {
    const model = columnModel(res);
    expect(model.nodes.get("dataset:db:raw")!.type).toBe("DATASET_GROUP");
    expect(model.nodes.get("card:dataset:db:raw")).toMatchObject({ type: "CARD_HEAD", parent: "dataset:db:raw", label: "raw" });
    expect(model.nodes.get(field("raw", "amount"))).toMatchObject({ parent: "dataset:db:raw", data: { onPath: true } });
    const filter = model.edges.get(`${field("raw", "status")}->${field("clean", "amount_eur")}`)!;
    expect(filter.label).toBeUndefined();
    expect(filter.data).toMatchObject({ transformation: "INDIRECT", subtype: "FILTER" });
  });

  it("shows a card's fields on the path, all of them once merged in, or its name alone with its edges at its head", () => {
    const model = columnModel(res);
    expect(cardFieldsMerge(model, "dataset:db:raw", [{ name: "amount", type: "double" }, { name: "country", type: "string" }])).toBe(1);
    expect(model.nodes.get("dataset:db:raw")!.data.allFields).toBe(true);
    const country = field("raw", "country");
    expect(cardsShown(model, () => "path").nodes.has(country)).toBe(false);
    expect(cardsShown(model, () => "all").nodes.get(country)!.data.onPath).toBe(false);
    const named = cardsShown(model, (card) => (card === "dataset:db:raw" ? "name" : "path"));
    expect(named.nodes.has(field("raw", "amount"))).toBe(false);
    expect(named.nodes.get("card:dataset:db:raw")!.label).toBe("raw (2 fields)");
    // Both raw fields' edges into amount_eur end at raw's head now: drawn once.
    expect([...named.edges.keys()]).toEqual([`card:dataset:db:raw->${field("clean", "amount_eur")}`, `${field("clean", "amount_eur")}->${field("report", "total")}`]);
  });

  it("traces a field's whole path, upstream and downstream, and nothing beside it", () => {
    const model = columnModel(res);
    const status = fieldTrace(model, field("raw", "status"));
    expect(status.nodes.sort()).toEqual([field("clean", "amount_eur"), field("raw", "status"), field("report", "total")].sort());
    expect(status.edges).toEqual([`${field("raw", "status")}->${field("clean", "amount_eur")}`, `${field("clean", "amount_eur")}->${field("report", "total")}`]);
    expect(fieldTrace(model, field("report", "total")).nodes).toHaveLength(4);
  });

  it("splits the edges into upstream and downstream of the chosen field", () => {
    const sides = columnSides(res);
    expect(sides.upstream).toEqual([e1, e3]);
    expect(sides.downstream).toEqual([e2]);
  });

  it("labels transformations with their subtype, and tells each kind and subtype apart by colour and in words", () => {
    expect(transformationLabel({ transformation: "DIRECT", subtype: "IDENTITY", indirect: false })).toBe("DIRECT/IDENTITY");
    expect(transformationLabel({ transformation: null, subtype: null, indirect: true })).toBe("INDIRECT");
    const join = transformationOf({ transformation: "INDIRECT", subtype: "JOIN", indirect: true });
    const aggregation = transformationOf({ transformation: "DIRECT", subtype: "AGGREGATION", indirect: false });
    expect(join.kind).toBe("INDIRECT");
    expect(join.color).not.toBe(aggregation.color);
    expect(transformationText({ transformation: "INDIRECT", subtype: "GROUP_BY", indirect: true })).toBe("indirect · group by: decides the groups");
    expect(transformationOf({ transformation: null, subtype: "MASKED", indirect: false })).toMatchObject({ kind: "DIRECT", subtype: "MASKED" });
  });
});
