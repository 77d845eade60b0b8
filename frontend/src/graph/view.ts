// A Cytoscape canvas for a `GraphModel`: positions from the layout worker, preset layout, highlights.

import cytoscape from "cytoscape";
import { stateKey } from "../format";
import { layoutOffMainThread, nodeSize } from "./layout";
import type { GraphModel, GraphNode } from "./model";
import { graphStyle } from "./renderers";

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

function nodeElement(node: GraphNode): cytoscape.ElementDefinition {
  const size = nodeSize(node.label, node.type);
  const state = node.type === "JOB" ? node.data.latestRunState : node.data.lastRunState;
  return {
    group: "nodes",
    data: {
      id: node.id, label: node.label, kind: node.type, state: stateKey(state as string | null),
      w: size.width, h: size.height, ...(node.parent ? { parent: node.parent } : {}),
    },
  };
}

export class GraphView {
  readonly cy: cytoscape.Core;
  private positions: Positions = {};
  private generation = 0;

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
    const compound = [...model.nodes.values()].some((n) => n.parent);
    const nodes = [...model.nodes.values()];
    let positions = options.reuse;
    if (!positions || nodes.some((n) => !n.parent && !positions![n.id] && !nodes.some((c) => c.parent === n.id))) {
      const result = await layoutOffMainThread({
        nodes: nodes.map((n) => ({ id: n.id, parent: n.parent, ...nodeSize(n.label, n.type) })),
        edges: [...model.edges.values()].map((e) => ({ source: e.source, target: e.target })),
        rankdir: options.rankdir ?? "LR",
        compound,
      });
      positions = result.positions;
    }
    if (generation !== this.generation) return; // a newer graph replaced this one while it was laid out
    this.positions = positions;
    const large = nodes.length > 500;
    const cy = this.cy;
    const viewport = { zoom: cy.zoom(), pan: { ...cy.pan() } };
    cy.batch(() => {
      cy.elements().remove();
      cy.add([
        // parents first, so children can name them
        ...nodes.filter((n) => !n.parent).map(nodeElement),
        ...nodes.filter((n) => n.parent).map(nodeElement),
        ...[...model.edges.values()].map((e) => ({
          group: "edges" as const,
          data: { id: e.id, source: e.source, target: e.target, ...(e.label ? { label: e.label } : {}) },
          classes: e.data?.indirect ? "indirect" : "",
        })),
      ]);
    });
    // Large graphs: skip edges and label work while the user pans and zooms, so it stays fluid.
    const renderer = cy as unknown as { renderer(): { hideEdgesOnViewport: boolean; textureOnViewport: boolean } };
    renderer.renderer().hideEdgesOnViewport = large;
    renderer.renderer().textureOnViewport = large;
    cy.layout({ name: "preset", positions: (node: cytoscape.NodeSingular) => positions![node.id()], fit: false, animate: false } as cytoscape.LayoutOptions).run();
    if (options.keepViewport) cy.viewport(viewport);
    else if (options.fit !== false) cy.fit(undefined, 30);
    await this.drawn();
    if (generation === this.generation) window.__tributaryRendered = performance.now();
  }

  currentPositions(): Positions {
    const positions: Positions = {};
    this.cy.nodes().forEach((node) => { if (!node.isParent()) positions[node.id()] = { ...node.position() }; });
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

  fit(): void {
    this.cy.fit(undefined, 30);
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
