import { describe, expect, it } from "vitest";
import type { ColumnLineageResponse, DatasetDetail, NearMissResponse } from "../src/api/types";
import { emptyModel, type GraphModel } from "../src/graph/model";
import type { GraphViewEvents, Placement } from "../src/graph/view";
import { ExplorerGraph, type Surface } from "../src/pages/lineage/graphView";
import { columnTables } from "../src/pages/lineage/panels/columnTables";
import { SidePanel } from "../src/pages/lineage/panels/sidePanel";
import { StatusBar, nearMissText } from "../src/pages/lineage/panels/statusBar";
import { Toolbar } from "../src/pages/lineage/panels/toolbar";
import type { PanelActions } from "../src/pages/lineage/panels/types";
import { parseState } from "../src/pages/lineage/state";
import { ExplorerStore, pictureNew, type Intent } from "../src/pages/lineage/store";
import { CURRENT } from "./current";

const RAW = "dataset:ns:raw";

/**
 * Cytoscape cannot draw without a canvas, which jsdom has not: this surface records what the explorer
 * asks to draw and lets the test click nodes as Cytoscape would report them.
 */
class RecordingSurface implements Surface {
  shown: { model: GraphModel; options: unknown }[] = [];
  classes: Record<string, string[]> = {};
  selected: string | null = null;
  viewportSet: unknown = null;
  nodes = 0;
  constructor(readonly events: GraphViewEvents) {}
  async show(model: GraphModel, options: object = {}) { this.shown.push({ model, options }); this.nodes = model.nodes.size; }
  select(id: string | null) { this.selected = id; }
  setClass(name: string, ids: string[]) { this.classes[name] = ids; }
  center() {}
  currentPlacement(): Placement { return { positions: { [RAW]: { x: 1, y: 2 } }, routes: {} }; }
  viewport() { return { zoom: 2, pan: { x: 3, y: 4 } }; }
  setViewport(viewport: { zoom: number; pan: { x: number; y: number } }) { this.viewportSet = viewport; }
  zoomBy() {}
  fit() {}
  isEmpty() { return this.nodes === 0; }
  clear() { this.nodes = 0; }
  destroy() {}
}

function graphWithSurface(query = "nodeId=dataset%3Ans%3Araw") {
  const store = new ExplorerStore(parseState(new URLSearchParams(query)));
  const intents: Intent[] = [];
  let surface: RecordingSurface | null = null;
  const graph = new ExplorerGraph(store, (intent) => intents.push(intent), (_, events) => (surface = new RecordingSurface(events)));
  return { store, intents, graph, surface: () => surface! };
}

function oneNodeModel(): GraphModel {
  const model = emptyModel();
  model.nodes.set(RAW, { id: RAW, type: "DATASET", label: "raw", data: {} });
  return model;
}

describe("explorer graph", () => {
  it("draws a picture fitted the first time and as it was left on a return", async () => {
    const { graph, surface } = graphWithSurface();
    const picture = pictureNew("k", oneNodeModel(), false);
    expect(await graph.pictureShow(picture, picture.model, () => false)).toBe(true);
    expect(surface().shown[0]!.options).toEqual({ reuse: undefined, fit: true });
    expect(picture.placement?.positions[RAW]).toEqual({ x: 1, y: 2 });
    expect(surface().viewportSet).toBeNull();
    await graph.pictureShow(picture, picture.model, () => false);
    expect(surface().shown[1]!.options).toEqual({ reuse: picture.placement, fit: false });
    expect(surface().viewportSet).toEqual({ zoom: 2, pan: { x: 3, y: 4 } });
  });

  it("keeps nothing of a picture a newer load replaced while it was laid out", async () => {
    const { graph } = graphWithSurface();
    const picture = pictureNew("k", oneNodeModel(), false);
    expect(await graph.pictureShow(picture, picture.model, () => true)).toBe(false);
    expect(picture.placement).toBeNull();
  });

  it("marks roots, selection, path and field, and remembers the viewport only once something is drawn", async () => {
    const { graph, surface } = graphWithSurface();
    const picture = pictureNew("k", oneNodeModel(), false);
    graph.pictureRemember(picture);
    expect(picture.placement).toBeNull();
    await graph.pictureShow(picture, picture.model, () => false);
    graph.mark([RAW], RAW);
    graph.markPath([RAW, "job:ns:j"], { kind: "path", nodes: [RAW, "job:ns:j"], edges: [`${RAW}->job:ns:j`] });
    expect(surface().classes).toMatchObject({ root: [RAW], "path-end": [RAW, "job:ns:j"], "on-path": [RAW, "job:ns:j", `${RAW}->job:ns:j`] });
    expect(surface().selected).toBe(RAW);
    graph.markFields("datasetField:ns:raw:id", { path: ["datasetField:ns:raw:id"], rest: ["datasetField:ns:raw:x"] });
    expect(surface().classes).toMatchObject({ focus: ["datasetField:ns:raw:id"], traced: ["datasetField:ns:raw:id"], faded: ["datasetField:ns:raw:x"] });
    expect(surface().selected).toBeNull();
    picture.viewport = { zoom: 1, pan: { x: 0, y: 0 } };
    graph.pictureRemember(picture);
    expect(picture.viewport).toEqual({ zoom: 2, pan: { x: 3, y: 4 } });
  });

  it("reports clicks on the graph as intents", async () => {
    const { graph, surface, intents, store } = graphWithSurface();
    store.modelShow(oneNodeModel());
    await graph.pictureShow(pictureNew("k", store.model, false), store.model, () => false);
    surface().events.onTap!(RAW, { shift: false });
    surface().events.onTap!(RAW, { shift: true });
    surface().events.onBackgroundTap!();
    surface().events.onDoubleTap!(RAW); // not an application: nothing to ask
    expect(intents).toEqual([{ kind: "select", id: RAW }, { kind: "path-end", id: RAW }, { kind: "deselect" }]);
  });

  it("shows a message in place of the graph", () => {
    const { graph } = graphWithSurface();
    graph.message("Search for a dataset");
    expect(graph.element.querySelector(".graph-empty")?.textContent).toBe("Search for a dataset");
    expect(graph.drawn).toBe(false);
  });
});

describe("explorer toolbar", () => {
  it("asks for depth, direction, level and view, and shows the place's level and view as pressed", () => {
    const intents: Intent[] = [];
    const zooms: number[] = [];
    const place = parseState(new URLSearchParams("nodeId=dataset%3Ans%3Araw&depth=3"));
    const toolbar = new Toolbar(place, (intent) => intents.push(intent), { zoomBy: (f) => zooms.push(f), fit: () => zooms.push(0) });
    const el = toolbar.element;
    expect(el.querySelector<HTMLSelectElement>("#depth")!.value).toBe("3");
    const direction = el.querySelector<HTMLSelectElement>("#direction")!;
    direction.value = "upstream";
    direction.dispatchEvent(new Event("change"));
    el.querySelector<HTMLButtonElement>("#level-action")!.click();
    el.querySelector<HTMLButtonElement>("#view-column")!.click();
    el.querySelector<HTMLButtonElement>("#fit")!.click();
    expect(intents).toEqual([{ kind: "direction", direction: "upstream" }, { kind: "level", level: "action" }, { kind: "view", view: "column" }]);
    expect(zooms).toEqual([0]);
    expect(el.querySelector("#level-application")!.getAttribute("aria-pressed")).toBe("true");
    toolbar.render({ ...place, level: "action", view: "column" });
    expect(el.querySelector("#level-action")!.getAttribute("aria-pressed")).toBe("true");
    expect(el.querySelector("#view-column")!.getAttribute("aria-pressed")).toBe("true");
    expect(el.querySelector("#view-table")!.getAttribute("aria-pressed")).toBe("false");
  });

  it("names the roots by their labels, or says none is chosen", () => {
    const toolbar = new Toolbar(parseState(new URLSearchParams()), () => {}, { zoomBy: () => {}, fit: () => {} });
    toolbar.rootsShow([], emptyModel());
    expect(toolbar.element.querySelector(".roots")!.textContent).toBe("No node chosen");
    toolbar.rootsShow([RAW, "job:ns:etl"], oneNodeModel());
    expect([...toolbar.element.querySelectorAll(".root-name")].map((e) => e.textContent)).toEqual(["raw", "etl"]);
  });
});

describe("explorer status bar", () => {
  it("counts what is drawn and offers to open or regroup clusters", () => {
    const intents: Intent[] = [];
    const bar = new StatusBar((intent) => intents.push(intent));
    bar.counts({ nodes: 900, edges: 1200, folded: 12, regroupable: false }, "opened x");
    expect(bar.status.textContent).toBe("900 nodes, 1200 edges · grouped into 12 clusters: click one to open it show every node · opened x");
    bar.status.querySelector<HTMLButtonElement>("#show-all")!.click();
    bar.counts({ nodes: 900, edges: 1200, folded: 0, regroupable: true });
    bar.status.querySelector<HTMLButtonElement>("#group-again")!.click();
    expect(intents).toEqual([{ kind: "show-all", all: true }, { kind: "show-all", all: false }]);
  });

  it("says what the path ends come to, with a way to clear them", () => {
    const intents: Intent[] = [];
    const bar = new StatusBar((intent) => intents.push(intent));
    bar.path({ kind: "start", from: RAW });
    expect(bar.pathInfo.textContent).toBe("Path from ns:raw: shift-click a second node.");
    bar.path({ kind: "path", nodes: [RAW, "job:ns:j"], edges: [] });
    expect(bar.pathInfo.querySelector("#path-result")!.textContent).toBe("Path (1 hops): ns:raw → ns:j");
    bar.pathInfo.querySelector("button")!.click();
    expect(intents).toEqual([{ kind: "clear-path" }]);
    bar.path({ kind: "none" });
    expect(bar.pathInfo.textContent).toBe("Shift-click two nodes to highlight the path between them.");
  });

  it("explains two unconnected datasets by the nearest near-miss", () => {
    const answer: NearMissResponse = {
      a: RAW, b: "dataset:other:raw", connected: false, pathLength: null, direction: null,
      nearMisses: [{ kind: "same_name_other_namespace", message: "same name in namespace other", via: [] }],
    };
    expect(nearMissText(answer)).toBe("Why not: same name in namespace other");
    expect(nearMissText({ ...answer, nearMisses: [] })).toBe("No near-miss found: nothing links them.");
    expect(nearMissText({ ...answer, connected: true, pathLength: 4, direction: "a to b" })).toBe("They are connected beyond this view (4 hops, a to b): raise the depth.");
    const bar = new StatusBar(() => {});
    bar.path({ kind: "no-path", from: RAW, to: "dataset:other:raw" });
    bar.nearMiss(answer);
    expect(bar.pathInfo.querySelector("#near-miss")!.getAttribute("title")).toBe("same name in namespace other");
  });
});

describe("explorer side panel", () => {
  const actions = {} as PanelActions;

  it("asks for a field's column lineage from the field picker", () => {
    const intents: Intent[] = [];
    const side = new SidePanel(actions, (intent) => intents.push(intent));
    const detail = {
      id: "dataset:db:clean", namespace: "db", name: "clean",
      fields: [{ id: "f1", name: "id", type: "int", current: true }, { id: "f2", name: "amount", type: null, current: true }],
    } as DatasetDetail;
    side.fieldPicker(detail, "id");
    expect(side.element.querySelector(".field-button.current")!.getAttribute("data-field")).toBe("id");
    expect(side.element.textContent).toContain("Impact of id →");
    side.element.querySelector<HTMLButtonElement>('[data-field="amount"]')!.click();
    expect(intents).toEqual([{ kind: "show-field", datasetId: "dataset:db:clean", field: "amount" }]);
  });

  it("says how to see a node's details when none is selected", () => {
    const side = new SidePanel(actions, () => {});
    side.node(null);
    expect(side.element.textContent).toBe("Click a node to see its details.");
    side.node("run:abc");
    expect(side.element.textContent).toBe("abc");
  });
});

describe("column tables", () => {
  it("lists the fields upstream and downstream of the drawn one", () => {
    const edge = (origin: string, destination: string) => ({ origin, destination, job: null, transformation: "DIRECT", subtype: "IDENTITY", indirect: false, ...CURRENT });
    const field = (name: string, ins: ReturnType<typeof edge>[], outs: ReturnType<typeof edge>[]) => ({
      id: `datasetField:db:t:${name}`, type: "DATASET_FIELD" as const, data: { namespace: "db", dataset: "t", name, type: null }, inEdges: ins, outEdges: outs,
    });
    const up = edge("datasetField:db:t:a", "datasetField:db:t:b"), down = edge("datasetField:db:t:b", "datasetField:db:t:c");
    const answer: ColumnLineageResponse = {
      nodeId: "datasetField:db:t:b", depth: 2, direction: "both", truncated: false,
      graph: [field("a", [], [up]), field("b", [up], [down]), field("c", [down], [])],
    };
    const tables = columnTables(answer, "datasetField:db:t:b");
    expect(tables.querySelector("#upstream-fields h3")!.textContent).toBe("Upstream fields (1)");
    expect([...tables.querySelectorAll("#downstream-fields td")].map((td) => td.textContent)).toEqual(["t.b", "t.c", "DIRECT/IDENTITY", "—"]);
  });
});
