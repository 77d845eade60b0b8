// The fast layered layout's exact output on a few graphs, pinned so that its steps can be restructured without
// moving a node: a chain, a diamond, a cycle, parallel edges and strays, uneven sizes, two components, and a larger
// seeded random graph (pinned by a digest of every position).

import { describe, expect, it } from "vitest";
import { layeredLayout, type LayeredInput } from "../src/graph/layered";

const box = (id: string, width = 100, height = 30) => ({ id, width, height });
const edge = (source: string, target: string) => ({ source, target });

/** Positions as `id: x,y` lines, in the input's node order. */
function placed(input: LayeredInput): string {
  const positions = layeredLayout(input);
  return input.nodes.map(({ id }) => `${id}: ${positions[id].x},${positions[id].y}`).join("\n");
}

/** A deterministic pseudo-random number generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A lineage-like graph: mostly forward edges between nearby nodes, a few back edges, uneven node sizes. */
function randomGraph(seed: number, size: number): LayeredInput {
  const next = random(seed);
  const nodes = Array.from({ length: size }, (_, i) => box(`n${i}`, 60 + Math.floor(next() * 120), 24 + Math.floor(next() * 3) * 12));
  const edges: { source: string; target: string }[] = [];
  for (let i = 1; i < size; i++) {
    const inputs = 1 + Math.floor(next() * 3);
    for (let k = 0; k < inputs; k++) edges.push(edge(`n${Math.max(0, i - 1 - Math.floor(next() * 12))}`, `n${i}`));
    if (next() < 0.03) edges.push(edge(`n${i}`, `n${Math.floor(next() * i)}`));
  }
  return { nodes, edges };
}

/** FNV-1a of every position, to pin a large layout in one line. */
function digest(input: LayeredInput): string {
  let hash = 0x811c9dc5;
  for (const ch of placed(input)) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return hash.toString(16);
}

describe("layeredLayout output", () => {
  it("lays a chain out in one row", () => {
    expect(placed({ nodes: ["a", "b", "c"].map((id) => box(id)), edges: [edge("a", "b"), edge("b", "c")] })).toMatchInlineSnapshot(`
      "a: 50,0
      b: 220,0
      c: 390,0"
    `);
  });

  it("lays a diamond out with the two middle nodes stacked", () => {
    expect(placed({
      nodes: ["a", "b", "c", "d"].map((id) => box(id)),
      edges: [edge("a", "b"), edge("a", "c"), edge("b", "d"), edge("c", "d")],
    })).toMatchInlineSnapshot(`
      "a: 50,0
      b: 220,-23
      c: 220,23
      d: 390,0"
    `);
  });

  it("breaks a cycle and places sources just before their first consumer", () => {
    expect(placed({
      nodes: ["a", "b", "c", "d", "e", "late"].map((id) => box(id)),
      nodesep: 10,
      edges: [edge("a", "c"), edge("b", "c"), edge("c", "d"), edge("c", "e"), edge("e", "c"), edge("late", "e")],
    })).toMatchInlineSnapshot(`
      "a: 50,0
      b: 50,40
      c: 220,30
      d: 390,40
      e: 390,0
      late: 220,-10"
    `);
  });

  it("ignores self loops, repeated edges and edges to unknown nodes", () => {
    expect(placed({
      nodes: ["a", "b", "c"].map((id) => box(id)),
      edges: [edge("a", "a"), edge("a", "b"), edge("a", "b"), edge("b", "ghost"), edge("ghost", "c"), edge("a", "c")],
    })).toMatchInlineSnapshot(`
      "a: 50,0
      b: 220,-23
      c: 220,23"
    `);
  });

  it("sizes columns by their widest node and rows by each node's height, with the given gaps", () => {
    expect(placed({
      nodes: [box("wide", 240, 30), box("tall", 80, 90), box("x", 50, 20), box("y", 120, 40), box("z", 70, 30)],
      edges: [edge("wide", "x"), edge("tall", "x"), edge("tall", "y"), edge("x", "z"), edge("y", "z")],
      nodesep: 7,
      ranksep: 33,
    })).toMatchInlineSnapshot(`
      "wide: 120,0
      tall: 120,67
      x: 333,31.75
      y: 333,68.75
      z: 461,50.25"
    `);
  });

  it("lays two components and a lone node out side by side in their columns", () => {
    expect(placed({
      nodes: ["p1", "p2", "q1", "q2", "q3", "alone"].map((id) => box(id)),
      edges: [edge("p1", "p2"), edge("q1", "q2"), edge("q1", "q3")],
    })).toMatchInlineSnapshot(`
      "p1: 50,0
      p2: 220,-15.333333333333334
      q1: 50,46
      q2: 220,30.666666666666664
      q3: 220,76.66666666666667
      alone: 50,92"
    `);
  });

  it("orders a layer by barycentre sweeps and honours the sweep count", () => {
    const input: LayeredInput = {
      nodes: ["a", "b", "c", "x", "y", "z"].map((id) => box(id)),
      edges: [edge("a", "y"), edge("a", "x"), edge("b", "z"), edge("b", "y")],
    };
    expect(placed(input)).toMatchInlineSnapshot(`
      "a: 50,0
      b: 50,46
      c: 50,92
      x: 220,-23
      y: 220,23
      z: 220,69"
    `);
    expect(placed({ ...input, sweeps: 0 })).toMatchInlineSnapshot(`
      "a: 50,0
      b: 50,46
      c: 50,92
      x: 220,-23
      y: 220,69
      z: 220,23"
    `);
  });

  it("lays nothing out for an empty graph", () => {
    expect(layeredLayout({ nodes: [], edges: [] })).toEqual({});
  });

  it("places a 400-node lineage-like graph exactly as before", () => {
    expect(digest(randomGraph(7, 400))).toMatchInlineSnapshot(`"ee448b8d"`);
    expect(digest({ ...randomGraph(11, 150), nodesep: 18, ranksep: 90, sweeps: 6 })).toMatchInlineSnapshot(`"2b6fa30f"`);
  });
});
