// A Cytoscape canvas for a `GraphModel`: positions from the layout worker, preset layout, highlights.

import cytoscape from "cytoscape";
import { stateKey } from "../format";
import { layoutOffMainThread, nodeSize } from "./layout";
import type { GraphModel, GraphNode } from "./model";
import { graphStyle, nodeColors } from "./renderers";

declare global {
  interface Window {
    /** `performance.now()` when the last graph was laid out and drawn (read by tests and the benchmark). */
    __tributaryRendered?: number;
    /** Test hook: where a node is drawn, in page coordinates. */
    __tributaryGraph?: { nodeIds(): string[]; nodePoint(id: string): { x: number; y: number } | null; zoom(): number };
  }
}

export interface GraphViewEvents {
  onTap?: (id: string, event: { shift: boolean }) => void;
  onDoubleTap?: (id: string) => void;
  onBackgroundTap?: () => void;
}

export type Positions = Record<string, { x: number; y: number }>;

/** Labels past this many characters are cut with an ellipsis here, not by Cytoscape (which measures each glyph). */
export const LABEL_MAX = 40;

export function shortLabel(label: string): string {
  return label.length > LABEL_MAX ? `${label.slice(0, LABEL_MAX - 1)}…` : label;
}

function nodeElement(node: GraphNode, position: { x: number; y: number } | undefined): cytoscape.ElementDefinition {
  const size = nodeSize(node.label, node.type);
  const state = node.type === "JOB" ? node.data.latestRunState : node.data.lastRunState;
  return {
    group: "nodes",
    data: {
      id: node.id, label: shortLabel(node.label), kind: node.type, state: stateKey(state as string | null),
      ...(nodeColors[node.type]?.(node) ?? {}),
      w: size.width, h: size.height, ...(node.parent ? { parent: node.parent } : {}),
    },
    ...(position ? { position: { ...position } } : {}),
  };
}

/** Below this zoom a 12 px label is under 7 px on screen and is not drawn anyway. */
const LABEL_ZOOM = 0.6;
const NO_LABELS: cytoscape.StylesheetJson = [{ selector: "node[kind = 'DATASET'], node[kind = 'JOB']", style: { label: "" } }];

export class GraphView {
  readonly cy: cytoscape.Core;
  private positions: Positions = {};
  private generation = 0;
  private large = false;
  private labelsHidden = false;

  constructor(readonly container: HTMLElement, events: GraphViewEvents = {}) {
    this.cy = cytoscape({
      container,
      style: graphStyle,
      minZoom: 0.05,
      maxZoom: 3,
      wheelSensitivity: 0.3,
      boxSelectionEnabled: false,
      selectionType: "single",
    });
    this.cy.on("tap", "node", (event) => {
      const original = event.originalEvent as MouseEvent | undefined;
      events.onTap?.(event.target.id(), { shift: Boolean(original?.shiftKey || original?.ctrlKey || original?.metaKey) });
    });
    this.cy.on("dbltap", "node", (event) => events.onDoubleTap?.(event.target.id()));
    this.cy.on("tap", (event) => { if (event.target === this.cy) events.onBackgroundTap?.(); });
    this.cy.on("zoom", () => this.updateLabels());
    window.__tributaryGraph = {
      nodeIds: () => this.cy.nodes().map((n) => n.id()),
      nodePoint: (id) => {
        const node = this.cy.getElementById(id);
        if (node.empty()) return null;
        const box = this.container.getBoundingClientRect();
        const p = node.renderedPosition();
        return { x: box.left + p.x, y: box.top + p.y };
      },
      zoom: () => this.cy.zoom(),
    };
  }

  /**
   * Show `model`: lay it out in the worker (unless every node already has a position), place the
   * nodes with the preset layout and fit. Resolves once the frame with the graph has been drawn.
   */
  async show(model: GraphModel, options: { fit?: boolean; rankdir?: "LR" | "TB"; reuse?: Positions; keepViewport?: boolean } = {}): Promise<void> {
    const generation = ++this.generation;
    const large = model.nodes.size > 500;
    const compound = [...model.nodes.values()].some((n) => n.parent);
    const nodes = [...model.nodes.values()];
    let positions = options.reuse;
    if (!positions || nodes.some((n) => !n.parent && !positions![n.id] && !nodes.some((c) => c.parent === n.id))) {
      performance.mark("tributary:layout-start");
      const result = await layoutOffMainThread({
        nodes: nodes.map((n) => ({ id: n.id, parent: n.parent, ...nodeSize(n.label, n.type) })),
        edges: [...model.edges.values()].map((e) => ({ source: e.source, target: e.target })),
        rankdir: options.rankdir ?? "LR",
        compound,
      });
      positions = result.positions;
      performance.mark("tributary:layout-done");
      performance.measure("tributary:layout-worker", { start: "tributary:layout-start", end: "tributary:layout-done", detail: result.millis });
    }
    if (generation !== this.generation) return; // a newer graph replaced this one while it was laid out
    this.positions = positions;
    const cy = this.cy;
    const viewport = { zoom: cy.zoom(), pan: { ...cy.pan() } };
    // Hide labels before adding a large graph, so the elements are never styled with them first.
    if (large && !this.labelsHidden) { this.labelsHidden = true; cy.style([...graphStyle, ...NO_LABELS]); }
    cy.batch(() => {
      cy.elements().remove();
      cy.add([
        // parents first, so children can name them
        ...nodes.filter((n) => !n.parent).map((n) => nodeElement(n, positions![n.id])),
        ...nodes.filter((n) => n.parent).map((n) => nodeElement(n, positions![n.id])),
        ...[...model.edges.values()].map((e) => ({
          group: "edges" as const,
          data: { id: e.id, source: e.source, target: e.target, ...(e.label ? { label: e.label } : {}) },
          classes: [e.data?.indirect ? "indirect" : "", large ? "fast" : ""].join(" ").trim(),
        })),
      ]);
    });
    // Large graphs: skip edges and label work while the user pans and zooms, so it stays fluid.
    const renderer = cy as unknown as { renderer(): { hideEdgesOnViewport: boolean; textureOnViewport: boolean } };
    renderer.renderer().hideEdgesOnViewport = large;
    renderer.renderer().textureOnViewport = large;
    this.large = large;
    if (options.keepViewport) cy.viewport(viewport);
    else if (options.fit !== false) this.fit();
    this.updateLabels();
    performance.mark("tributary:elements-added");
    await this.drawn();
    performance.mark("tributary:drawn");
    if (generation === this.generation) window.__tributaryRendered = performance.now();
  }

  /**
   * On large graphs, labels are measured and drawn only once zoomed in far enough to read them:
   * measuring 1,000+ labels is the largest part of the first frame.
   */
  private updateLabels(): void {
    const hide = this.large && this.cy.zoom() < LABEL_ZOOM;
    if (hide === this.labelsHidden) return;
    this.labelsHidden = hide;
    this.cy.style(hide ? [...graphStyle, ...NO_LABELS] : graphStyle);
  }

  currentPositions(): Positions {
    const positions: Positions = {};
    const nodes = this.cy.nodes();
    for (let i = 0; i < nodes.length; i++) {
      if (nodes[i].data("kind") !== "DATASET_GROUP") positions[nodes[i].id()] = { ...nodes[i].position() };
    }
    return { ...this.positions, ...positions };
  }

  /** Resolves after the next frame Cytoscape draws. */
  drawn(): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      const finish = () => { if (!done) { done = true; requestAnimationFrame(() => resolve()); } };
      this.cy.one("render", finish);
      setTimeout(finish, 500); // nothing changed on screen: no render event comes
    });
  }

  setClass(className: string, ids: string[]): void {
    this.cy.batch(() => {
      this.cy.elements(`.${className}`).removeClass(className);
      for (const id of ids) this.cy.getElementById(id).addClass(className);
    });
  }

  select(id: string | null): void {
    this.cy.batch(() => {
      this.cy.$(":selected").unselect();
      if (id) this.cy.getElementById(id).select();
    });
  }

  center(id: string): void {
    const node = this.cy.getElementById(id);
    if (!node.empty()) this.cy.animate({ center: { eles: node } }, { duration: 250 });
  }

  zoomBy(factor: number): void {
    const cy = this.cy;
    cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  }

  /** Fit the graph in view from node boxes alone (Cytoscape's own fit measures every label first). */
  fit(padding = 30): void {
    const cy = this.cy;
    if (cy.nodes().empty()) return;
    let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
    const nodes = cy.nodes();
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      const p = node.position();
      const group = node.data("kind") === "DATASET_GROUP"; // compound: sized by its children
      const w = group ? node.width() : Number(node.data("w"));
      const h = group ? node.height() + 20 : Number(node.data("h"));
      x1 = Math.min(x1, p.x - w / 2); x2 = Math.max(x2, p.x + w / 2);
      y1 = Math.min(y1, p.y - h / 2); y2 = Math.max(y2, p.y + h / 2);
    }
    const width = cy.width(), height = cy.height();
    const zoom = Math.max(cy.minZoom(), Math.min(1.6, (width - 2 * padding) / (x2 - x1 || 1), (height - 2 * padding) / (y2 - y1 || 1)));
    cy.viewport({ zoom, pan: { x: (width - zoom * (x1 + x2)) / 2, y: (height - zoom * (y1 + y2)) / 2 } });
  }

  viewport(): { zoom: number; pan: { x: number; y: number } } {
    return { zoom: this.cy.zoom(), pan: { ...this.cy.pan() } };
  }

  setViewport(viewport: { zoom: number; pan: { x: number; y: number } }): void {
    this.cy.viewport(viewport);
  }

  destroy(): void {
    this.generation++;
    this.cy.destroy();
    if (window.__tributaryGraph) delete window.__tributaryGraph;
  }
}
