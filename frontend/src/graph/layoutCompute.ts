// Layered (dagre) layout of a lineage graph: pure, so it runs in the layout worker and in tests.

import dagre from "@dagrejs/dagre";
import { foldIntoBands, type Point } from "./bands";
import { cardLayout } from "./cardLayout";
import { fillCanvas } from "./fill";
import { layeredLayout } from "./layered";

/** Above this many nodes dagre's crossing reduction takes seconds; the fast layered layout takes over. */
export const DAGRE_MAX_NODES = 150;

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  parent?: string;
  /** A dataset card's head row (the column view), drawn above the card's fields. */
  head?: boolean;
}

export interface LayoutRequest {
  id: number;
  nodes: LayoutNode[];
  edges: { source: string; target: string }[];
  rankdir?: "LR" | "TB";
  /** The column view: dataset cards (compound nodes) holding a head and fields, laid out by `cardLayout`. */
  compound?: boolean;
  /** The canvas size the graph will be fitted to: a long chain is folded into bands, and the drawing spread, to fill it. */
  canvas?: { width: number; height: number };
}

export interface LayoutResult {
  id: number;
  positions: Record<string, Point>;
  /** Interior bend points of routed edges by `source->target`; an edge not listed is drawn straight. */
  routes: Record<string, Point[]>;
  bands: number;
  millis: number;
}

const RANKSEP = 70;

export function computeLayout(request: LayoutRequest): LayoutResult {
  const started = performance.now();
  const done = (placed: Pick<LayoutResult, "positions" | "routes">, bands = 1): LayoutResult =>
    ({ id: request.id, ...placed, bands, millis: performance.now() - started });
  if (request.compound) return done({ positions: cardLayout(request), routes: {} });
  if (request.nodes.length > DAGRE_MAX_NODES) {
    return done({ positions: layeredLayout({ nodes: request.nodes, edges: request.edges, nodesep: 18, ranksep: RANKSEP }), routes: {} });
  }
  const layered = dagreLayout(request);
  if (!request.canvas) return done(layered);
  const folded = (request.rankdir ?? "LR") === "LR"
    ? foldIntoBands({ nodes: request.nodes, edges: request.edges, ...layered, canvas: request.canvas, ranksep: RANKSEP })
    : { ...layered, bands: 1 };
  return done(fillCanvas({ nodes: request.nodes, positions: folded.positions, routes: folded.routes, canvas: request.canvas }), folded.bands);
}

/** dagre's layered layout: node centres, and the bends of the long edges it routed around the nodes they pass. */
function dagreLayout(request: LayoutRequest): Pick<LayoutResult, "positions" | "routes"> {
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({
    rankdir: request.rankdir ?? "LR",
    nodesep: 18,
    ranksep: RANKSEP,
    edgesep: 8,
    marginx: 20,
    marginy: 20,
    ranker: request.nodes.length > 120 ? "longest-path" : "network-simplex",
  });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of request.nodes) g.setNode(node.id, { width: node.width, height: node.height });
  for (const edge of request.edges) {
    if (g.hasNode(edge.source) && g.hasNode(edge.target) && edge.source !== edge.target) g.setEdge(edge.source, edge.target);
  }
  dagre.layout(g);
  const positions: LayoutResult["positions"] = {};
  for (const id of g.nodes()) {
    const node = g.node(id) as { x: number; y: number } | undefined;
    if (node) positions[id] = { x: node.x, y: node.y };
  }
  // dagre routes long edges around the nodes in the ranks they pass: keep its bends.
  const routes: LayoutResult["routes"] = {};
  for (const e of g.edges()) {
    const points = (g.edge(e) as { points?: Point[] } | undefined)?.points ?? [];
    if (points.length > 3) routes[`${e.v}->${e.w}`] = points.slice(1, -1);
  }
  return { positions, routes };
}
