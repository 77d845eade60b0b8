// Fold a left-to-right layered layout into bands stacked top to bottom, so that a long chain
// fills a wide canvas at a readable zoom instead of becoming one thin line across it. Edges
// that cross from one band to a later one are routed through the gutters (between columns and
// between bands), never across a node.

export type Point = { x: number; y: number };

export interface BandInput {
  nodes: { id: string; width: number; height: number }[];
  edges: { source: string; target: string }[];
  positions: Record<string, Point>;
  /** Interior bend points of edges as the layout routed them, by `source->target`. */
  routes: Record<string, Point[]>;
  /** The canvas the graph will be fitted to (its shape decides how many bands pay off). */
  canvas: { width: number; height: number };
  ranksep: number;
}

export interface BandResult {
  positions: Record<string, Point>;
  routes: Record<string, Point[]>;
  bands: number;
}

const MAX_BANDS = 6;
const BAND_GAP = 56; // room between bands for the edges that wrap
const PADDING = 30; // what `GraphView.fit` leaves around the graph
/** More bands only when the graph is drawn this much larger for it. */
const WORTH_IT = 1.15;

interface Column {
  x: number;
  left: number;
  right: number;
  ids: string[];
}

function columnsOf(input: BandInput): Column[] {
  const byX = new Map<number, Column>();
  for (const node of input.nodes) {
    const p = input.positions[node.id];
    if (!p) continue;
    const key = Math.round(p.x);
    const column = byX.get(key) ?? { x: p.x, left: Infinity, right: -Infinity, ids: [] };
    column.left = Math.min(column.left, p.x - node.width / 2);
    column.right = Math.max(column.right, p.x + node.width / 2);
    column.ids.push(node.id);
    byX.set(key, column);
  }
  return [...byX.values()].sort((a, b) => a.x - b.x);
}

/** Split columns into `count` runs of about equal width (contiguous, in order). */
function split(columns: Column[], count: number): Column[][] {
  const total = columns[columns.length - 1].right - columns[0].left;
  const target = total / count;
  const bands: Column[][] = [[]];
  let start = columns[0].left;
  for (const column of columns) {
    const current = bands[bands.length - 1];
    if (current.length && column.right - start > target * 1.05 && bands.length < count) {
      bands.push([column]);
      start = column.left;
    } else {
      current.push(column);
    }
  }
  return bands;
}

/** Past this zoom a graph is as readable as it gets: folding it more buys nothing. */
const READABLE_ZOOM = 1;

function zoomFor(width: number, height: number, canvas: BandInput["canvas"]): number {
  const fit = Math.min((canvas.width - 2 * PADDING) / Math.max(width, 1), (canvas.height - 2 * PADDING) / Math.max(height, 1));
  return Math.min(fit, READABLE_ZOOM);
}

export function foldIntoBands(input: BandInput): BandResult {
  const unchanged = { positions: input.positions, routes: input.routes, bands: 1 };
  const columns = columnsOf(input);
  if (columns.length < 4 || input.canvas.width <= 0 || input.canvas.height <= 0) return unchanged;
  const heights = new Map(input.nodes.map((n) => [n.id, n.height]));
  const extent = (band: Column[]) => {
    let top = Infinity, bottom = -Infinity;
    for (const column of band) for (const id of column.ids) {
      const p = input.positions[id];
      const h = heights.get(id) ?? 0;
      top = Math.min(top, p.y - h / 2);
      bottom = Math.max(bottom, p.y + h / 2);
    }
    // The bends of edges that stay in the band (an edge leaving it is routed through the gutters).
    const inBand = new Set(band.flatMap((c) => c.ids));
    for (const [key, points] of Object.entries(input.routes)) {
      const arrow = key.indexOf("->");
      if (!inBand.has(key.slice(0, arrow)) || !inBand.has(key.slice(arrow + 2))) continue;
      for (const p of points) { top = Math.min(top, p.y); bottom = Math.max(bottom, p.y); }
    }
    return { top, bottom, left: band[0].left, right: band[band.length - 1].right };
  };

  let best = { count: 1, bands: [columns], zoom: 0 };
  for (let count = 1; count <= Math.min(MAX_BANDS, Math.floor(columns.length / 2)); count++) {
    const bands = count === 1 ? [columns] : split(columns, count);
    const boxes = bands.map(extent);
    const width = Math.max(...boxes.map((b) => b.right - b.left));
    const height = boxes.reduce((sum, b) => sum + (b.bottom - b.top), 0) + BAND_GAP * (bands.length - 1);
    const zoom = zoomFor(width, height, input.canvas);
    if (count === 1 || zoom > best.zoom * WORTH_IT) best = { count: bands.length, bands, zoom };
  }
  if (best.count === 1) return unchanged;

  // Move each band under the one before it, starting at the left edge of the first.
  const positions: Record<string, Point> = {};
  const bandOf = new Map<string, number>();
  const shifts: Point[] = [];
  const gaps: number[] = []; // y of the gutter below each band
  let top = 0;
  const originLeft = columns[0].left;
  best.bands.forEach((band, index) => {
    const box = extent(band);
    const shift = { x: originLeft - box.left, y: top - box.top };
    shifts.push(shift);
    for (const column of band) for (const id of column.ids) {
      const p = input.positions[id];
      positions[id] = { x: p.x + shift.x, y: p.y + shift.y };
      bandOf.set(id, index);
    }
    top += box.bottom - box.top + BAND_GAP;
    gaps.push(top - BAND_GAP / 2);
  });
  const columnOf = new Map<string, Column>();
  for (const column of columns) for (const id of column.ids) columnOf.set(id, column);

  const routes: Record<string, Point[]> = {};
  const leftGutter = originLeft - input.ranksep / 2;
  for (const edge of input.edges) {
    const key = `${edge.source}->${edge.target}`;
    const from = bandOf.get(edge.source), to = bandOf.get(edge.target);
    if (from === undefined || to === undefined) continue;
    if (from === to) {
      const shift = shifts[from];
      const points = input.routes[key];
      if (points) routes[key] = points.map((p) => ({ x: p.x + shift.x, y: p.y + shift.y }));
      continue;
    }
    const s = positions[edge.source], t = positions[edge.target];
    const sourceColumn = columnOf.get(edge.source)!, targetColumn = columnOf.get(edge.target)!;
    const exitX = sourceColumn.right + shifts[from].x + input.ranksep / 2;
    const entryX = targetColumn.left + shifts[to].x - input.ranksep / 2;
    // Down (or up) through the gutter next to the band, then along the gap between bands.
    const leave = to > from ? gaps[from] : gaps[from - 1] ?? -BAND_GAP / 2;
    const arrive = to > from ? gaps[to - 1] : gaps[to];
    routes[key] = leave === arrive
      ? [{ x: exitX, y: s.y }, { x: exitX, y: leave }, { x: entryX, y: leave }, { x: entryX, y: t.y }]
      : [{ x: exitX, y: s.y }, { x: exitX, y: leave }, { x: leftGutter, y: leave }, { x: leftGutter, y: arrive },
        { x: entryX, y: arrive }, { x: entryX, y: t.y }];
  }
  return { positions, routes, bands: best.count };
}

/**
 * Bend points as Cytoscape's `segments` edges take them: for each point, its weight along the
 * source → target line (0 at the source, 1 at the target) and its signed distance from that
 * line, with `edge-distances: node-position`.
 */
export function segmentsFor(source: Point, target: Point, points: Point[]): { weights: number[]; distances: number[] } | null {
  const dx = target.x - source.x, dy = target.y - source.y;
  const length2 = dx * dx + dy * dy;
  if (length2 < 1e-6 || !points.length) return null;
  const length = Math.sqrt(length2);
  const weights: number[] = [];
  const distances: number[] = [];
  for (const p of points) {
    const px = p.x - source.x, py = p.y - source.y;
    weights.push((px * dx + py * dy) / length2);
    // Cytoscape measures the distance towards the normal (dy, -dx) rotated the other way.
    distances.push((py * dx - px * dy) / length);
  }
  return { weights, distances };
}
