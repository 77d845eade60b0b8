// Layered (dagre) layout of a lineage graph: pure, so it runs in the layout worker and in tests.

import dagre from "@dagrejs/dagre";
import { foldIntoBands, type Point } from "./bands";
import { layeredLayout } from "./layered";

/** Above this many nodes dagre's crossing reduction takes seconds; the fast layered layout takes over. */
export const DAGRE_MAX_NODES = 150;

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  parent?: string;
}

export interface LayoutRequest {
  id: number;
  nodes: LayoutNode[];
  edges: { source: string; target: string }[];
  rankdir?: "LR" | "TB";
  compound?: boolean;
  /** The canvas size the graph will be fitted to: a long chain is folded into bands to fill it. */
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
  if (!request.compound && request.nodes.length > DAGRE_MAX_NODES) {
    const positions = layeredLayout({ nodes: request.nodes, edges: request.edges, nodesep: 18, ranksep: RANKSEP });
    return { id: request.id, positions, routes: {}, bands: 1, millis: performance.now() - started };
  }
  const g = new dagre.graphlib.Graph({ multigraph: false, compound: Boolean(request.compound) });
  g.setGraph({
    rankdir: request.rankdir ?? "LR",
    nodesep: request.compound ? 12 : 18,
    ranksep: request.compound ? 90 : RANKSEP,
    edgesep: 8,
    marginx: 20,
    marginy: 20,
    ranker: request.nodes.length > 120 ? "longest-path" : "network-simplex",
  });
  g.setDefaultEdgeLabel(() => ({}));
  const parents = new Set(request.nodes.map((n) => n.parent).filter((p): p is string => Boolean(p)));
  for (const node of request.nodes) {
    g.setNode(node.id, parents.has(node.id) ? {} : { width: node.width, height: node.height });
  }
  if (request.compound) {
    for (const node of request.nodes) if (node.parent) g.setParent(node.id, node.parent);
  }
  for (const edge of request.edges) {
    if (g.hasNode(edge.source) && g.hasNode(edge.target) && edge.source !== edge.target) g.setEdge(edge.source, edge.target);
  }
  dagre.layout(g);
  const positions: LayoutResult["positions"] = {};
  for (const id of g.nodes()) {
    if (parents.has(id)) continue; // compound parents are sized by their children
    const node = g.node(id) as { x: number; y: number } | undefined;
    if (node) positions[id] = { x: node.x, y: node.y };
  }
  const routes: LayoutResult["routes"] = {};
  if (!request.compound) {
    // dagre routes long edges around the nodes in the ranks they pass: keep its bends.
    for (const e of g.edges()) {
      const points = (g.edge(e) as { points?: Point[] } | undefined)?.points ?? [];
      if (points.length > 3) routes[`${e.v}->${e.w}`] = points.slice(1, -1);
    }
  }
  if (request.compound || !request.canvas || (request.rankdir ?? "LR") !== "LR") {
    return { id: request.id, positions, routes, bands: 1, millis: performance.now() - started };
  }
  const folded = foldIntoBands({
    nodes: request.nodes, edges: request.edges, positions, routes, canvas: request.canvas, ranksep: RANKSEP,
  });
  return { id: request.id, ...folded, millis: performance.now() - started };
}
