// The explorer's graph state: lineage responses merged into one node / edge set, and paths in it.

import type {
  Change, ColumnEdge, ColumnLineageDiff, ColumnLineageResponse, EdgeValidity, LineageNodeData, LineageResponse, NodeType,
} from "../api/types";
import { datasetShortName, jobShortName, middleEllipsis } from "./names";

export type { Change, EdgeValidity };

export interface GraphNode {
  id: string;
  type: NodeType | "DATASET_FIELD" | "DATASET_GROUP" | "CARD_HEAD" | "CLUSTER";
  label: string;
  data: Record<string, unknown>;
  parent?: string;
  /** In a diff between two instants: whether the node came, went or stayed. */
  change?: Change;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  label?: string;
  data?: Record<string, unknown>;
  /** When the edge held (answers that say so). */
  validity?: EdgeValidity;
  /** Drawn as stale: its job's completed runs had left it out by the instant looked at (now, or the place's `at`). */
  stale?: boolean;
  /** An input inferred from column lineage: the job's column lineage names the dataset, no event listed it as an input. */
  inferred?: boolean;
  /** In a diff between two instants: whether the edge came, went or stayed. */
  change?: Change;
  /** A job -> job edge a run declared (`jobDependencies`), not data flowing. */
  declared?: boolean;
  /** A job -> job edge standing for the temporary datasets it names (drawn only on request). */
  via?: string[];
  /** A job -> dataset edge: the part of the dataset (a partition) the job last wrote, and when. */
  lastSubset?: { subset: string; at: string | null };
}

/** The validity fields of an API edge, when it has them (an older server's edges have none). */
export function edgeValidity(edge: Partial<EdgeValidity>): EdgeValidity | undefined {
  if (edge.current === undefined) return undefined;
  return { firstSeen: edge.firstSeen ?? null, lastSeen: edge.lastSeen ?? null, current: edge.current, staleSince: edge.staleSince ?? null };
}

/** Whether an edge was stale at `at` (null: now): a graph as at an instant holds edges stale since, current then. */
export function staleAt(validity: EdgeValidity, at: string | null = null): boolean {
  if (at === null) return !validity.current;
  return validity.staleSince !== null && Date.parse(validity.staleSince) <= Date.parse(at);
}

/** The validity of an edge and whether it is drawn stale at `at`, as a graph edge's fields. */
function validityFields(validity: EdgeValidity | undefined, at: string | null): Pick<GraphEdge, "validity" | "stale"> {
  return validity ? { validity, stale: staleAt(validity, at) } : {};
}

/**
 * One edge standing for several (the edges of an application's actions, folded into it): current when one of them
 * is, seen first and last as the earliest and latest of them, stale since the latest of them when none is current.
 */
export function validityJoin(a: EdgeValidity | undefined, b: EdgeValidity | undefined): EdgeValidity | undefined {
  if (!a || !b) return a ?? b;
  const earliest = (x: string | null, y: string | null) => (x && y ? (x < y ? x : y) : x ?? y);
  const latest = (x: string | null, y: string | null) => (x && y ? (x > y ? x : y) : x ?? y);
  const current = a.current || b.current;
  return {
    firstSeen: earliest(a.firstSeen, b.firstSeen),
    lastSeen: latest(a.lastSeen, b.lastSeen),
    current,
    staleSince: current ? null : latest(a.staleSince, b.staleSince),
  };
}

/**
 * The change of a node or edge that several diffs (one per root) answer: there at `from` by one of them and at `to`
 * by one of them is unchanged, whatever each says alone.
 */
export function changeJoin(a: Change | undefined, b: Change | undefined): Change | undefined {
  if (!a || !b || a === b) return a ?? b;
  return "unchanged";
}

export interface GraphModel {
  nodes: Map<string, GraphNode>;
  edges: Map<string, GraphEdge>;
}

export function emptyModel(): GraphModel {
  return { nodes: new Map(), edges: new Map() };
}

export function edgeId(source: string, target: string): string {
  return `${source}->${target}`;
}

/** How a dataset or job node is labelled: its short name by its naming scheme (the full name is in its tooltip). */
export function nodeLabel(type: NodeType, data: Pick<LineageNodeData, "name" | "namespace" | "application">, id: string): string {
  if (!data.name) return id;
  return type === "DATASET" ? datasetShortName(data.namespace, data.name) : jobShortName(data.name, data.application);
}

/** What a node's tooltip says: its namespace and full name (a field: its dataset and name). */
export function fullName(node: GraphNode): string {
  const { namespace, name, dataset } = node.data as { namespace?: string; name?: string; dataset?: string };
  if (node.type === "DATASET_FIELD") return `${namespace ?? ""} ${dataset ?? ""} . ${name ?? ""}`.trim();
  return namespace && name ? `${namespace} ${name}` : name ?? node.id;
}

/**
 * Merge a lineage response into `model` (in place): new nodes and edges are added, a node
 * already present takes the newer data. Returns the ids of the nodes that were not there.
 * `at` is the instant the answer was asked as at (null: now), which its edges are drawn stale or not by.
 */
export function mergeLineage(model: GraphModel, response: LineageResponse | LineageLike, at: string | null = null): string[] {
  const added: string[] = [];
  for (const node of (response as LineageLike).graph) {
    if (!model.nodes.has(node.id)) added.push(node.id);
    const previous = model.nodes.get(node.id);
    const change = changeJoin(previous?.change, node.change);
    model.nodes.set(node.id, {
      id: node.id,
      type: node.type,
      label: nodeLabel(node.type, node.data, node.id),
      data: { ...(previous?.data ?? {}), ...node.data },
      ...(change ? { change } : {}),
    });
  }
  for (const node of (response as LineageLike).graph) {
    for (const edge of [...node.inEdges, ...node.outEdges]) {
      // An edge may name a node the response left out (it should not); draw only edges with both ends.
      if (!model.nodes.has(edge.origin) || !model.nodes.has(edge.destination)) continue;
      const id = edgeId(edge.origin, edge.destination);
      const previous = model.edges.get(id);
      const validity = edgeValidity(edge) ?? previous?.validity;
      const change = changeJoin(previous?.change, edge.change);
      const inferred = edge.inferred ?? previous?.inferred;
      const marks = {
        ...(inferred ? { inferred } : {}), ...(edge.declared ? { declared: true } : {}), ...(edge.via?.length ? { via: edge.via } : {}),
        ...(edge.lastSubset ? { lastSubset: { subset: edge.lastSubset, at: edge.lastSubsetAt ?? null } } : {}),
      };
      model.edges.set(id, {
        id, source: edge.origin, target: edge.destination, ...validityFields(validity, at), ...(change ? { change } : {}), ...marks,
      });
    }
  }
  return added;
}

/** A lineage answer, or a diff's (its nodes and edges each with a change, its edges with their validity). */
export interface LineageLike {
  graph: (Pick<LineageResponse["graph"][number], "id" | "type" | "data"> & {
    change?: Change;
    inEdges: LineageEdgeLike[];
    outEdges: LineageEdgeLike[];
  })[];
}

type LineageEdgeLike = {
  origin: string; destination: string; change?: Change; inferred?: boolean; declared?: boolean; via?: string[]; lastSubset?: string;
  lastSubsetAt?: string;
} & Partial<EdgeValidity>;

/** Remove a node and every edge that touches it. */
export function removeNode(model: GraphModel, id: string): void {
  model.nodes.delete(id);
  for (const [edgeKey, edge] of model.edges) if (edge.source === id || edge.target === id) model.edges.delete(edgeKey);
}

/**
 * Show application job `appId` as its action jobs: the application node leaves, and the action
 * jobs with their datasets (an action-level lineage answer around it) come in. Returns the ids
 * of the nodes that were not there.
 */
export function expandApplication(model: GraphModel, appId: string, actions: LineageResponse, at: string | null = null): string[] {
  removeNode(model, appId);
  return mergeLineage(model, actions, at);
}

/**
 * Fold the action jobs of application `app` back into it: each edge of an action is re-pointed
 * to the application (deduplicated), the action nodes leave. Returns the ids of the actions folded.
 */
export function collapseApplication(model: GraphModel, app: GraphNode): string[] {
  const actions = [...model.nodes.values()].filter((n) => n.data.application === app.id).map((n) => n.id);
  if (!actions.length) return [];
  const folded = new Set(actions);
  const edges = [...model.edges.values()];
  for (const id of actions) model.nodes.delete(id);
  model.nodes.set(app.id, { ...app, data: { ...app.data, actions } });
  for (const edge of edges) {
    if (!folded.has(edge.source) && !folded.has(edge.target)) continue;
    model.edges.delete(edge.id);
    const source = folded.has(edge.source) ? app.id : edge.source;
    const target = folded.has(edge.target) ? app.id : edge.target;
    const id = edgeId(source, target);
    if (source === target) continue;
    const previous = model.edges.get(id);
    const validity = validityJoin(previous?.validity, edge.validity);
    // Stale when every edge it stands for is.
    const stale = previous?.stale === undefined ? edge.stale : edge.stale === undefined ? previous.stale : previous.stale && edge.stale;
    // Inferred when every edge it stands for is.
    const inferred = previous ? previous.inferred && edge.inferred : edge.inferred;
    const declared = edge.declared || previous?.declared;
    const via = [...new Set([...(previous?.via ?? []), ...(edge.via ?? [])])];
    model.edges.set(id, {
      id, source, target, ...(validity ? { validity } : {}), ...(stale !== undefined ? { stale } : {}), ...(inferred ? { inferred } : {}),
      ...(declared ? { declared } : {}), ...(via.length ? { via } : {}),
    });
  }
  return actions;
}

/** The id of a dataset card's head (its name row, which expands and collapses the card). */
export function cardHeadId(datasetId: string): string {
  return `card:${datasetId}`;
}

/**
 * The column-lineage graph: one card per dataset (a compound node holding its head and its fields), edges field to
 * field with their transformation, job and validity. Every field of the answer is on the path (`data.onPath`).
 */
export function columnModel(response: ColumnLineageResponse | ColumnLineageDiff, at: string | null = null): GraphModel {
  const model = emptyModel();
  const graph: ColumnLike[] = response.graph;
  for (const node of graph) {
    const card = cardAdd(model, node.data.namespace, node.data.dataset);
    model.nodes.set(node.id, {
      id: node.id, type: "DATASET_FIELD", label: fieldLabel(node.data.name), parent: card, data: { ...node.data, onPath: true },
      ...(node.change ? { change: node.change } : {}),
    });
  }
  for (const node of graph) {
    for (const edge of [...node.inEdges, ...node.outEdges]) {
      if (!model.nodes.has(edge.origin) || !model.nodes.has(edge.destination)) continue;
      const id = edgeId(edge.origin, edge.destination);
      if (!model.edges.has(id)) {
        model.edges.set(id, {
          id, source: edge.origin, target: edge.destination, data: { ...edge },
          ...validityFields(edgeValidity(edge), at), ...(edge.change ? { change: edge.change } : {}),
        });
      }
    }
  }
  return model;
}

/** A field's drawn label: its name, a long one cut in the middle (the full name is in its tooltip). */
function fieldLabel(name: string): string {
  return middleEllipsis(name, 40);
}

/** The card of a dataset in a column model (added with its head row when missing); its id. */
function cardAdd(model: GraphModel, namespace: string, dataset: string): string {
  const id = `dataset:${namespace}:${dataset}`;
  if (!model.nodes.has(id)) {
    const label = datasetShortName(namespace, dataset);
    const data = { namespace, name: dataset };
    model.nodes.set(id, { id, type: "DATASET_GROUP", label, data });
    model.nodes.set(cardHeadId(id), { id: cardHeadId(id), type: "CARD_HEAD", label, parent: id, data: { ...data, card: id } });
  }
  return id;
}

/**
 * Add a dataset's other fields to its card in a column model (in place), as fields on no path of the answer; the
 * fields already there stay as they are, and the card is marked as holding all its fields (`data.allFields`). Returns
 * how many came.
 */
export function cardFieldsMerge(model: GraphModel, datasetId: string, fields: { name: string; type: string | null }[]): number {
  const card = model.nodes.get(datasetId);
  if (!card || card.type !== "DATASET_GROUP") return 0;
  const namespace = String(card.data.namespace), dataset = String(card.data.name);
  let added = 0;
  for (const field of fields) {
    const id = `datasetField:${namespace}:${dataset}:${field.name}`;
    if (model.nodes.has(id)) continue;
    model.nodes.set(id, {
      id, type: "DATASET_FIELD", label: fieldLabel(field.name), parent: datasetId,
      data: { namespace, dataset, name: field.name, type: field.type, onPath: false },
    });
    added++;
  }
  card.data = { ...card.data, allFields: true };
  return added;
}

type ColumnEdgeLike = ColumnEdge & Partial<EdgeValidity> & { change?: Change };
type ColumnLike = Omit<ColumnLineageResponse["graph"][number], "inEdges" | "outEdges"> & {
  change?: Change;
  inEdges: ColumnEdgeLike[];
  outEdges: ColumnEdgeLike[];
};

/** The edges reached from `start` along `edges`, following data flow (`forward`) or against it. */
export function reach<E extends { source: string; target: string }>(edges: E[], start: string, forward: boolean): E[] {
  const leaving = new Map<string, E[]>();
  for (const edge of edges) {
    const from = forward ? edge.source : edge.target;
    (leaving.get(from) ?? leaving.set(from, []).get(from)!).push(edge);
  }
  const seen = new Set([start]);
  const found: E[] = [];
  for (let queue = [start], i = 0; i < queue.length; i++) {
    for (const edge of leaving.get(queue[i]) ?? []) {
      found.push(edge);
      const to = forward ? edge.target : edge.source;
      if (!seen.has(to)) { seen.add(to); queue.push(to); }
    }
  }
  return found;
}

/** The column edges that feed or leave `fieldId`, directly or through other fields, split by side. */
export function columnSides(response: ColumnLineageResponse): { upstream: ColumnEdge[]; downstream: ColumnEdge[] } {
  const edges = new Map<string, { source: string; target: string; edge: ColumnEdge }>();
  for (const node of response.graph) {
    for (const e of [...node.inEdges, ...node.outEdges]) edges.set(edgeId(e.origin, e.destination), { source: e.origin, target: e.destination, edge: e });
  }
  const all = [...edges.values()];
  const side = (forward: boolean) => reach(all, response.nodeId, forward).map((each) => each.edge);
  return { upstream: side(false), downstream: side(true) };
}

/** A field's whole path in a graph: the field, every field upstream and downstream of it, and the edges between. */
export function fieldTrace(model: GraphModel, fieldId: string): { nodes: string[]; edges: string[] } {
  const all = [...model.edges.values()];
  const edges = [...reach(all, fieldId, false), ...reach(all, fieldId, true)];
  const nodes = new Set([fieldId]);
  for (const edge of edges) { nodes.add(edge.source); nodes.add(edge.target); }
  return { nodes: [...nodes], edges: edges.map((edge) => edge.id) };
}

/**
 * The shortest path between two nodes as a list of node ids: following data flow from `a` to `b`
 * or from `b` to `a` when one exists, else ignoring direction; null when they are not connected.
 */
export function shortestPath(model: GraphModel, a: string, b: string): string[] | null {
  if (!model.nodes.has(a) || !model.nodes.has(b)) return null;
  if (a === b) return [a];
  const out = new Map<string, string[]>();
  const into = new Map<string, string[]>();
  for (const edge of model.edges.values()) {
    (out.get(edge.source) ?? out.set(edge.source, []).get(edge.source)!).push(edge.target);
    (into.get(edge.target) ?? into.set(edge.target, []).get(edge.target)!).push(edge.source);
  }
  const forward = (id: string) => out.get(id) ?? [];
  const both = (id: string) => [...(out.get(id) ?? []), ...(into.get(id) ?? [])];
  const directed = bfs(a, b, forward);
  const reverse = bfs(b, a, forward);
  if (directed && reverse) return directed.length <= reverse.length ? directed : reverse.reverse();
  if (directed) return directed;
  if (reverse) return reverse.reverse();
  return bfs(a, b, both);
}

function bfs(start: string, goal: string, neighbours: (id: string) => string[]): string[] | null {
  const previous = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i];
    if (id === goal) break;
    for (const next of neighbours(id)) {
      if (!previous.has(next)) { previous.set(next, id); queue.push(next); }
    }
  }
  if (!previous.has(goal)) return null;
  const path: string[] = [];
  for (let at: string | null = goal; at !== null; at = previous.get(at) ?? null) path.push(at);
  return path.reverse();
}

/** Edge ids along a node path, whichever way each edge points. */
export function pathEdgeIds(model: GraphModel, path: string[]): string[] {
  const ids: string[] = [];
  for (let i = 0; i + 1 < path.length; i++) {
    const forward = edgeId(path[i], path[i + 1]);
    const backward = edgeId(path[i + 1], path[i]);
    if (model.edges.has(forward)) ids.push(forward);
    else if (model.edges.has(backward)) ids.push(backward);
  }
  return ids;
}
