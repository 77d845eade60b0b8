// The column view's card layout and the table view's spreading to the canvas: cards in layers, rows stacked in their
// card in the order that crosses least, a tall layer split into columns, nothing overlapping; a small graph spread.

import { describe, expect, it } from "vitest";
import { CARD_PADDING, RANK_GAP, cardLayout, type CardLayoutNode } from "../src/graph/cardLayout";
import { fillCanvas } from "../src/graph/fill";

const card = (id: string): CardLayoutNode => ({ id, width: 0, height: 0 });
const head = (cardId: string): CardLayoutNode => ({ id: `card:${cardId}`, parent: cardId, head: true, width: 160, height: 26 });
const row = (cardId: string, name: string): CardLayoutNode => ({ id: `${cardId}.${name}`, parent: cardId, width: 160, height: 22 });
const edge = (source: string, target: string) => ({ source, target });

type Box = { x1: number; y1: number; x2: number; y2: number };
const overlap = (a: Box, b: Box) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

/** Each card's box from its rows as placed, with its padding. */
function cardBoxes(nodes: CardLayoutNode[], positions: Record<string, { x: number; y: number }>): Map<string, Box> {
  const boxes = new Map<string, Box>();
  for (const node of nodes) {
    if (!node.parent) continue;
    const p = positions[node.id];
    const box = boxes.get(node.parent) ?? { x1: Infinity, y1: Infinity, x2: -Infinity, y2: -Infinity };
    boxes.set(node.parent, {
      x1: Math.min(box.x1, p.x - node.width / 2 - CARD_PADDING), x2: Math.max(box.x2, p.x + node.width / 2 + CARD_PADDING),
      y1: Math.min(box.y1, p.y - node.height / 2 - CARD_PADDING), y2: Math.max(box.y2, p.y + node.height / 2 + CARD_PADDING),
    });
  }
  return boxes;
}

describe("card layout", () => {
  const nodes = [
    card("raw"), head("raw"), row("raw", "a"), row("raw", "b"),
    card("clean"), head("clean"), row("clean", "b2"), row("clean", "a2"),
  ];

  it("puts upstream cards left of downstream ones, the head on top and rows in an order whose edges do not cross", () => {
    const positions = cardLayout({ nodes, edges: [edge("raw.a", "clean.a2"), edge("raw.b", "clean.b2")] });
    expect(positions["raw.a"].x + 160 / 2 + RANK_GAP).toBeLessThanOrEqual(positions["clean.a2"].x - 160 / 2 + 2 * CARD_PADDING + 1);
    expect(positions["card:raw"].y).toBeLessThan(Math.min(positions["raw.a"].y, positions["raw.b"].y));
    expect(positions["raw"]).toBeUndefined(); // a card is drawn around its rows
    // clean's rows came in the other order than raw's: one card is sorted to face the other.
    expect(positions["raw.a"].y < positions["raw.b"].y).toBe(positions["clean.a2"].y < positions["clean.b2"].y);
  });

  it("splits a layer of many cards into columns when that draws the graph larger on a wide canvas, without overlaps", () => {
    const targets = Array.from({ length: 9 }, (_, i) => `out${i}`);
    const wide = [card("wide"), head("wide"), row("wide", "id"),
      ...targets.flatMap((t) => [card(t), head(t), row(t, "id"), row(t, "row_hash")])];
    const edges = targets.map((t) => edge("wide.id", `${t}.id`));
    const positions = cardLayout({ nodes: wide, edges, canvas: { width: 1080, height: 700 } });
    const columns = new Set(targets.map((t) => Math.round(positions[`${t}.id`].x)));
    expect(columns.size).toBeGreaterThan(1);
    const boxes = [...cardBoxes(wide, positions).values()];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i], boxes[j])).toBe(false);
    const height = Math.max(...boxes.map((b) => b.y2)) - Math.min(...boxes.map((b) => b.y1));
    expect(height).toBeLessThanOrEqual(700 - 60);
  });
});

describe("filling the canvas", () => {
  it("spreads a small graph's nodes apart along both axes, keeping it within the canvas at 1:1", () => {
    const nodes = [{ id: "a", width: 100, height: 40 }, { id: "b", width: 100, height: 40 }, { id: "c", width: 100, height: 40 }];
    const positions = { a: { x: 0, y: 0 }, b: { x: 200, y: 0 }, c: { x: 200, y: 60 } };
    const filled = fillCanvas({ nodes, positions, routes: {}, canvas: { width: 1000, height: 700 } });
    expect(filled.positions.b.x - filled.positions.a.x).toBeGreaterThan(200);
    expect(filled.positions.c.y - filled.positions.b.y).toBeGreaterThan(60);
    const xs = nodes.map((n) => filled.positions[n.id].x);
    expect(Math.max(...xs) - Math.min(...xs) + 100).toBeLessThanOrEqual(1000 - 60);
  });

  it("never moves nodes closer, nor apart along the axis that already fills the canvas", () => {
    const nodes = [{ id: "a", width: 100, height: 40 }, { id: "b", width: 100, height: 40 }];
    const input = { nodes, positions: { a: { x: 0, y: 0 }, b: { x: 1000, y: 1400 } }, routes: {}, canvas: { width: 1000, height: 700 } };
    const filled = fillCanvas(input).positions;
    expect(filled.b.y - filled.a.y).toBeCloseTo(1400);
    expect(filled.b.x - filled.a.x).toBeGreaterThanOrEqual(1000);
  });
});
