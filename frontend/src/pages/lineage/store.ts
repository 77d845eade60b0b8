// The explorer's state (its place, graph, path ends, expanded applications, grouping) and the transitions that change it.

import type { DatasetDetail, Direction, Level, LineageNeighbours, LineageResponse, SchemaChange } from "../../api/types";
import { CLUSTER_PREFIX, COLLAPSE_ABOVE, Grouping } from "../../graph/clusters";
import { cardModeNext, cardsShown, type CardMode } from "../../graph/columnCards";
import {
  cardHeadId, collapseApplication, edgeId, emptyModel, expandApplication, fieldTrace, mergeLineage, pathEdgeIds, shortestPath, type GraphModel, type GraphNode,
} from "../../graph/model";
import { NEIGHBOURS_PREFIX, neighbourClustersMerge, neighbourPageMerge } from "../../graph/neighbourClusters";
import type { Placement } from "../../graph/view";
import { columnDataset, placeAt, staleShown, tableKey, type ExplorerState, type View } from "./state";
import type { TimeChoice } from "./time";

/** What the user can ask the explorer for, from the toolbar, the graph or a panel. */
export type Intent =
  | { kind: "depth"; depth: number }
  | { kind: "direction"; direction: Direction }
  | { kind: "level"; level: Level }
  | { kind: "view"; view: View }
  | { kind: "time"; time: TimeChoice }
  | { kind: "stale"; stale: boolean }
  | { kind: "temporary"; temporary: boolean }
  | { kind: "open-root"; id: string }
  | { kind: "show-field"; datasetId: string; field: string }
  | { kind: "select"; id: string }
  | { kind: "deselect" }
  | { kind: "path-end"; id: string }
  | { kind: "clear-path" }
  | { kind: "expand"; id: string }
  | { kind: "expand-application"; id: string }
  | { kind: "collapse-application"; id: string }
  | { kind: "open-cluster"; id: string }
  | { kind: "more-neighbours"; id: string }
  | { kind: "show-all"; all: boolean }
  | { kind: "trace"; id: string | null }
  | { kind: "card-mode"; card: string; mode: CardMode }
  | { kind: "cards-mode"; mode: CardMode };

/** The intents that move the explorer to another place: a new history entry and a fresh load. */
export type PlaceIntent = Extract<
  Intent, { kind: "depth" | "direction" | "level" | "view" | "time" | "stale" | "temporary" | "open-root" | "show-field" }
>;

export function isPlaceIntent(intent: Intent): intent is PlaceIntent {
  return ["depth", "direction", "level", "view", "time", "stale", "temporary", "open-root", "show-field"].includes(intent.kind);
}

/** The place a place intent leads to; null when it leads nowhere new (the view or level already shown). */
export function placeAfter(place: ExplorerState, intent: PlaceIntent): ExplorerState | null {
  switch (intent.kind) {
    case "depth": return { ...place, depth: intent.depth };
    case "direction": return { ...place, direction: intent.direction };
    case "level": return place.level === intent.level ? null : { ...place, level: intent.level };
    case "view": return place.view === intent.view ? null : { ...place, view: intent.view };
    case "time": return JSON.stringify(place.time) === JSON.stringify(intent.time) ? null : { ...place, time: intent.time };
    case "stale": return place.stale === intent.stale ? null : { ...place, stale: intent.stale };
    case "temporary": return place.temporary === intent.temporary ? null : { ...place, temporary: intent.temporary };
    case "open-root": return { ...place, roots: [intent.id], focus: intent.id };
    case "show-field": return { ...place, view: "column", focus: intent.datasetId, field: intent.field };
  }
}

/** Whether the place names something to draw: a root, or in the column view a dataset. */
export function placeHasSubject(place: ExplorerState): boolean {
  return place.roots.length > 0 || (place.view === "column" && columnDataset(place) !== null);
}

/**
 * What a click on a drawn node asks for: open a cluster, mark a path end (shift) or select it; in the column view,
 * trace a field's path, or show more or less of a card (a click on its head).
 */
export function tapIntent(place: ExplorerState, model: GraphModel, id: string, shift: boolean, cardMode: (card: string) => CardMode): Intent | null {
  if (id.startsWith(CLUSTER_PREFIX)) return { kind: "open-cluster", id };
  if (id.startsWith(NEIGHBOURS_PREFIX)) return { kind: "more-neighbours", id };
  if (place.view === "column") {
    const node = model.nodes.get(id);
    if (node?.type === "DATASET_FIELD") return { kind: "trace", id };
    if (node?.type === "CARD_HEAD" && node.parent) return { kind: "card-mode", card: node.parent, mode: cardModeNext(cardMode(node.parent)) };
    return null;
  }
  return shift ? { kind: "path-end", id } : { kind: "select", id };
}

/** The path ends after a shift-click on `id`: a second click drops it, a third end replaces the oldest. */
export function pathEndsAfter(ends: string[], id: string): string[] {
  return ends.includes(id) ? ends.filter((end) => end !== id) : [...ends.slice(-1), id];
}

/** What the path ends come to in `model`: no end, one end, two ends with no path, or the path with its edges. */
export type PathState =
  | { kind: "none" }
  | { kind: "start"; from: string }
  | { kind: "no-path"; from: string; to: string }
  | { kind: "path"; nodes: string[]; edges: string[] };

export function pathState(model: GraphModel, ends: string[]): PathState {
  const [from, to] = ends;
  if (from === undefined) return { kind: "none" };
  if (to === undefined) return { kind: "start", from };
  const nodes = shortestPath(model, from, to);
  return nodes ? { kind: "path", nodes, edges: pathEdgeIds(model, nodes) } : { kind: "no-path", from, to };
}

/** A drawn graph kept across page renders, so table ⇄ column and back / forward return to the same picture. */
export interface Picture {
  key: string;
  truncated: boolean;
  model: GraphModel;
  /** A comparison's schema changes between its two instants (the rest of what changed is marked in `model`). */
  schemaChanges?: SchemaChange[];
  placement: Placement | null;
  viewport: { zoom: number; pan: { x: number; y: number } };
}

export function pictureNew(key: string, model: GraphModel, truncated: boolean, schemaChanges?: SchemaChange[]): Picture {
  return { key, model, truncated, ...(schemaChanges ? { schemaChanges } : {}), placement: null, viewport: { zoom: 1, pan: { x: 0, y: 0 } } };
}

const pictures: Record<View, Map<string, Picture>> = { table: new Map(), column: new Map() };

/** What identifies the column graph: the same key means the same fetched column lineage. */
export function columnKey(place: ExplorerState): string {
  return JSON.stringify([columnDataset(place), place.field, place.depth, place.direction, place.time, staleShown(place)]);
}

export function pictureKey(place: ExplorerState): string {
  return place.view === "table" ? tableKey(place) : columnKey(place);
}

/** The explorer's state for one page render; every change to it goes through these methods. */
export class ExplorerStore {
  model: GraphModel = emptyModel();
  pathEnds: string[] = [];
  /** Application nodes the user expanded into their actions, kept to fold them back. */
  private readonly expanded = new Map<string, GraphNode>();
  /** Very large answers are drawn grouped into clusters; the ones the user opened are drawn as their nodes. */
  readonly grouping = new Grouping();
  /** The column view: what each dataset card shows (the fields on the path unless set), and the field whose path is traced. */
  private readonly cardModes = new Map<string, CardMode>();
  /** The column view's field (whose lineage is drawn), and the field whose path is traced (that one unless another was clicked). */
  columnRoot: string | null = null;
  traced: string | null = null;
  /** The column view's dataset (its fields to pick from). */
  columnDetail: DatasetDetail | null = null;

  constructor(public place: ExplorerState) {}

  /** Move to another place; a different job level forgets the expanded applications. */
  placeSet(next: ExplorerState): void {
    if (next.level !== this.place.level) this.expanded.clear();
    this.place = next;
  }

  focusSet(focus: string | null): void {
    this.place = { ...this.place, focus };
  }

  /** The kept picture of the current place, if it was drawn before. */
  picture(): Picture | undefined {
    return pictures[this.place.view].get(pictureKey(this.place));
  }

  pictureKeep(view: View, picture: Picture): void {
    pictures[view].set(picture.key, picture);
  }

  /** Show a picture's model: a different model is grouped afresh. */
  modelShow(model: GraphModel): void {
    if (model !== this.model) this.grouping.reset();
    this.model = model;
  }

  /** The path ends still drawn, after a load. */
  pathEndsKeepDrawn(): void {
    this.pathEnds = this.pathEnds.filter((id) => this.model.nodes.has(id));
  }

  pathEndToggle(id: string): void {
    this.pathEnds = pathEndsAfter(this.pathEnds, id);
  }

  pathClear(): void {
    this.pathEnds = [];
  }

  /** Whether the answer is drawn grouped into clusters. */
  clustered(): boolean {
    return this.place.view === "table" && !this.place.all && this.model.nodes.size > COLLAPSE_ABOVE;
  }

  /** What is drawn: the model, with its unopened clusters folded, or in the column view each card as its mode shows it. */
  displayed(): GraphModel {
    if (this.place.view === "column") return cardsShown(this.model, (card) => this.cardMode(card));
    const keep = new Set([...this.place.roots, ...(this.place.focus ? [this.place.focus] : [])]);
    return this.clustered() ? this.grouping.shown(this.model, keep) : this.model;
  }

  cardMode(card: string): CardMode {
    return this.cardModes.get(card) ?? "path";
  }

  /** Set what `cards` show (every card with none named); the cards that newly show all their fields. */
  cardModeSet(mode: CardMode, cards: string[] = this.cards()): string[] {
    const opened = cards.filter((card) => mode === "all" && this.cardMode(card) !== "all");
    for (const card of cards) this.cardModes.set(card, mode);
    return opened;
  }

  /** The column view's dataset cards. */
  cards(): string[] {
    return [...this.model.nodes.values()].filter((node) => node.type === "DATASET_GROUP").map((node) => node.id);
  }

  /** A fresh column view of `field`: every card shows its fields on the path, and `field`'s path is traced. */
  columnsReset(field: string | null): void {
    this.cardModes.clear();
    this.columnRoot = field;
    this.traced = field;
  }

  /** Trace the path of `field` (null: of the column view's own field). */
  traceSet(field: string | null): void {
    this.traced = field ?? this.columnRoot;
  }

  /**
   * The traced field's path as drawn (a field its card does not show stands there as the card's head), and what else is
   * drawn, to fade; null when no field is traced.
   */
  traceMarks(): { path: string[]; rest: string[] } | null {
    if (!this.traced || !this.model.nodes.has(this.traced)) return null;
    const shown = this.displayed();
    const drawnAs = (id: string) => shown.nodes.has(id) ? id : cardHeadId(String(this.model.nodes.get(id)?.parent));
    const trace = fieldTrace(this.model, this.traced);
    const path = new Set(trace.nodes.map(drawnAs));
    for (const id of trace.edges) {
      const edge = this.model.edges.get(id)!;
      path.add(edgeId(drawnAs(edge.source), drawnAs(edge.target)));
    }
    const rest = [...shown.nodes.values()].filter((n) => n.type === "DATASET_FIELD" && !path.has(n.id)).map((n) => n.id);
    rest.push(...[...shown.edges.keys()].filter((id) => !path.has(id)));
    return { path: [...path], rest };
  }

  /** Draw every node (`all`) or group a very large answer again. */
  allSet(all: boolean): void {
    this.place = { ...this.place, all };
    this.grouping.reset();
  }

  /** Merge the neighbours of a node into the model; the ids of the nodes that were not there. */
  neighboursMerge(answer: LineageResponse): string[] {
    const added = mergeLineage(this.model, answer, placeAt(this.place));
    neighbourClustersMerge(this.model, answer.clusters);
    if (added.length) this.grouping.regroup();
    return added;
  }

  /** Join a page of a cluster's members (`GET /lineage/neighbours`) to the graph; the ids of the nodes added. */
  neighbourPageMerge(id: string, page: LineageNeighbours): string[] {
    const added = neighbourPageMerge(this.model, id, page);
    this.grouping.regroup();
    return added;
  }

  /** The action jobs an application job node stands for in the graph (empty for other nodes). */
  actionsOf(id: string): string[] {
    const actions = this.model.nodes.get(id)?.data.actions;
    return Array.isArray(actions) ? actions.map(String) : [];
  }

  /** The application an expanded action job node belongs to, when it can be folded back into it. */
  applicationOf(id: string): string | null {
    const app = this.model.nodes.get(id)?.data.application;
    return typeof app === "string" && this.expanded.has(app) ? app : null;
  }

  /** Whether `appId` can be shown as its actions: the table view, not comparing, and an application node with actions. */
  canExpandApplication(appId: string): boolean {
    return this.place.view === "table" && !this.comparing() && this.actionsOf(appId).length > 0;
  }

  /** Whether the graph drawn is a diff between two instants: it is drawn as answered, never grown around a node. */
  comparing(): boolean {
    return this.place.time.kind === "compare";
  }

  /** Replace an application node by its action jobs (an action-level answer around it); focus moves to the first action. */
  applicationExpand(appId: string, answer: LineageResponse): string[] {
    const app = this.model.nodes.get(appId);
    if (!app) return [];
    this.expanded.set(appId, app);
    const actions = answer.graph.filter((node) => node.data.application === appId).map((node) => node.id);
    expandApplication(this.model, appId, answer, placeAt(this.place));
    this.grouping.regroup();
    this.focusSet(actions[0] ?? null);
    return actions;
  }

  /** Fold the action jobs of an expanded application back into its one node; the application, or null if not expanded. */
  applicationCollapse(appId: string): GraphNode | null {
    const app = this.expanded.get(appId);
    if (!app) return null;
    this.expanded.delete(appId);
    collapseApplication(this.model, app);
    this.grouping.regroup();
    this.focusSet(appId);
    return app;
  }

  /**
   * What a double click on a drawn node asks for: fold an action into its application, or expand an application; in
   * the column view, draw a field's own column lineage.
   */
  doubleTapIntent(id: string): Intent | null {
    const node = this.model.nodes.get(id);
    if (this.place.view === "column") {
      return node?.type === "DATASET_FIELD" ? { kind: "show-field", datasetId: String(node.parent), field: String(node.data.name) } : null;
    }
    if (this.comparing()) return null;
    const app = this.applicationOf(id);
    if (app) return { kind: "collapse-application", id: app };
    return this.actionsOf(id).length ? { kind: "expand-application", id } : null;
  }
}
