// What the browser tests and the render benchmark read of a drawn graph, on `window`. Only a test build carries
// it (`npm run build:test`, and Vitest): `__TEST_HOOKS__` is false in the production build, which then drops
// every hook, and `npm run build` checks that no hook name is left (scripts/check-test-hooks.mjs).

import type cytoscape from "cytoscape";

/** True in a test build (Vite's `test` mode, vite.config.ts), false in production. */
declare const __TEST_HOOKS__: boolean;

declare global {
  interface Window {
    /** Test hook: `performance.now()` when the last graph was laid out and drawn (read by tests and the benchmark). */
    __tributaryRendered?: number;
    /** Test hook: what is drawn, and where, in page coordinates. */
    __tributaryGraph?: {
      nodeIds(): string[];
      nodePoint(id: string): { x: number; y: number } | null;
      zoom(): number;
      /** The label a node is drawn with, and its font size on screen in px at the current zoom (0 when not drawn). */
      nodeLabel(id: string): { text: string; screenFontPx: number } | null;
      /** The drawn edges' ids (`origin->destination`). */
      edgeIds(): string[];
      /** An edge's middle, in page coordinates (where to hover it). */
      edgePoint(id: string): { x: number; y: number } | null;
      /** The classes a node or edge is drawn with (`stale`, `added`, `removed`, `unchanged`, …). */
      classes(id: string): string[] | null;
      /** How an edge is drawn: its line style (`solid`, `dashed`, `dotted`) and colour. */
      edgeLine(id: string): { style: string; color: string } | null;
      /**
       * Where everything is drawn, in page coordinates: each node's box (a card's around its rows) and each label drawn
       * (of nodes and edges: an edge drawn without a label has none), with the canvas's own box.
       */
      boxes(): { canvas: Box; nodes: { id: string; kind: string; box: Box }[]; labels: { id: string; box: Box }[] };
    };
  }
}

/** A box on the page: left, top, right, bottom. */
export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Let tests ask `cy`, drawn in `container`, which nodes it shows, where and how labelled. */
export function graphHooksExpose(cy: cytoscape.Core, container: HTMLElement): void {
  if (!__TEST_HOOKS__) return;
  window.__tributaryGraph = {
    nodeIds: () => cy.nodes().map((n) => n.id()),
    nodePoint: (id) => {
      const node = cy.getElementById(id);
      if (node.empty()) return null;
      const box = container.getBoundingClientRect();
      const p = node.renderedPosition();
      return { x: box.left + p.x, y: box.top + p.y };
    },
    zoom: () => cy.zoom(),
    nodeLabel: (id) => {
      const node = cy.getElementById(id);
      if (node.empty()) return null;
      const text = String(node.style("label") ?? "");
      const fontPx = Number.parseFloat(String(node.style("font-size"))) * cy.zoom();
      const minimum = Number.parseFloat(String(node.style("min-zoomed-font-size"))) || 0;
      return { text, screenFontPx: text && fontPx >= minimum ? fontPx : 0 };
    },
    edgeIds: () => cy.edges().map((e) => e.id()),
    edgePoint: (id) => {
      const edge = cy.getElementById(id);
      if (edge.empty() || !edge.isEdge()) return null;
      const box = container.getBoundingClientRect();
      const p = edge.renderedMidpoint();
      return { x: box.left + p.x, y: box.top + p.y };
    },
    classes: (id) => {
      const element = cy.getElementById(id);
      return element.empty() ? null : element.classes();
    },
    edgeLine: (id) => {
      const edge = cy.getElementById(id);
      if (edge.empty() || !edge.isEdge()) return null;
      return { style: String(edge.style("line-style")), color: String(edge.style("line-color")) };
    },
    boxes: () => {
      const frame = container.getBoundingClientRect();
      const onPage = (b: cytoscape.BoundingBox12): Box => ({ x1: frame.left + b.x1, y1: frame.top + b.y1, x2: frame.left + b.x2, y2: frame.top + b.y2 });
      const nodes = cy.nodes().map((n) => ({
        id: n.id(), kind: String(n.data("kind")), box: onPage(n.renderedBoundingBox({ includeLabels: false, includeOverlays: false })),
      }));
      const labels = cy.elements().filter((e) => String(e.style("label") ?? "") !== "").map((e) => ({
        id: e.id(),
        box: onPage(e.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false })),
      }));
      return { canvas: { x1: frame.left, y1: frame.top, x2: frame.right, y2: frame.bottom }, nodes, labels };
    },
  };
}

/** The graph is gone: nothing to ask any more. */
export function graphHooksRemove(): void {
  if (!__TEST_HOOKS__) return;
  if (window.__tributaryGraph) delete window.__tributaryGraph;
}

/** A graph has just been laid out and drawn. */
export function graphRenderedMark(): void {
  if (!__TEST_HOOKS__) return;
  window.__tributaryRendered = performance.now();
}
