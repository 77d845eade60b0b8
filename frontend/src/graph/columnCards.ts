// The column view's dataset cards: which fields each card shows (the fields on the path, all of its fields, or only
// its name) and what is drawn of a column model for that.

import { cardHeadId, edgeId, emptyModel, type GraphModel, type GraphNode } from "./model";

/** What a card shows: the fields on the path (the default), all of its fields, or only its name. */
export type CardMode = "path" | "all" | "name";

/** A click on a card's head: its fields on the path → all of them → its name only → the fields on the path. */
export function cardModeNext(mode: CardMode): CardMode {
  return mode === "path" ? "all" : mode === "all" ? "name" : "path";
}

/** Whether a card in `mode` shows `field`. */
function fieldShown(field: GraphNode, mode: CardMode): boolean {
  return mode === "all" || (mode === "path" && field.data.onPath === true);
}

/** A card's head label: its short name, and what it leaves out when it shows less than its fields on the path. */
function headLabel(head: GraphNode, mode: CardMode, hidden: number): string {
  if (mode === "name") return `${head.label} (${hidden} field${hidden === 1 ? "" : "s"})`;
  return mode === "all" ? `${head.label} · all fields` : head.label;
}

/**
 * What the column view draws of `model`: every card with its head and the fields its mode shows; an edge of a field
 * its card does not show ends at that card's head instead (each pair of ends once).
 */
export function cardsShown(model: GraphModel, modeOf: (cardId: string) => CardMode): GraphModel {
  const shown = emptyModel();
  const endOf = new Map<string, string>();
  const hidden = new Map<string, number>();
  for (const node of model.nodes.values()) {
    if (node.type !== "DATASET_FIELD" || !node.parent) continue;
    const visible = fieldShown(node, modeOf(node.parent));
    endOf.set(node.id, visible ? node.id : cardHeadId(node.parent));
    if (!visible && node.data.onPath === true) hidden.set(node.parent, (hidden.get(node.parent) ?? 0) + 1);
  }
  for (const node of model.nodes.values()) {
    if (node.type === "CARD_HEAD" && node.parent) {
      shown.nodes.set(node.id, { ...node, label: headLabel(node, modeOf(node.parent), hidden.get(node.parent) ?? 0) });
    } else if (node.type !== "DATASET_FIELD" || endOf.get(node.id) === node.id) {
      shown.nodes.set(node.id, node);
    }
  }
  for (const edge of model.edges.values()) {
    const source = endOf.get(edge.source) ?? edge.source, target = endOf.get(edge.target) ?? edge.target;
    const id = edgeId(source, target);
    if (source === target || shown.edges.has(id)) continue;
    shown.edges.set(id, { ...edge, id, source, target });
  }
  return shown;
}
