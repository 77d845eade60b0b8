// The lineage explorer: dataset / job graph with depth, direction, expansion, paths and a side panel, and the
// column view of one field. Intents from the toolbar, graph and panels change the store, then what is drawn follows it.

import { h, replace } from "../../dom";
import { idLabel } from "../../format";
import { COLLAPSE_ABOVE } from "../../graph/clusters";
import { columnModel, emptyModel } from "../../graph/model";
import { datasetShortName } from "../../graph/names";
import { setQuery, type Cleanup } from "../../router";
import { ExplorerGraph } from "./graphView";
import { columnDatasetLoad, columnLineageLoad, nearMissLoad, neighboursLoad, tableLineageLoad } from "./loaders";
import { columnTables } from "./panels/columnTables";
import { SidePanel } from "./panels/sidePanel";
import { StatusBar } from "./panels/statusBar";
import { Toolbar } from "./panels/toolbar";
import type { PanelActions } from "./panels/types";
import { columnDataset, parseState, stateParams } from "./state";
import {
  ExplorerStore, isPlaceIntent, pathState, pictureKey, pictureNew, placeAfter, placeHasSubject, type Intent, type Picture,
} from "./store";

const TRUNCATED = "truncated: the server's node budget was reached; lower the depth or open a node as the centre";

function isAbort(error: unknown): boolean {
  return (error as Error).name === "AbortError";
}

export function LineagePage(root: HTMLElement, url: URL): Cleanup {
  const store = new ExplorerStore(parseState(url.searchParams));
  const abort = new AbortController();
  const signal = abort.signal;
  const emit = (intent: Intent) => void dispatch(intent);
  const actions: PanelActions = {
    expand: (id) => emit({ kind: "expand", id }),
    openAsRoot: (id) => emit({ kind: "open-root", id }),
    showField: (datasetId, field) => emit({ kind: "show-field", datasetId, field }),
    actionsOf: (id) => store.actionsOf(id),
    applicationOf: (id) => store.applicationOf(id),
    expandApplication: (id) => emit({ kind: "expand-application", id }),
    collapseApplication: (id) => emit({ kind: "collapse-application", id }),
  };
  const graph = new ExplorerGraph(store, emit);
  const status = new StatusBar(emit);
  const side = new SidePanel(actions, emit);
  const toolbar = new Toolbar(store.place, emit, graph);
  const below = h("div", { class: "below-graph" });
  toolbar.rootsShow(store.place.roots, store.model);
  replace(root, h("div", { class: "explorer" }, toolbar.element, h("div", { class: "explorer-main" },
    h("div", { class: "graph-wrap" }, graph.element, h("div", { class: "graph-foot" }, status.status, status.pathInfo)), side.element), below));

  async function dispatch(intent: Intent): Promise<void> {
    if (isPlaceIntent(intent)) {
      const next = placeAfter(store.place, intent);
      if (!next) return;
      remember();
      store.placeSet(next);
      toolbar.render(store.place);
      setQuery(stateParams(store.place));
      return load();
    }
    switch (intent.kind) {
      case "select": return select(intent.id);
      case "deselect": graph.select(null); return;
      case "path-end": store.pathEndToggle(intent.id); highlightPath(); return;
      case "clear-path": store.pathClear(); highlightPath(); return;
      case "expand": return expand(intent.id);
      case "expand-application": return showActions(intent.id);
      case "collapse-application": return foldActions(intent.id);
      case "open-cluster": return openCluster(intent.id);
      case "show-all": return showEverything(intent.all);
    }
  }

  /** Keep where the current picture stands, to return to it as it was left. */
  const remember = () => graph.pictureRemember(store.picture());

  /** The place changed within the same picture: the URL follows without a new history entry. */
  const save = () => {
    setQuery(stateParams(store.place), { replace: true });
    remember();
  };

  const setStatus = (extra = "") => {
    const { model, place } = store;
    status.counts({
      nodes: model.nodes.size,
      edges: model.edges.size,
      folded: store.clustered() ? store.grouping.folded() : 0,
      regroupable: place.all && model.nodes.size > COLLAPSE_ABOVE,
    }, extra);
  };

  const highlightPath = () => {
    if (!graph.drawn) return;
    const path = pathState(store.model, store.pathEnds);
    graph.markPath(store.pathEnds, path);
    status.path(path);
    if (path.kind === "no-path" && path.from.startsWith("dataset:") && path.to.startsWith("dataset:")) void explainNoPath(path.from, path.to);
  };

  /** Why two datasets are not connected: the server's nearest near-miss (another namespace, an alias, a similar name one job away). */
  const explainNoPath = async (a: string, b: string) => {
    try {
      const answer = await nearMissLoad({ a, b, signal });
      if (store.pathEnds[0] !== a || store.pathEnds[1] !== b) return; // the user picked other nodes meanwhile
      status.nearMiss(answer);
    } catch (error) {
      if (!isAbort(error)) status.nearMissError(error);
    }
  };

  /** Draw the graph again after it changed shape, keeping selection, roots and path. */
  const redraw = async (centre: string, keepViewport = false) => {
    if (!graph.drawn) return;
    await graph.redraw(store.displayed(), store.picture(), keepViewport);
    const { focus, roots } = store.place;
    graph.mark(roots, focus && store.model.nodes.has(focus) ? focus : null);
    highlightPath();
    if (centre) graph.center(centre);
  };

  const select = async (id: string) => {
    store.focusSet(id);
    save();
    graph.select(id);
    side.node(id);
    await expand(id);
  };

  /** Fetch depth 1 around `id` and merge it in; lay out again only if new nodes came. */
  const expand = async (id: string) => {
    if (store.place.view !== "table") return;
    try {
      const added = store.neighboursMerge(await neighboursLoad({ id, level: store.place.level, signal }));
      if (added.length) await redraw(id, true);
      setStatus(added.length ? `${added.length} nodes added around ${idLabel(id)}.` : "");
    } catch (error) {
      if (!isAbort(error)) status.error(error);
    }
  };

  /** Replace an application node by its action jobs (an action-level answer one hop around it). */
  const showActions = async (appId: string) => {
    const app = store.model.nodes.get(appId);
    if (!app || !store.canExpandApplication(appId)) return;
    try {
      const members = store.applicationExpand(appId, await neighboursLoad({ id: appId, level: "action", signal }));
      save();
      await redraw(store.place.focus ?? appId);
      side.node(store.place.focus);
      setStatus(`${app.label} shown as its ${members.length} action${members.length === 1 ? "" : "s"}.`);
    } catch (error) {
      if (!isAbort(error)) status.error(error);
    }
  };

  /** Fold the action jobs of an expanded application back into its one node. */
  const foldActions = async (appId: string) => {
    const app = store.applicationCollapse(appId);
    if (!app) return;
    save();
    await redraw(appId);
    side.node(appId);
    setStatus(`${app.label} folded back into one node.`);
  };

  /** Draw a cluster as its nodes. */
  const openCluster = async (id: string) => {
    const cluster = store.grouping.openCluster(id);
    if (!cluster) return;
    await redraw("");
    setStatus(`opened ${cluster.label}`);
  };

  const showEverything = async (all: boolean) => {
    store.allSet(all);
    save();
    await redraw(store.place.focus ?? store.place.roots[0] ?? "");
    setStatus();
  };

  // ---- loading ----
  let loadId = 0;
  const load = async () => {
    const mine = ++loadId;
    replace(below);
    document.body.removeAttribute("data-graph-ready");
    if (!placeHasSubject(store.place)) {
      status.message("");
      graph.message("Search for a dataset or job to explore its lineage.");
      side.node(null);
      return;
    }
    status.loading();
    try {
      if (store.place.view === "table") await loadTable(mine);
      else await loadColumns(mine);
      if (mine === loadId) document.body.setAttribute("data-graph-ready", store.place.view);
    } catch (error) {
      if (isAbort(error) || mine !== loadId) return;
      status.error(error);
    }
  };

  /** Draw a picture and keep it; false when a newer load has started meanwhile. */
  const showPicture = async (picture: Picture, mine: number) => {
    const view = store.place.view;
    store.modelShow(picture.model);
    const shown = await graph.pictureShow(picture, store.displayed(), () => mine !== loadId);
    if (shown) store.pictureKeep(view, picture);
    return shown;
  };

  const loadTable = async (mine: number) => {
    let picture = store.picture();
    if (!picture) {
      const key = pictureKey(store.place);
      const { model, truncated } = await tableLineageLoad({ place: store.place, signal });
      if (mine !== loadId) return;
      picture = pictureNew(key, model, truncated);
    }
    if (!(await showPicture(picture, mine))) return;
    const { focus, roots } = store.place;
    toolbar.rootsShow(roots, store.model);
    graph.mark(roots, focus);
    store.pathEndsKeepDrawn();
    highlightPath();
    side.node(focus && store.model.nodes.has(focus) ? focus : null);
    setStatus(picture.truncated ? TRUNCATED : "");
  };

  const loadColumns = async (mine: number) => {
    const datasetId = columnDataset(store.place);
    if (!datasetId) {
      graph.clear();
      status.message("The column view needs a dataset: click one in the table view, or search for a field.");
      return;
    }
    const detail = await columnDatasetLoad({ datasetId });
    if (mine !== loadId) return;
    const field = store.place.field;
    side.fieldPicker(detail, field);
    if (!field) {
      graph.clear();
      store.modelShow(emptyModel());
      status.message(`Pick a field of ${detail.name} to see where it comes from and where it goes.`);
      return;
    }
    const key = pictureKey(store.place);
    const kept = store.picture();
    const { fieldId, answer } = await columnLineageLoad({ place: store.place, detail, field, signal });
    if (mine !== loadId) return;
    const picture = kept ?? pictureNew(key, columnModel(answer), answer.truncated);
    if (!(await showPicture(picture, mine))) return;
    graph.markField(fieldId);
    setStatus(`column lineage of ${datasetShortName(detail.namespace, detail.name)}.${field}${answer.truncated ? ` · ${TRUNCATED}` : ""}`);
    replace(below, columnTables(answer, fieldId));
  };

  void load();
  return () => {
    remember();
    abort.abort();
    loadId++;
    graph.destroy();
    document.body.removeAttribute("data-graph-ready");
  };
}
