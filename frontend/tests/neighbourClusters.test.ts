import { describe, expect, it } from "vitest";
import type { LineageCluster, LineageNeighbours } from "../src/api/types";
import { emptyModel } from "../src/graph/model";
import { neighbourClusterOf, neighbourClustersMerge, neighbourPageMerge } from "../src/graph/neighbourClusters";

const hub = "dataset:db:hub";
const cluster: LineageCluster = {
  id: `neighbours:downstream:spark:${hub}`, nodeId: hub, drawnOn: hub, direction: "downstream", type: "JOB", namespace: "spark", count: 3, failing: 1,
};

function withHub() {
  const model = emptyModel();
  model.nodes.set(hub, { id: hub, type: "DATASET", label: "hub", data: {} });
  return model;
}

function page(names: string[], next: string | null): LineageNeighbours {
  return {
    nodeId: hub, direction: "downstream", namespace: "spark", next,
    members: names.map((name) => ({
      id: `job:spark:${name}`, type: "JOB",
      data: { nodeId: `job:spark:${name}`, namespace: "spark", name, firstSeen: null, lastSeen: null },
    })),
  };
}

describe("neighbour clusters", () => {
  it("draws a cluster as one node joined to its hub, labelled with its count, namespace and failing members", () => {
    const model = withHub();
    neighbourClustersMerge(model, [cluster]);
    expect(model.nodes.get(cluster.id)?.label).toBe("3 jobs · spark · 1 failing");
    expect(model.edges.has(`${hub}->${cluster.id}`)).toBe(true);
  });

  it("leaves out a cluster whose hub is not drawn", () => {
    const model = emptyModel();
    neighbourClustersMerge(model, [cluster]);
    expect(model.nodes.size).toBe(0);
  });

  it("brings members in a page at a time, counting the rest, and leaves after the last page", () => {
    const model = withHub();
    neighbourClustersMerge(model, [cluster]);
    expect(neighbourPageMerge(model, cluster.id, page(["a", "b"], "cursor"))).toEqual(["job:spark:a", "job:spark:b"]);
    expect(model.nodes.get(cluster.id)?.label).toBe("1 more job · spark");
    expect(neighbourClusterOf(model, cluster.id)?.next).toBe("cursor");
    expect(model.edges.has(`${hub}->job:spark:a`)).toBe(true);
    expect(neighbourPageMerge(model, cluster.id, page(["c"], null))).toEqual(["job:spark:c"]);
    expect(model.nodes.has(cluster.id)).toBe(false);
    expect([...model.edges.keys()].filter((id) => id.includes("neighbours:"))).toEqual([]);
  });

  it("hangs the cluster of an action job hub on the application it is drawn as, and pages by the action", () => {
    const model = withHub();
    const action = "job:spark:app.step", app = "job:spark:app";
    model.nodes.set(app, { id: app, type: "JOB", label: "app", data: {} });
    const onApp: LineageCluster = { ...cluster, id: `neighbours:downstream:db:${action}`, nodeId: action, drawnOn: app, type: "DATASET" };
    neighbourClustersMerge(model, [onApp]);
    expect(model.edges.has(`${app}->${onApp.id}`)).toBe(true);
    expect(neighbourClusterOf(model, onApp.id)?.hub).toBe(action);
  });

  it("joins upstream members towards the hub", () => {
    const model = withHub();
    const upstream: LineageCluster = { ...cluster, id: `neighbours:upstream:spark:${hub}`, direction: "upstream" };
    neighbourClustersMerge(model, [upstream]);
    expect(model.edges.has(`${upstream.id}->${hub}`)).toBe(true);
    neighbourPageMerge(model, upstream.id, { ...page(["a"], null), direction: "upstream" });
    expect(model.edges.has(`job:spark:a->${hub}`)).toBe(true);
  });
});
