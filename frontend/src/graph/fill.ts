// Spread a laid-out graph so that it fills the canvas it is fitted to: at the fit zoom (at most 1:1) the drawing is
// as wide and as tall as the canvas allows, the nodes keeping their size and the room between them growing.

import type { Point } from "./bands";

export interface FillInput {
  nodes: { id: string; width: number; height: number }[];
  positions: Record<string, Point>;
  routes: Record<string, Point[]>;
  canvas: { width: number; height: number };
}

/** What `GraphView.fit` leaves around the graph. */
const PADDING = 30;
/** Past this the room between nodes says nothing more: a small graph is not stretched into a sparse one. */
const MAX_SPREAD = 2.5;

/** The drawing's box: node boxes and the bends of routed edges. */
function extent({ nodes, positions, routes }: FillInput): { x1: number; y1: number; x2: number; y2: number } {
  let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
  for (const node of nodes) {
    const p = positions[node.id];
    if (!p) continue;
    x1 = Math.min(x1, p.x - node.width / 2); x2 = Math.max(x2, p.x + node.width / 2);
    y1 = Math.min(y1, p.y - node.height / 2); y2 = Math.max(y2, p.y + node.height / 2);
  }
  for (const points of Object.values(routes)) for (const p of points) {
    x1 = Math.min(x1, p.x); x2 = Math.max(x2, p.x); y1 = Math.min(y1, p.y); y2 = Math.max(y2, p.y);
  }
  return { x1, y1, x2, y2 };
}

/**
 * Positions and routes scaled about the drawing's centre, along each axis by as much as the canvas has room for at
 * the zoom the drawing is fitted at (never below 1, never past `MAX_SPREAD`).
 */
export function fillCanvas(input: FillInput): { positions: Record<string, Point>; routes: Record<string, Point[]> } {
  const box = extent(input);
  const width = box.x2 - box.x1, height = box.y2 - box.y1;
  if (!(width > 0 && height > 0) || input.canvas.width <= 0 || input.canvas.height <= 0) return input;
  const roomX = input.canvas.width - 2 * PADDING, roomY = input.canvas.height - 2 * PADDING;
  const zoom = Math.min(1, roomX / width, roomY / height);
  const scaleX = Math.min(MAX_SPREAD, Math.max(1, roomX / zoom / width));
  const scaleY = Math.min(MAX_SPREAD, Math.max(1, roomY / zoom / height));
  if (scaleX === 1 && scaleY === 1) return input;
  const cx = (box.x1 + box.x2) / 2, cy = (box.y1 + box.y2) / 2;
  const move = (p: Point): Point => ({ x: cx + (p.x - cx) * scaleX, y: cy + (p.y - cy) * scaleY });
  const positions: Record<string, Point> = {};
  for (const [id, p] of Object.entries(input.positions)) positions[id] = move(p);
  const routes: Record<string, Point[]> = {};
  for (const [id, points] of Object.entries(input.routes)) routes[id] = points.map(move);
  return { positions, routes };
}
