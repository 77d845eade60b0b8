import { describe, expect, it } from "vitest";
import { foldIntoBands, segmentsFor } from "../src/graph/bands";
import { computeLayout } from "../src/graph/layoutCompute";
import { COLLAPSE_ABOVE, Grouping, clusteredModel, clusterNodes } from "../src/graph/clusters";
import { collapseApplication, emptyModel, expandApplication, mergeLineage } from "../src/graph/model";
import { datasetShortName, idShortName, jobShortName, middleEllipsis, namespaceChip } from "../src/graph/names";
import type { LineageNode, LineageNodeData, LineageResponse } from "../src/api/types";
import { CURRENT } from "./current";

describe("short names", () => {
  it("keeps the last two path segments of file and object-store datasets", () => {
    expect(datasetShortName("file", "/var/example-data/lake/warehouse/daily_revenue")).toBe("warehouse/daily_revenue");
    expect(datasetShortName("s3://lake-bucket", "raw/events/2026/orders/")).toBe("2026/orders");
    expect(datasetShortName("hdfs://nn:8020", "/data/bronze/orders/date=2026-11-01")).toBe("bronze/orders");
    expect(datasetShortName("abfss://c@acct.dfs.core.windows.net", "gold/revenue")).toBe("gold/revenue");
  });

  it("keeps schema.table of catalog and JDBC names", () => {
    expect(datasetShortName("postgres://db.internal:5432", "analytics.public.orders")).toBe("public.orders");
    expect(datasetShortName("bigquery", "my-project.sales.daily_revenue")).toBe("sales.daily_revenue");
    expect(datasetShortName("kafka://broker:9092", "orders")).toBe("orders");
  });

  it("labels an action job by its action suffix when its application is known", () => {
    expect(jobShortName("clean_orders.write_parquet.orders_clean", "job:spark:clean_orders")).toBe("write_parquet.orders_clean");
    expect(jobShortName("clean_orders.write_parquet.orders_clean")).toBe("clean_orders…arquet.orders_clean");
    expect(jobShortName("daily_revenue", null)).toBe("daily_revenue");
  });

  it("cuts a long name in its middle, keeping both ends", () => {
    const cut = middleEllipsis("a_very_long_table_name_that_goes_on_and_on_2026", 20);
    expect(cut).toHaveLength(20);
    expect(cut.startsWith("a_very")).toBe(true);
    expect(cut.endsWith("on_2026")).toBe(true);
  });

  it("shortens a bare node id the same way", () => {
    expect(idShortName("dataset:file:/var/lake/silver/orders_clean")).toBe("silver/orders_clean");
    expect(idShortName("dataset:postgres://db:5432:analytics.public.orders")).toBe("public.orders");
    expect(idShortName("job:spark:daily_revenue")).toBe("daily_revenue");
    expect(idShortName("datasetField:file:/var/lake/silver/orders_clean:amount")).toBe("silver/orders_clean.amount");
  });

  it("shows a namespace chip as scheme and authority", () => {
    expect(namespaceChip("s3://lake-bucket")).toBe("s3://lake-bucket");
    expect(namespaceChip("postgres://db.internal:5432")).toBe("postgres://db.internal:5432");
    expect(namespaceChip("file")).toBe("file");
  });
});

function chain(length: number) {
  const nodes = Array.from({ length }, (_, i) => ({ id: `n${i}`, width: 180, height: 38 }));
  const edges = nodes.slice(1).map((n, i) => ({ source: `n${i}`, target: n.id }));
  return { nodes, edges };
}

describe("bands", () => {
  it("folds a long chain into bands that fill a wide canvas, every node kept apart", () => {
    const { nodes, edges } = chain(12);
    const result = computeLayout({ id: 1, nodes, edges, canvas: { width: 1000, height: 760 } });
    expect(result.bands).toBeGreaterThan(1);
    const ys = new Set(nodes.map((n) => Math.round(result.positions[n.id].y)));
    expect(ys.size).toBeGreaterThan(1);
    const xs = nodes.map((n) => result.positions[n.id].x);
    const width = Math.max(...xs) - Math.min(...xs) + 180;
    expect(width).toBeLessThan(12 * 180);
    for (const a of nodes) for (const b of nodes) {
      if (a === b) continue;
      const p = result.positions[a.id], q = result.positions[b.id];
      expect(Math.abs(p.x - q.x) >= 180 || Math.abs(p.y - q.y) >= 38).toBe(true);
    }
  });

  it("routes an edge that wraps to the next band through the gutters, outside every node", () => {
    const { nodes, edges } = chain(12);
    const result = computeLayout({ id: 1, nodes, edges, canvas: { width: 1000, height: 760 } });
    const wrapping = edges.filter((e) => result.positions[e.source].y < result.positions[e.target].y - 50);
    expect(wrapping.length).toBe(result.bands - 1);
    for (const edge of wrapping) {
      const route = result.routes[`${edge.source}->${edge.target}`];
      expect(route.length).toBeGreaterThanOrEqual(4);
      for (let i = 0; i + 1 < route.length; i++) {
        const [a, b] = [route[i], route[i + 1]];
        for (const node of nodes) {
          const p = result.positions[node.id];
          // an axis-parallel segment never passes through a node's box
          const inX = Math.max(a.x, b.x) > p.x - 90 && Math.min(a.x, b.x) < p.x + 90;
          const inY = Math.max(a.y, b.y) > p.y - 19 && Math.min(a.y, b.y) < p.y + 19;
          expect(inX && inY).toBe(false);
        }
      }
    }
  });

  it("leaves a short graph in one band", () => {
    const { nodes, edges } = chain(3);
    const result = computeLayout({ id: 1, nodes, edges, canvas: { width: 1000, height: 760 } });
    expect(result.bands).toBe(1);
  });

  it("leaves a layout without a canvas unchanged", () => {
    const { nodes, edges } = chain(12);
    const positions = Object.fromEntries(nodes.map((n, i) => [n.id, { x: i * 250, y: 0 }]));
    const result = foldIntoBands({ nodes, edges, positions, routes: {}, canvas: { width: 0, height: 0 }, ranksep: 70 });
    expect(result.positions).toBe(positions);
  });

  it("turns bend points into segment weights and distances that place them again", () => {
    const source = { x: 0, y: 0 }, target = { x: 100, y: 0 };
    const result = segmentsFor(source, target, [{ x: 50, y: 30 }])!;
    expect(result.weights[0]).toBeCloseTo(0.5);
    expect(Math.abs(result.distances[0])).toBeCloseTo(30);
  });
});

function node(id: string, type: "DATASET" | "JOB", data: Partial<LineageNodeData>, inEdges: string[] = [], outEdges: string[] = []): LineageNode {
  return {
    id, type, data: { nodeId: id, namespace: id.split(":")[1], name: id.split(":").slice(2).join(":"), firstSeen: null, lastSeen: null, ...data },
    inEdges: inEdges.map((o) => ({ origin: o, destination: id, ...CURRENT })),
    outEdges: outEdges.map((d) => ({ origin: id, destination: d, ...CURRENT })),
  };
}

describe("applications", () => {
  const app = "job:spark:daily_revenue", action = "job:spark:daily_revenue.create_table.t";
  const silver = "dataset:file:/lake/silver/orders", gold = "dataset:file:/lake/gold/revenue";
  const rolledUp: LineageResponse = {
    nodeId: app, depth: 2, direction: "both", level: "application", truncated: false, clusters: [],
    graph: [node(silver, "DATASET", {}, [], [app]), node(app, "JOB", { actions: [action] }, [silver], [gold]), node(gold, "DATASET", {}, [app])],
  };
  const actions: LineageResponse = {
    nodeId: app, depth: 1, direction: "both", level: "action", truncated: false, clusters: [],
    graph: [node(silver, "DATASET", {}, [], [action]), node(action, "JOB", { application: app }, [silver], [gold]), node(gold, "DATASET", {}, [action])],
  };

  it("expands an application into its actions and folds them back", () => {
    const model = emptyModel();
    mergeLineage(model, rolledUp);
    const appNode = model.nodes.get(app)!;
    expandApplication(model, app, actions);
    expect([...model.nodes.keys()].sort()).toEqual([silver, action, gold].sort());
    expect(model.nodes.get(action)!.label).toBe("create_table.t");
    expect([...model.edges.keys()].sort()).toEqual([`${silver}->${action}`, `${action}->${gold}`].sort());
    expect(collapseApplication(model, appNode)).toEqual([action]);
    expect([...model.nodes.keys()].sort()).toEqual([silver, app, gold].sort());
    expect([...model.edges.keys()].sort()).toEqual([`${silver}->${app}`, `${app}->${gold}`].sort());
  });
});

describe("clusters", () => {
  function bigModel(count: number) {
    const model = emptyModel();
    const graph = [];
    for (let i = 0; i < count; i++) {
      const layer = ["raw", "bronze", "silver"][i % 3];
      graph.push(node(`dataset:file:/lake/${layer}/t${i}`, "DATASET", { lastRunState: i === 7 ? "FAILED" : "COMPLETED" }));
      graph.push(node(`job:spark:app${i % 4}.write.t${i}`, "JOB", { application: `job:spark:app${i % 4}` }));
    }
    graph.push(node("job:airflow:export", "JOB", {}));
    for (let i = 0; i + 1 < count; i++) {
      graph[2 * i].outEdges.push({ origin: graph[2 * i].id, destination: graph[2 * i + 1].id, ...CURRENT });
      graph[2 * i + 1].outEdges.push({ origin: graph[2 * i + 1].id, destination: graph[2 * i + 2].id, ...CURRENT });
    }
    mergeLineage(model, { nodeId: graph[0].id, depth: 20, direction: "both", level: "application", truncated: false, graph });
    return model;
  }

  it("groups datasets by directory and action jobs by application, keeping the roots and lone nodes", () => {
    const model = bigModel(300);
    const root = "dataset:file:/lake/raw/t0";
    const clustering = clusterNodes(model, new Set([root]));
    const shown = clusteredModel(model, clustering, new Set());
    expect(shown.nodes.has(root)).toBe(true);
    expect(shown.nodes.has("job:airflow:export")).toBe(true);
    const labels = [...shown.nodes.values()].filter((n) => n.type === "CLUSTER").map((n) => n.label).sort();
    expect(labels).toContain("…/lake/bronze (100 datasets)");
    expect(labels).toContain("app1 (75 actions)");
    expect(shown.nodes.size).toBeLessThan(12);
    const failing = [...shown.nodes.values()].find((n) => n.label.startsWith("…/lake/bronze"));
    expect(failing?.data.failed).toBe(1);
    // every edge is drawn between what is drawn, once
    for (const edge of shown.edges.values()) {
      expect(shown.nodes.has(edge.source) && shown.nodes.has(edge.target)).toBe(true);
    }
  });

  it("draws an opened cluster as its nodes", () => {
    const model = bigModel(300);
    const clustering = clusterNodes(model, new Set());
    const bronze = [...clustering.clusters.values()].find((n) => n.label.startsWith("…/lake/bronze"))!;
    const shown = clusteredModel(model, clustering, new Set([bronze.id]));
    expect(shown.nodes.has(bronze.id)).toBe(false);
    for (const member of bronze.data.members as string[]) expect(shown.nodes.has(member)).toBe(true);
    // an opened member's edge leads to the cluster its neighbour is still folded in
    expect(shown.edges.has("dataset:file:/lake/bronze/t1->cluster:application|job:spark:app1")).toBe(true);
  });

  it("groups only a model past the threshold, and keeps opened clusters open when it regroups", () => {
    const grouping = new Grouping();
    const small = bigModel(100);
    expect(grouping.shown(small, new Set())).toBe(small);
    const model = bigModel(300);
    expect(model.nodes.size).toBeGreaterThan(COLLAPSE_ABOVE);
    const folded = grouping.shown(model, new Set());
    const bronze = [...folded.nodes.keys()].find((id) => id.endsWith("/lake/bronze"))!;
    expect(grouping.openCluster(bronze)?.id).toBe(bronze);
    grouping.regroup();
    expect(grouping.shown(model, new Set()).nodes.has(bronze)).toBe(false);
    grouping.reset();
    expect(grouping.shown(model, new Set()).nodes.has(bronze)).toBe(true);
    expect(grouping.openCluster("cluster:nothing")).toBeUndefined();
  });
});
