import { describe, expect, it } from "vitest";
import type { LineageNode, LineageNodeData, LineageResponse } from "../src/api/types";
import { COLLAPSE_ABOVE } from "../src/graph/clusters";
import { emptyModel, mergeLineage } from "../src/graph/model";
import { parseState } from "../src/pages/lineage/state";
import {
  ExplorerStore, columnKey, isPlaceIntent, pathEndsAfter, pathState, pictureKey, pictureNew, placeAfter, placeHasSubject, tapIntent,
} from "../src/pages/lineage/store";
import { CURRENT } from "./current";

function node(id: string, data: Partial<LineageNodeData> = {}, ins: string[] = [], outs: string[] = []): LineageNode {
  return {
    id, type: id.startsWith("job:") ? "JOB" : "DATASET",
    data: { nodeId: id, namespace: "ns", name: id.split(":").pop() ?? id, firstSeen: null, lastSeen: null, ...data },
    inEdges: ins.map((origin) => ({ origin, destination: id, ...CURRENT })),
    outEdges: outs.map((destination) => ({ origin: id, destination, ...CURRENT })),
  };
}

function answer(graph: LineageNode[], level: "application" | "action" = "application"): LineageResponse {
  return { nodeId: graph[0]?.id ?? "", depth: 1, direction: "both", level, truncated: false, graph, clusters: [] };
}

const place = (query = "nodeId=dataset%3Ans%3Araw") => parseState(new URLSearchParams(query));
const RAW = "dataset:ns:raw", APP = "job:ns:app", ACTION = "job:ns:app.write", CLEAN = "dataset:ns:clean";

describe("place transitions", () => {
  it("changes depth, direction and level, and moves to another root or a field's column view", () => {
    const at = place();
    expect(placeAfter(at, { kind: "depth", depth: 5 })).toEqual({ ...at, depth: 5 });
    expect(placeAfter(at, { kind: "direction", direction: "upstream" })).toEqual({ ...at, direction: "upstream" });
    expect(placeAfter(at, { kind: "level", level: "action" })).toEqual({ ...at, level: "action" });
    expect(placeAfter(at, { kind: "open-root", id: APP })).toEqual({ ...at, roots: [APP], focus: APP });
    expect(placeAfter(at, { kind: "show-field", datasetId: CLEAN, field: "id" })).toEqual({ ...at, view: "column", focus: CLEAN, field: "id" });
    expect(at.depth).toBe(2); // the old place is left as it was
  });

  it("leads nowhere new when the view or level asked for is the one shown", () => {
    const at = place();
    expect(placeAfter(at, { kind: "view", view: "table" })).toBeNull();
    expect(placeAfter(at, { kind: "level", level: "application" })).toBeNull();
    expect(placeAfter(at, { kind: "view", view: "column" })?.view).toBe("column");
  });

  it("tells place intents from the ones that stay in the same picture", () => {
    expect(isPlaceIntent({ kind: "show-field", datasetId: RAW, field: "id" })).toBe(true);
    expect(isPlaceIntent({ kind: "select", id: RAW })).toBe(false);
    expect(isPlaceIntent({ kind: "show-all", all: true })).toBe(false);
  });

  it("has something to draw with a root, or in the column view with a dataset to focus", () => {
    expect(placeHasSubject(place())).toBe(true);
    expect(placeHasSubject(place(""))).toBe(false);
    expect(placeHasSubject(place("view=column&focus=dataset%3Ans%3Araw"))).toBe(true);
    expect(placeHasSubject(place("view=column&focus=job%3Ans%3Aj"))).toBe(false);
  });

  it("keys pictures by what was fetched: the table by roots and level, the column view by dataset and field", () => {
    const at = place();
    expect(pictureKey({ ...at, focus: CLEAN })).toBe(pictureKey(at));
    const columns = { ...at, view: "column" as const, focus: CLEAN, field: "id" };
    expect(pictureKey(columns)).toBe(columnKey(columns));
    expect(pictureKey(columns)).not.toBe(pictureKey({ ...columns, field: "name" }));
  });
});

describe("clicks", () => {
  const model = emptyModel();
  model.nodes.set("datasetField:ns:clean:id", { id: "datasetField:ns:clean:id", type: "DATASET_FIELD", label: "id", parent: CLEAN, data: { name: "id" } });
  model.nodes.set(`card:${CLEAN}`, { id: `card:${CLEAN}`, type: "CARD_HEAD", label: "clean", parent: CLEAN, data: {} });
  const onPath = () => "path" as const;

  it("opens a cluster, selects a node or marks a path end in the table view", () => {
    expect(tapIntent(place(), model, "cluster:0", false, onPath)).toEqual({ kind: "open-cluster", id: "cluster:0" });
    expect(tapIntent(place(), model, RAW, false, onPath)).toEqual({ kind: "select", id: RAW });
    expect(tapIntent(place(), model, RAW, true, onPath)).toEqual({ kind: "path-end", id: RAW });
  });

  it("traces a field in the column view, shows more of a card on a click on its head, and ignores the card's box", () => {
    const columns = place("view=column&focus=dataset%3Ans%3Aclean");
    expect(tapIntent(columns, model, "datasetField:ns:clean:id", false, onPath)).toEqual({ kind: "trace", id: "datasetField:ns:clean:id" });
    expect(tapIntent(columns, model, `card:${CLEAN}`, false, onPath)).toEqual({ kind: "card-mode", card: CLEAN, mode: "all" });
    expect(tapIntent(columns, model, `card:${CLEAN}`, false, () => "name")).toEqual({ kind: "card-mode", card: CLEAN, mode: "path" });
    expect(tapIntent(columns, model, CLEAN, false, onPath)).toBeNull();
  });

  it("draws a field's own column lineage on a double click in the column view", () => {
    const store = new ExplorerStore(place("view=column&focus=dataset%3Ans%3Aclean"));
    store.modelShow(model);
    expect(store.doubleTapIntent("datasetField:ns:clean:id")).toEqual({ kind: "show-field", datasetId: CLEAN, field: "id" });
    expect(store.doubleTapIntent(`card:${CLEAN}`)).toBeNull();
  });

  it("keeps two path ends: a click again drops one, a third replaces the oldest", () => {
    expect(pathEndsAfter([], RAW)).toEqual([RAW]);
    expect(pathEndsAfter([RAW], CLEAN)).toEqual([RAW, CLEAN]);
    expect(pathEndsAfter([RAW, CLEAN], APP)).toEqual([CLEAN, APP]);
    expect(pathEndsAfter([RAW, CLEAN], RAW)).toEqual([CLEAN]);
  });
});

describe("paths", () => {
  const model = emptyModel();
  mergeLineage(model, answer([node(RAW, {}, [], [APP]), node(APP, {}, [RAW], [CLEAN]), node(CLEAN, {}, [APP]), node("dataset:ns:lone")]));

  it("says what the ends come to: none, a start, the path with its edges, or no path", () => {
    expect(pathState(model, [])).toEqual({ kind: "none" });
    expect(pathState(model, [RAW])).toEqual({ kind: "start", from: RAW });
    expect(pathState(model, [CLEAN, RAW])).toEqual({ kind: "path", nodes: [CLEAN, APP, RAW], edges: [`${APP}->${CLEAN}`, `${RAW}->${APP}`] });
    expect(pathState(model, [RAW, "dataset:ns:lone"])).toEqual({ kind: "no-path", from: RAW, to: "dataset:ns:lone" });
  });
});

describe("ExplorerStore", () => {
  const rolledUp = () => answer([node(RAW, {}, [], [APP]), node(APP, { actions: [ACTION] }, [RAW], [CLEAN]), node(CLEAN, {}, [APP])]);
  const actions = answer([node(RAW, {}, [], [ACTION]), node(ACTION, { application: APP }, [RAW], [CLEAN]), node(CLEAN, {}, [ACTION])], "action");

  function storeWith(graph: LineageResponse): ExplorerStore {
    const store = new ExplorerStore(place());
    const model = emptyModel();
    mergeLineage(model, graph);
    store.modelShow(model);
    return store;
  }

  it("expands an application into its actions, focusing the first, and folds them back", () => {
    const store = storeWith(rolledUp());
    expect(store.actionsOf(APP)).toEqual([ACTION]);
    expect(store.canExpandApplication(APP)).toBe(true);
    expect(store.doubleTapIntent(APP)).toEqual({ kind: "expand-application", id: APP });
    expect(store.applicationExpand(APP, actions)).toEqual([ACTION]);
    expect(store.place.focus).toBe(ACTION);
    expect(store.model.nodes.has(APP)).toBe(false);
    expect(store.applicationOf(ACTION)).toBe(APP);
    expect(store.doubleTapIntent(ACTION)).toEqual({ kind: "collapse-application", id: APP });
    expect(store.applicationCollapse(APP)?.id).toBe(APP);
    expect(store.place.focus).toBe(APP);
    expect([...store.model.nodes.keys()].sort()).toEqual([APP, CLEAN, RAW].sort());
    expect(store.applicationCollapse(APP)).toBeNull();
  });

  it("forgets expanded applications when the job level changes", () => {
    const store = storeWith(rolledUp());
    store.applicationExpand(APP, actions);
    store.placeSet({ ...store.place, depth: 3 });
    expect(store.applicationOf(ACTION)).toBe(APP);
    store.placeSet({ ...store.place, level: "action" });
    expect(store.applicationOf(ACTION)).toBeNull();
  });

  it("merges neighbours and reports only the nodes that are new", () => {
    const store = storeWith(answer([node(RAW)]));
    expect(store.neighboursMerge(answer([node(RAW, {}, [], [APP]), node(APP, {}, [RAW])]))).toEqual([APP]);
    expect(store.neighboursMerge(answer([node(RAW)]))).toEqual([]);
  });

  it("keeps only the path ends still drawn", () => {
    const store = storeWith(answer([node(RAW)]));
    store.pathEndToggle(RAW);
    store.pathEndToggle(CLEAN);
    store.pathEndsKeepDrawn();
    expect(store.pathEnds).toEqual([RAW]);
    store.pathClear();
    expect(store.pathEnds).toEqual([]);
  });

  it("draws a very large answer as clusters, and every node once asked to", () => {
    const graph = Array.from({ length: COLLAPSE_ABOVE + 10 }, (_, i) => node(`dataset:ns:t${i}`));
    const store = storeWith(answer(graph));
    expect(store.clustered()).toBe(true);
    expect(store.displayed().nodes.size).toBeLessThan(store.model.nodes.size);
    store.allSet(true);
    expect(store.clustered()).toBe(false);
    expect(store.displayed()).toBe(store.model);
  });

  it("keeps a drawn picture for its place, across stores", () => {
    const at = place("nodeId=dataset%3Ans%3Akept");
    const store = new ExplorerStore(at);
    expect(store.picture()).toBeUndefined();
    const picture = pictureNew(pictureKey(at), emptyModel(), true);
    store.pictureKeep("table", picture);
    expect(new ExplorerStore(at).picture()).toBe(picture);
    expect(new ExplorerStore({ ...at, depth: 4 }).picture()).toBeUndefined();
  });
});
