// A fast layered layout for large lineage graphs (dagre takes seconds past a few hundred nodes):
// longest-path ranks, barycentre ordering sweeps, then neighbour-seeking rows without overlaps.
// Linear-ish in nodes + edges, so 1,000+ nodes lay out in tens of milliseconds.
// Nodes are numbered by their place in the input; each step below takes and returns arrays indexed by that number.

export interface LayeredInput {
  nodes: { id: string; width: number; height: number }[];
  edges: { source: string; target: string }[];
  nodesep?: number;
  ranksep?: number;
  sweeps?: number;
}

/** Each node's successors and predecessors. */
export interface Adjacency {
  out: number[][];
  into: number[][];
}

export function layeredLayout(input: LayeredInput): Record<string, { x: number; y: number }> {
  const { layers, graph } = orderedLayers(input);
  const x = columnXs(layers, input.nodes.map((node) => node.width), input.ranksep ?? 70);
  const y = rowYs(layers, graph.into, input.nodes.map((node) => node.height), input.nodesep ?? 16);
  const positions: Record<string, { x: number; y: number }> = {};
  input.nodes.forEach((node, v) => { positions[node.id] = { x: x[v], y: y[v] }; });
  return positions;
}

/**
 * The nodes (by their place in the input) in layers from upstream to downstream, each layer ordered to cross few
 * edges, with the graph they were ranked by.
 */
export function orderedLayers(input: LayeredInput): { layers: number[][]; graph: Adjacency } {
  const graph = adjacency(input);
  const layers = rankedLayers(withoutBackEdges(graph.out));
  orderBySweeps(layers, graph, input.nodes.length, input.sweeps ?? 4);
  return { layers, graph };
}

/** The edges between known nodes, each pair once, without self loops. */
function adjacency(input: LayeredInput): Adjacency {
  const n = input.nodes.length;
  const index = new Map(input.nodes.map((node, i) => [node.id, i]));
  const out: number[][] = Array.from({ length: n }, () => []);
  const into: number[][] = Array.from({ length: n }, () => []);
  const seenEdge = new Set<string>();
  for (const edge of input.edges) {
    const s = index.get(edge.source);
    const t = index.get(edge.target);
    if (s === undefined || t === undefined || s === t || seenEdge.has(`${s},${t}`)) continue;
    seenEdge.add(`${s},${t}`);
    out[s].push(t);
    into[t].push(s);
  }
  return { out, into };
}

/** Break cycles: an iterative DFS drops back edges from the ranking graph (lineage is nearly acyclic). */
function withoutBackEdges(out: number[][]): Adjacency {
  const n = out.length;
  const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
  const dagOut: number[][] = Array.from({ length: n }, () => []);
  const dagIn: number[][] = Array.from({ length: n }, () => []);
  for (let root = 0; root < n; root++) {
    if (state[root]) continue;
    const stack: [number, number][] = [[root, 0]];
    state[root] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [v, i] = top;
      if (i < out[v].length) {
        top[1]++;
        const w = out[v][i];
        if (state[w] === 1) continue; // back edge
        dagOut[v].push(w);
        dagIn[w].push(v);
        if (state[w] === 0) { state[w] = 1; stack.push([w, 0]); }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  return { out: dagOut, into: dagIn };
}

/** The nodes by layer: ranks along the longest path from the sources, in topological order (Kahn). */
function rankedLayers(dag: Adjacency): number[][] {
  const n = dag.out.length;
  const rank = new Int32Array(n);
  const pending = dag.into.map((preds) => preds.length);
  const order: number[] = [];
  for (let v = 0; v < n; v++) if (pending[v] === 0) order.push(v);
  for (let i = 0; i < order.length; i++) {
    const v = order[i];
    for (const w of dag.out[v]) {
      rank[w] = Math.max(rank[w], rank[v] + 1);
      if (--pending[w] === 0) order.push(w);
    }
  }
  // Sources sit just before their first consumer instead of all in column 0.
  for (let i = order.length - 1; i >= 0; i--) {
    const v = order[i];
    if (dag.into[v].length === 0 && dag.out[v].length) rank[v] = Math.min(...dag.out[v].map((w) => rank[w])) - 1;
  }
  const maxRank = n ? Math.max(...rank) : 0;
  const minRank = n ? Math.min(...rank) : 0;
  const layers: number[][] = Array.from({ length: maxRank - minRank + 1 }, () => []);
  // Initial order within a layer: depth-first discovery, which keeps subtrees together.
  for (const v of order) layers[rank[v] - minRank].push(v);
  return layers;
}

/** Reorder each layer in place by the mean place of its neighbours, alternately downstream and upstream. */
function orderBySweeps(layers: number[][], graph: Adjacency, n: number, sweeps: number): void {
  const pos = new Float64Array(n);
  layers.forEach((layer) => layer.forEach((v, i) => { pos[v] = i; }));
  const sweep = (down: boolean) => {
    const sequence = down ? layers : [...layers].reverse();
    for (const layer of sequence) {
      const bary = new Map<number, number>();
      for (const v of layer) {
        const neighbours = down ? graph.into[v] : graph.out[v];
        if (neighbours.length) {
          let sum = 0;
          for (const w of neighbours) sum += pos[w];
          bary.set(v, sum / neighbours.length);
        } else {
          bary.set(v, pos[v]);
        }
      }
      layer.sort((a, b) => bary.get(a)! - bary.get(b)! || pos[a] - pos[b]);
      layer.forEach((v, i) => { pos[v] = i; });
    }
  };
  for (let s = 0; s < sweeps; s++) sweep(s % 2 === 0);
}

/** x by layer: each column as wide as its widest node, `ranksep` apart. */
function columnXs(layers: number[][], width: number[], ranksep: number): Float64Array {
  const x = new Float64Array(width.length);
  let left = 0;
  for (const layer of layers) {
    const w = layer.reduce((m, v) => Math.max(m, width[v]), 0);
    for (const v of layer) x[v] = left + w / 2;
    left += w + ranksep;
  }
  return x;
}

/**
 * y seeks the mean of the placed neighbours upstream, then a forward pass removes overlaps and the layer is
 * re-centred on where it wanted to be.
 */
function rowYs(layers: number[][], into: number[][], height: number[], nodesep: number): Float64Array {
  const y = new Float64Array(height.length);
  const placed = new Uint8Array(height.length);
  for (const layer of layers) {
    let cursor = -Infinity;
    let wantedSum = 0;
    let actualSum = 0;
    for (const v of layer) {
      const want = wantedY(into[v].filter((w) => placed[w]), y, cursor, height[v]);
      const top = Math.max(want - height[v] / 2, cursor);
      y[v] = top + height[v] / 2;
      cursor = top + height[v] + nodesep;
      wantedSum += want;
      actualSum += y[v];
    }
    const shift = layer.length ? (wantedSum - actualSum) / layer.length : 0;
    for (const v of layer) { y[v] += shift; placed[v] = 1; }
  }
  return y;
}

/** Where a node would like to be: the mean y of its placed neighbours, else just below the previous node. */
function wantedY(neighbours: number[], y: Float64Array, cursor: number, height: number): number {
  if (!neighbours.length) return cursor === -Infinity ? 0 : cursor + height / 2;
  let want = 0;
  for (const w of neighbours) want += y[w];
  return want / neighbours.length;
}
