// The lineage explorer: dataset / job graph with depth, direction, expansion, paths and a side panel,
// and the column view of one field, switching between the two without losing place.

import { api } from "../../api/client";
import type { ColumnLineageResponse, DatasetDetail, Direction, Level } from "../../api/types";
import { h, link, replace } from "../../dom";
import { STATE_COLORS, fieldIdOf, idLabel } from "../../format";
import {
  collapseApplication, columnModel, columnSides, emptyModel, expandApplication, mergeLineage, pathEdgeIds, shortestPath,
  transformationLabel, type GraphModel, type GraphNode,
} from "../../graph/model";
import { CLUSTER_PREFIX, COLLAPSE_ABOVE, Grouping } from "../../graph/clusters";
import { datasetShortName, idShortName } from "../../graph/names";
import { GraphView, type Placement } from "../../graph/view";
import { setQuery, type Cleanup } from "../../router";
import { errorMessage, loading, nodeLink } from "../../shell/widgets";
import { datasetPanel } from "./panels/datasetPanel";
import { jobPanel } from "./panels/jobPanel";
import type { PanelActions } from "./panels/types";
import { impactPageHref } from "../impact/model";
import { MAX_DEPTH, columnDataset, parseState, stateParams, tableKey } from "./state";

const TRUNCATED = "truncated: the server's node budget was reached; lower the depth or open a node as the centre";

interface Saved {
  key: string;
  truncated?: boolean;
  model: GraphModel;
  placement: Placement | null;
  viewport: { zoom: number; pan: { x: number; y: number } };
}

// Kept across page renders, so table ⇄ column and back / forward return to the same picture.
const savedTable = new Map<string, Saved>();
const savedColumn = new Map<string, Saved>();

const PANELS: Record<string, (id: string, actions: PanelActions) => HTMLElement> = {
  dataset: datasetPanel,
  job: jobPanel,
};

export function LineagePage(root: HTMLElement, url: URL): Cleanup {
  const state = parseState(url.searchParams);
  const status = h("div", { class: "graph-status", "aria-live": "polite" });
  const pathInfo = h("div", { class: "path-info" }, "Shift-click two nodes to highlight the path between them.");
  const canvas = h("div", { class: "graph-canvas", id: "graph" });
  const side = h("aside", { class: "side-panel", id: "side-panel" });
  const below = h("div", { class: "below-graph" });
  let view: GraphView | null = null;
  let model: GraphModel = emptyModel();
  let pathEnds: string[] = [];
  // Application nodes the user expanded into their actions, kept to fold them back.
  const expanded = new Map<string, GraphNode>();
  // Very large answers are drawn grouped into clusters; the ones the user opened are drawn as their nodes.
  const grouping = new Grouping();
  const clustered = () => state.view === "table" && !state.all && model.nodes.size > COLLAPSE_ABOVE;
  /** What is drawn: the model, or the model with its unopened clusters folded. */
  const displayed = (): GraphModel => clustered()
    ? grouping.shown(model, new Set([...state.roots, ...(state.focus ? [state.focus] : [])]))
    : model;
  const regroup = () => grouping.regroup();
  const abort = new AbortController();

  const save = () => {
    const params = stateParams(state);
    setQuery(params, { replace: true });
    saveViewport();
  };
  const push = () => setQuery(stateParams(state));

  const saveViewport = () => {
    if (!view || view.cy.nodes().empty()) return;
    const store = state.view === "table" ? savedTable : savedColumn;
    const key = state.view === "table" ? tableKey(state) : columnKey();
    const saved = store.get(key);
    if (saved) { saved.viewport = view.viewport(); saved.placement = view.currentPlacement(); }
  };

  const columnKey = () => JSON.stringify([columnDataset(state), state.field, state.depth, state.direction]);

  // ---- toolbar ----
  const depth = h("select", { id: "depth", "aria-label": "Depth" },
    Array.from({ length: MAX_DEPTH }, (_, i) => i + 1).map((d) => h("option", { value: String(d), selected: d === state.depth }, String(d))));
  const direction = h("select", { id: "direction", "aria-label": "Direction" },
    (["both", "upstream", "downstream"] as Direction[]).map((d) => h("option", { value: d, selected: d === state.direction }, d)));
  depth.addEventListener("change", () => { saveViewport(); state.depth = Number(depth.value); push(); void load(); });
  direction.addEventListener("change", () => { saveViewport(); state.direction = direction.value as Direction; push(); void load(); });
  const tableButton = h("button", { type: "button", id: "view-table", class: "toggle", "aria-pressed": String(state.view === "table") }, "Tables");
  const columnButton = h("button", { type: "button", id: "view-column", class: "toggle", "aria-pressed": String(state.view === "column") }, "Columns");
  const switchView = (next: "table" | "column") => {
    if (state.view === next) return;
    saveViewport();
    state.view = next;
    tableButton.setAttribute("aria-pressed", String(next === "table"));
    columnButton.setAttribute("aria-pressed", String(next === "column"));
    push();
    void load();
  };
  const levelButtons = (["application", "action"] as Level[]).map((level) => {
    const button = h("button", {
      type: "button", id: `level-${level}`, class: "toggle", "aria-pressed": String(state.level === level),
      title: level === "application" ? "Each application job with its actions rolled up into it" : "Every action job on its own",
    }, level === "application" ? "Applications" : "Actions");
    button.addEventListener("click", () => {
      if (state.level === level) return;
      saveViewport();
      state.level = level;
      for (const b of levelButtons) b.setAttribute("aria-pressed", String(b === button));
      expanded.clear();
      push();
      void load();
    });
    return button;
  });
  tableButton.addEventListener("click", () => switchView("table"));
  columnButton.addEventListener("click", () => switchView("column"));

  const legend = h("div", { class: "legend" }, Object.entries(STATE_COLORS).map(([s, color]) =>
    h("span", { class: "legend-item" }, h("span", { class: "swatch", style: `background:${color}` }), s.toLowerCase())));

  const roots = h("div", { class: "roots" });
  const showRoots = () => replace(roots, ...(state.roots.length
    ? state.roots.flatMap((id, i) => [i ? ", " : "", h("strong", { class: "root-name", title: idLabel(id) }, model.nodes.get(id)?.label ?? idShortName(id))])
    : ["No node chosen"]));
  showRoots();
  const toolbar = h("div", { class: "toolbar" },
    roots,
    h("label", {}, "Depth ", depth),
    h("label", {}, "Direction ", direction),
    h("div", { class: "segmented", role: "group", "aria-label": "Job level" }, ...levelButtons),
    h("div", { class: "segmented" }, tableButton, columnButton),
    h("div", { class: "zoom" },
      h("button", { type: "button", title: "Zoom in", "aria-label": "Zoom in", onclick: () => view?.zoomBy(1.25) }, "+"),
      h("button", { type: "button", title: "Zoom out", "aria-label": "Zoom out", onclick: () => view?.zoomBy(0.8) }, "−"),
      h("button", { type: "button", title: "Fit", id: "fit", onclick: () => view?.fit() }, "Fit")),
    legend);

  replace(root, h("div", { class: "explorer" }, toolbar, h("div", { class: "explorer-main" },
    h("div", { class: "graph-wrap" }, canvas, h("div", { class: "graph-foot" }, status, pathInfo)), side), below));

  // ---- graph ----
  const actions: PanelActions = {
    expand: (id) => void expand(id),
    openAsRoot: (id) => { saveViewport(); state.roots = [id]; state.focus = id; push(); void load(); },
    showField: (datasetId, field) => { saveViewport(); state.focus = datasetId; state.field = field; switchToColumns(); },
    actionsOf: (id) => (model.nodes.get(id)?.data.actions as string[] | undefined) ?? [],
    applicationOf: (id) => {
      const app = model.nodes.get(id)?.data.application;
      return typeof app === "string" && expanded.has(app) ? app : null;
    },
    expandApplication: (id) => void showActions(id),
    collapseApplication: (id) => void foldActions(id),
  };
  const switchToColumns = () => {
    if (state.view === "column") { push(); void load(); } else switchView("column");
  };

  const openPanel = (id: string | null) => {
    if (!id) { replace(side, h("p", { class: "muted" }, "Click a node to see its details.")); return; }
    const panel = PANELS[id.slice(0, id.indexOf(":"))];
    replace(side, panel ? panel(id, actions) : h("p", {}, idLabel(id)));
  };

  const highlightPath = () => {
    if (!view) return;
    view.setClass("path-end", pathEnds);
    if (pathEnds.length < 2) {
      view.setClass("on-path", []);
      replace(pathInfo, pathEnds.length ? `Path from ${idLabel(pathEnds[0])}: shift-click a second node.` : "Shift-click two nodes to highlight the path between them.");
      return;
    }
    const path = shortestPath(model, pathEnds[0], pathEnds[1]);
    if (!path) {
      view.setClass("on-path", []);
      const [a, b] = pathEnds;
      replace(pathInfo, h("span", { id: "path-result" }, `No path between ${idShortName(a)} and ${idShortName(b)} here.`), " ", clearPath());
      if (a.startsWith("dataset:") && b.startsWith("dataset:")) void explainNoPath(a, b);
      return;
    }
    view.setClass("on-path", [...path, ...pathEdgeIds(model, path)]);
    replace(pathInfo, h("span", { id: "path-result" }, `Path (${path.length - 1} hops): ${path.map(idLabel).join(" → ")}`), " ", clearPath());
  };
  /** Why two datasets are not connected: the server's nearest near-miss (another namespace, an alias, a similar name one job away). */
  const explainNoPath = async (a: string, b: string) => {
    try {
      const answer = await api.nearMiss(a, b, abort.signal);
      if (pathEnds[0] !== a || pathEnds[1] !== b) return; // the user picked other nodes meanwhile
      const why = answer.connected
        ? `They are connected beyond this view (${answer.pathLength} hops, ${answer.direction}): raise the depth.`
        : answer.nearMisses.length ? `Why not: ${answer.nearMisses[0].message}` : "No near-miss found: nothing links them.";
      pathInfo.append(" ", h("span", { id: "near-miss", title: answer.nearMisses.map((m) => m.message).join("\n") }, why));
    } catch (error) {
      if ((error as Error).name !== "AbortError") pathInfo.append(" ", errorMessage(error));
    }
  };
  const clearPath = () => h("button", { type: "button", class: "link-button", onclick: () => { pathEnds = []; highlightPath(); } }, "clear");

  const onTap = (id: string, event: { shift: boolean }) => {
    if (id.startsWith(CLUSTER_PREFIX)) { void openCluster(id); return; }
    if (state.view === "column") {
      if (id.startsWith("datasetField:")) {
        const node = model.nodes.get(id);
        if (node) { saveViewport(); state.field = String(node.data.name); state.focus = String(node.parent); push(); void load(); }
      }
      return;
    }
    if (event.shift) {
      pathEnds = pathEnds.includes(id) ? pathEnds.filter((p) => p !== id) : [...pathEnds.slice(-1), id];
      highlightPath();
      return;
    }
    state.focus = id;
    save();
    view?.select(id);
    openPanel(id);
    void expand(id);
  };

  /** Draw the graph again after it changed shape, keeping selection, roots and path. */
  const redraw = async (centre: string, options: { keepViewport?: boolean } = {}) => {
    if (!view) return;
    await view.show(displayed(), { keepViewport: options.keepViewport ?? false });
    const saved = savedTable.get(tableKey(state));
    if (saved) saved.placement = view.currentPlacement();
    view.select(state.focus && model.nodes.has(state.focus) ? state.focus : null);
    view.setClass("root", state.roots);
    highlightPath();
    if (centre) view.center(centre);
  };

  /** Replace an application node by its action jobs (an action-level answer one hop around it). */
  const showActions = async (appId: string) => {
    const app = model.nodes.get(appId);
    if (state.view !== "table" || !app || !(app.data.actions as string[] | undefined)?.length) return;
    try {
      const response = await api.lineage(appId, 1, "both", abort.signal, "action");
      expanded.set(appId, app);
      const actions = response.graph.filter((n) => n.data.application === appId).map((n) => n.id);
      expandApplication(model, appId, response);
      regroup();
      state.focus = actions[0] ?? null;
      save();
      await redraw(state.focus ?? appId);
      openPanel(state.focus);
      setStatus(`${app.label} shown as its ${actions.length} action${actions.length === 1 ? "" : "s"}.`);
    } catch (error) {
      if ((error as Error).name !== "AbortError") replace(status, errorMessage(error));
    }
  };

  /** Fold the action jobs of an expanded application back into its one node. */
  const foldActions = async (appId: string) => {
    const app = expanded.get(appId);
    if (!app) return;
    expanded.delete(appId);
    collapseApplication(model, app);
    regroup();
    state.focus = appId;
    save();
    await redraw(appId);
    openPanel(appId);
    setStatus(`${app.label} folded back into one node.`);
  };

  /** Fetch depth 1 around `id` and merge it in; lay out again only if new nodes came. */
  const expand = async (id: string) => {
    if (state.view !== "table") return;
    try {
      const response = await api.lineage(id, 1, "both", abort.signal, state.level);
      const added = mergeLineage(model, response);
      if (added.length) {
        regroup();
        await redraw(id, { keepViewport: true });
      }
      setStatus(added.length ? `${added.length} nodes added around ${idLabel(id)}.` : "");
    } catch (error) {
      if ((error as Error).name !== "AbortError") replace(status, errorMessage(error));
    }
  };

  const setStatus = (extra = "") => {
    const groups = clustered() && grouping.folded()
      ? [" · ", h("span", { id: "cluster-info" }, `grouped into ${grouping.folded()} clusters: click one to open it`), " ",
        h("button", { type: "button", class: "link-button", id: "show-all", onclick: () => void showEverything(true) }, "show every node")]
      : state.all && model.nodes.size > COLLAPSE_ABOVE
        ? [" · ", h("button", { type: "button", class: "link-button", id: "group-again", onclick: () => void showEverything(false) }, "group into clusters")]
        : [];
    replace(status, h("span", { id: "graph-count" }, `${model.nodes.size} nodes, ${model.edges.size} edges`), ...groups, extra ? ` · ${extra}` : "");
  };

  /** Draw a cluster as its nodes. */
  const openCluster = async (id: string) => {
    const cluster = grouping.openCluster(id);
    if (!cluster) return;
    await redraw("");
    setStatus(`opened ${cluster.label}`);
  };

  const showEverything = async (all: boolean) => {
    state.all = all;
    grouping.reset();
    save();
    await redraw(state.focus ?? state.roots[0] ?? "");
    setStatus();
  };

  const ensureView = () => {
    if (!view) {
      view = new GraphView(canvas, {
        onTap,
        onBackgroundTap: () => { if (state.view === "table") { view?.select(null); } },
        // Double-click an application to see its actions, an action to fold them back.
        onDoubleTap: (id) => {
          if (state.view !== "table") return;
          const app = actions.applicationOf(id);
          if (app) void foldActions(app);
          else if (actions.actionsOf(id).length) void showActions(id);
        },
      });
    }
    return view;
  };

  // ---- loading ----
  let loadId = 0;
  const load = async () => {
    const mine = ++loadId;
    replace(below);
    document.body.removeAttribute("data-graph-ready");
    if (!state.roots.length && !(state.view === "column" && columnDataset(state))) {
      replace(status, "");
      canvas.replaceChildren(h("div", { class: "graph-empty" }, "Search for a dataset or job to explore its lineage."));
      openPanel(null);
      return;
    }
    replace(status, loading());
    try {
      if (state.view === "table") await loadTable(mine);
      else await loadColumns(mine);
      if (mine === loadId) document.body.setAttribute("data-graph-ready", state.view);
    } catch (error) {
      if ((error as Error).name === "AbortError" || mine !== loadId) return;
      replace(status, errorMessage(error));
    }
  };

  // Draw a saved picture: laid out afresh and fitted the first time, exactly as left on a return.
  // Answers null when a newer load has started meanwhile.
  const showSaved = async (saved: Saved, store: Map<string, Saved>, mine: number) => {
    if (model !== saved.model) grouping.reset();
    model = saved.model;
    const v = ensureView();
    const restoring = saved.placement !== null;
    await v.show(displayed(), { reuse: saved.placement ?? undefined, fit: !restoring });
    if (mine !== loadId) return null;
    if (restoring) v.setViewport(saved.viewport);
    saved.placement = v.currentPlacement();
    saved.viewport = v.viewport();
    store.set(saved.key, saved);
    return v;
  };

  const loadTable = async (mine: number) => {
    const key = tableKey(state);
    let saved = savedTable.get(key);
    if (!saved) {
      performance.mark("tributary:fetch-start");
      const responses = await Promise.all(state.roots.map((id) => api.lineage(id, state.depth, state.direction, abort.signal, state.level)));
      performance.mark("tributary:fetched");
      if (mine !== loadId) return;
      const fresh = emptyModel();
      for (const response of responses) mergeLineage(fresh, response);
      saved = { key, model: fresh, placement: null, viewport: { zoom: 1, pan: { x: 0, y: 0 } }, truncated: responses.some((r) => r.truncated) };
    }
    const v = await showSaved(saved, savedTable, mine);
    if (!v) return;
    showRoots();
    v.setClass("root", state.roots);
    v.select(state.focus);
    pathEnds = pathEnds.filter((id) => model.nodes.has(id));
    highlightPath();
    openPanel(state.focus && model.nodes.has(state.focus) ? state.focus : null);
    setStatus(saved.truncated ? TRUNCATED : "");
  };

  const loadColumns = async (mine: number) => {
    const datasetId = columnDataset(state);
    if (!datasetId) {
      view?.cy.elements().remove();
      replace(status, "The column view needs a dataset: click one in the table view, or search for a field.");
      return;
    }
    const detail = await api.dataset(datasetId);
    if (mine !== loadId) return;
    replace(side, fieldPicker(detail));
    if (!state.field) {
      view?.cy.elements().remove();
      model = emptyModel();
      replace(status, `Pick a field of ${detail.name} to see where it comes from and where it goes.`);
      return;
    }
    const fieldId = fieldIdOf(detail.namespace, detail.name, state.field);
    const key = columnKey();
    let saved = savedColumn.get(key);
    const response = await api.columnLineage(fieldId, state.depth, state.direction, abort.signal);
    if (mine !== loadId) return;
    if (!saved) {
      saved = { key, model: columnModel(response), placement: null, viewport: { zoom: 1, pan: { x: 0, y: 0 } } };
    }
    const v = await showSaved(saved, savedColumn, mine);
    if (!v) return;
    v.setClass("focus", [fieldId]);
    v.select(null);
    setStatus(`column lineage of ${datasetShortName(detail.namespace, detail.name)}.${state.field}${response.truncated ? ` · ${TRUNCATED}` : ""}`);
    replace(below, columnTable(response, fieldId));
  };

  const fieldPicker = (detail: DatasetDetail) =>
    h("div", { class: "side-panel-content field-picker" },
      h("div", { class: "panel-head" },
        h("span", { class: "tag tag-dataset" }, "dataset"),
        h("h2", { class: "node-name" }, detail.name),
        h("div", { class: "muted" }, detail.namespace)),
      h("h3", {}, "Fields"),
      detail.fields.length
        ? h("ul", { class: "field-list" }, detail.fields.map((field) =>
          h("li", {}, h("button", {
            type: "button", class: `field-button${field.name === state.field ? " current" : ""}`, "data-field": field.name,
            onclick: () => { saveViewport(); state.field = field.name; state.focus = detail.id; push(); void load(); },
          }, field.name, h("span", { class: "muted mono" }, ` ${field.type ?? ""}`)))))
        : h("p", { class: "muted" }, "No schema recorded."),
      state.field ? h("p", {}, link(impactPageHref([fieldIdOf(detail.namespace, detail.name, state.field)]), `Impact of ${state.field} →`)) : null,
      h("p", {}, link(`/dataset?nodeId=${encodeURIComponent(detail.id)}`, "Schema history →")));

  const columnTable = (response: ColumnLineageResponse, fieldId: string) => {
    const names = new Map(response.graph.map((n) => [n.id, `${datasetShortName(n.data.namespace, n.data.dataset)}.${n.data.name}`]));
    const sides = columnSides({ ...response, nodeId: fieldId });
    const rows = (title: string, id: string, edges: typeof sides.upstream) => h("section", { class: "column-side", id },
      h("h3", {}, `${title} (${edges.length})`),
      edges.length
        ? h("table", { class: "grid" },
          h("thead", {}, h("tr", {}, h("th", {}, "From field"), h("th", {}, "To field"), h("th", {}, "Transformation"), h("th", {}, "Job"))),
          h("tbody", {}, edges.map((edge) => h("tr", {},
            h("td", { title: idLabel(edge.origin) }, names.get(edge.origin) ?? idShortName(edge.origin)),
            h("td", { title: idLabel(edge.destination) }, names.get(edge.destination) ?? idShortName(edge.destination)),
            h("td", { class: "mono" }, transformationLabel(edge)),
            h("td", {}, edge.job ? nodeLink(edge.job) : "—")))))
        : h("p", { class: "muted" }, "None."));
    return h("div", { class: "column-tables" },
      rows("Upstream fields", "upstream-fields", sides.upstream),
      rows("Downstream fields", "downstream-fields", sides.downstream));
  };

  void load();
  return () => {
    saveViewport();
    abort.abort();
    loadId++;
    view?.destroy();
    document.body.removeAttribute("data-graph-ready");
  };
}
