// The explorer's parts: its store, the views that show it (graph, toolbar, status bar, side panel, tables below) and
// what its loads share (the page's abort signal, the turn of the latest load), built and laid out on the page.

import { h, replace } from "../../dom";
import { ExplorerGraph } from "./graphView";
import { columnBar } from "./panels/columnBar";
import { SidePanel } from "./panels/sidePanel";
import { StatusBar } from "./panels/statusBar";
import { Toolbar } from "./panels/toolbar";
import type { PanelActions } from "./panels/types";
import type { ExplorerStore, Intent } from "./store";

/** Numbers the page's loads, so that a load overtaken by a newer one (or by leaving the page) can tell. */
export class LoadTurns {
  private latest = 0;

  /** A new load's turn: every earlier one is stale from now on. */
  start(): number {
    return ++this.latest;
  }

  stale(turn: number): boolean {
    return turn !== this.latest;
  }

  /** Make every load started so far stale. */
  cancel(): void {
    this.latest++;
  }
}

export interface ExplorerParts {
  readonly store: ExplorerStore;
  readonly graph: ExplorerGraph;
  readonly status: StatusBar;
  readonly side: SidePanel;
  readonly toolbar: Toolbar;
  /** Above the graph in the column view: how its edges are drawn and what its dataset cards show. */
  readonly columnBar: HTMLElement;
  /** Under the graph: the column view's drawer with the tables of upstream and downstream fields. */
  readonly below: HTMLElement;
  readonly signal: AbortSignal;
  readonly loads: LoadTurns;
  /** Ask the explorer for something (as the toolbar, graph and panels do). */
  readonly emit: (intent: Intent) => void;
}

/** What the side panels ask for, as intents (or answered from the store). */
export function panelActions(store: ExplorerStore, emit: (intent: Intent) => void): PanelActions {
  return {
    expand: (id) => emit({ kind: "expand", id }),
    openAsRoot: (id) => emit({ kind: "open-root", id }),
    showField: (datasetId, field) => emit({ kind: "show-field", datasetId, field }),
    actionsOf: (id) => store.actionsOf(id),
    applicationOf: (id) => store.applicationOf(id),
    expandApplication: (id) => emit({ kind: "expand-application", id }),
    collapseApplication: (id) => emit({ kind: "collapse-application", id }),
  };
}

/** The views of `store`, each reporting what the user asks for to `emit`. */
export function partsCreate(store: ExplorerStore, emit: (intent: Intent) => void, signal: AbortSignal): ExplorerParts {
  const graph = new ExplorerGraph(store, emit);
  const status = new StatusBar(emit);
  const side = new SidePanel(panelActions(store, emit), emit);
  const toolbar = new Toolbar(store.place, emit, graph);
  const below = h("div", { class: "below-graph" });
  return { store, graph, status, side, toolbar, columnBar: columnBar(emit), below, signal, loads: new LoadTurns(), emit };
}

/**
 * Lay the explorer out in `root`: the toolbar above, the graph (under the column view's bar) with its status line beside
 * the side panel, the column view's drawer below.
 */
export function partsShow(root: HTMLElement, { store, graph, status, side, toolbar, columnBar, below }: ExplorerParts): void {
  toolbar.rootsShow(store.place.roots, store.model);
  columnBar.hidden = store.place.view !== "column";
  replace(root, h("div", { class: "explorer" }, toolbar.element, h("div", { class: "explorer-main" },
    h("div", { class: "graph-wrap" }, columnBar, graph.element, h("div", { class: "graph-foot" }, status.status, status.pathInfo)), side.element), below));
}
