// The column view's layout: dataset cards in layers from upstream to downstream, each card's head on top and its
// fields stacked under it in the order that crosses the fewest edges. A layer taller than the canvas is split into
// several columns side by side when that draws the whole graph larger. Pure, so it runs in the layout worker.

import type { Point } from "./bands";
import { orderedLayers } from "./layered";

export interface CardLayoutNode {
  id: string;
  width: number;
  height: number;
  /** The card holding it (every node but the cards themselves). */
  parent?: string;
  /** The card's head row, drawn above its fields. */
  head?: boolean;
}

export interface CardLayoutInput {
  nodes: CardLayoutNode[];
  edges: { source: string; target: string }[];
  canvas?: { width: number; height: number };
}

/** Room between two layers of cards (the edges run there), between the columns of one split layer, and between two cards above one another. */
export const RANK_GAP = 120;
const COLUMN_GAP = 48;
const CARD_GAP = 22;
/** Room around a card's rows, as the renderer pads the card (`padding` of its compound node). */
export const CARD_PADDING = 6;
const ROW_GAP = 3;
/** What `GraphView.fit` leaves around the graph. */
const FIT_PADDING = 30;

interface Card {
  id: string;
  head: CardLayoutNode | null;
  fields: CardLayoutNode[];
  width: number;
  height: number;
}

export function cardLayout(input: CardLayoutInput): Record<string, Point> {
  const cards = cardsOf(input.nodes);
  const cardOf = new Map<string, string>();
  for (const card of cards.values()) for (const row of [card.head, ...card.fields]) if (row) cardOf.set(row.id, card.id);
  const list = [...cards.values()];
  const { layers } = orderedLayers({
    nodes: list,
    edges: input.edges.map((e) => ({ source: cardOf.get(e.source) ?? "", target: cardOf.get(e.target) ?? "" })),
  });
  const columns = layersSplit(layers.map((layer) => layer.map((i) => list[i])), input.canvas);
  const positions = cardsPlace(columns);
  rowsOrder(columns, input.edges, cardOf, positions);
  // A card is drawn around its rows: only they are placed.
  for (const id of cards.keys()) delete positions[id];
  return positions;
}

/** The cards of the input, each with its head and fields in input order, sized by its rows. */
function cardsOf(nodes: CardLayoutNode[]): Map<string, Card> {
  const cards = new Map<string, Card>();
  for (const node of nodes) if (!node.parent) cards.set(node.id, { id: node.id, head: null, fields: [], width: 0, height: 0 });
  for (const node of nodes) {
    const card = node.parent ? cards.get(node.parent) : undefined;
    if (!card) continue;
    if (node.head) card.head = node;
    else card.fields.push(node);
  }
  for (const card of cards.values()) {
    const rows = [card.head, ...card.fields].filter((row): row is CardLayoutNode => row !== null);
    card.width = Math.max(0, ...rows.map((row) => row.width)) + 2 * CARD_PADDING;
    card.height = rows.reduce((sum, row) => sum + row.height, 0) + ROW_GAP * Math.max(0, rows.length - 1) + 2 * CARD_PADDING;
  }
  return cards;
}

/** A layer split into `count` columns of about equal height, in its order. */
function layerColumns(layer: Card[], count: number): Card[][] {
  const total = layer.reduce((sum, card) => sum + card.height + CARD_GAP, 0);
  const columns: Card[][] = [[]];
  let height = 0;
  for (const card of layer) {
    if (columns[columns.length - 1].length && height + card.height / 2 > total / count && columns.length < count) {
      columns.push([]);
      height = 0;
    }
    columns[columns.length - 1].push(card);
    height += card.height + CARD_GAP;
  }
  return columns;
}

const stackHeight = (column: Card[]) => column.reduce((sum, card) => sum + card.height, 0) + CARD_GAP * Math.max(0, column.length - 1);
const stackWidth = (column: Card[]) => Math.max(0, ...column.map((card) => card.width));

/** How large the whole graph is drawn on `canvas` (at most 1:1) with each layer split into `counts[l]` columns. */
function zoomWith(layers: Card[][], counts: number[], canvas: { width: number; height: number }): number {
  let width = RANK_GAP * (layers.length - 1), height = 0;
  layers.forEach((layer, l) => {
    const columns = layerColumns(layer, counts[l]);
    width += columns.reduce((sum, column) => sum + stackWidth(column), 0) + COLUMN_GAP * (columns.length - 1);
    height = Math.max(height, ...columns.map(stackHeight));
  });
  return Math.min(1, (canvas.width - 2 * FIT_PADDING) / Math.max(width, 1), (canvas.height - 2 * FIT_PADDING) / Math.max(height, 1));
}

/**
 * The columns of cards from left to right, each tagged with its layer: a layer is split into more columns, the
 * tallest first, while that draws the graph larger on the canvas.
 */
function layersSplit(layers: Card[][], canvas: CardLayoutInput["canvas"]): { layer: number; cards: Card[] }[] {
  const counts = layers.map(() => 1);
  if (canvas && canvas.width > 0 && canvas.height > 0) {
    let zoom = zoomWith(layers, counts, canvas);
    for (;;) {
      const tallest = layers
        .map((layer, l) => ({ l, height: Math.max(...layerColumns(layer, counts[l]).map(stackHeight)) }))
        .filter(({ l }) => counts[l] < layers[l].length)
        .sort((a, b) => b.height - a.height)[0];
      if (!tallest) break;
      counts[tallest.l]++;
      const next = zoomWith(layers, counts, canvas);
      if (next <= zoom * 1.01) { counts[tallest.l]--; break; }
      zoom = next;
    }
  }
  return layers.flatMap((layer, l) => layerColumns(layer, counts[l]).map((cards) => ({ layer: l, cards })));
}

/** Each card's rows placed in its column: columns left to right, cards stacked and centred on y = 0. */
function cardsPlace(columns: { layer: number; cards: Card[] }[]): Record<string, Point> {
  const positions: Record<string, Point> = {};
  let left = 0;
  columns.forEach((column, c) => {
    if (c > 0) left += column.layer === columns[c - 1].layer ? COLUMN_GAP : RANK_GAP;
    const width = stackWidth(column.cards);
    let top = -stackHeight(column.cards) / 2;
    for (const card of column.cards) {
      rowsPlace(card, [card.head, ...card.fields], left + width / 2, top, positions);
      top += card.height + CARD_GAP;
    }
    left += width;
  });
  return positions;
}

/** Stack a card's rows from `top` down, centred on `x`. */
function rowsPlace(card: Card, rows: (CardLayoutNode | null)[], x: number, top: number, positions: Record<string, Point>): void {
  let y = top + CARD_PADDING;
  for (const row of rows) {
    if (!row) continue;
    positions[row.id] = { x, y: y + row.height / 2 };
    y += row.height + ROW_GAP;
  }
  positions[card.id] = { x, y: top + card.height / 2 };
}

/**
 * Order each card's fields by where the fields they are linked with stand (two sweeps over the columns, left to
 * right then right to left); fields linked with none keep their order, after the others.
 */
function rowsOrder(
  columns: { cards: Card[] }[], edges: CardLayoutInput["edges"], cardOf: Map<string, string>, positions: Record<string, Point>,
): void {
  const linked = new Map<string, string[]>();
  for (const { source, target } of edges) {
    if (cardOf.get(source) === cardOf.get(target)) continue;
    (linked.get(source) ?? linked.set(source, []).get(source)!).push(target);
    (linked.get(target) ?? linked.set(target, []).get(target)!).push(source);
  }
  const meanY = (id: string) => {
    const others = linked.get(id) ?? [];
    return others.length ? others.reduce((sum, other) => sum + positions[other].y, 0) / others.length : Infinity;
  };
  for (const sweep of [columns, [...columns].reverse()]) {
    for (const { cards } of sweep) {
      for (const card of cards) {
        const wanted = new Map(card.fields.map((field) => [field.id, meanY(field.id)]));
        card.fields = [...card.fields].sort((a, b) => ascending(wanted.get(a.id)!, wanted.get(b.id)!));
        rowsPlace(card, [card.head, ...card.fields], positions[card.id].x, positions[card.id].y - card.height / 2, positions);
      }
    }
  }
}

/** Numbers in ascending order, `Infinity` (no linked field) equal to itself. */
function ascending(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
