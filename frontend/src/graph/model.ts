// The explorer's graph state: lineage responses merged into one node / edge set, and paths in it.

import type {
  Change, ColumnEdge, ColumnLineageDiff, ColumnLineageResponse, EdgeValidity, LineageNodeData, LineageResponse, NodeType,
} from "../api/types";
import { datasetShortName, jobShortName } from "./names";

export type { Change, EdgeValidity };

export interface GraphNode {
  id: string;
  type: NodeType | "DATASET_FIELD" | "DATASET_GROUP" | "CLUSTER";
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
  /** In a diff between two instants: whether the edge came, went or stayed. */
  change?: Change;
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
      model.edges.set(id, {
        id, source: edge.origin, target: edge.destination, ...validityFields(validity, at), ...(change ? { change } : {}),
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

type LineageEdgeLike = { origin: string; destination: string; change?: Change } & Partial<EdgeValidity>;

/** Remove a node and every edge that touches it. */
function removeNode(model: GraphModel, id: string): void {
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
    model.edges.set(id, { id, source, target, ...(validity ? { validity } : {}), ...(stale !== undefined ? { stale } : {}) });
  }
  return actions;
}

/** The column-lineage graph: one compound node per dataset holding its fields, edges labelled by transformation. */
export function columnModel(response: ColumnLineageResponse | ColumnLineageDiff, at: string | null = null): GraphModel {
  const model = emptyModel();
  const graph: ColumnLike[] = response.graph;
  for (const node of graph) {
    const group = `dataset:${node.data.namespace}:${node.data.dataset}`;
    if (!model.nodes.has(group)) {
      model.nodes.set(group, {
        id: group, type: "DATASET_GROUP", label: datasetShortName(node.data.namespace, node.data.dataset),
        data: { namespace: node.data.namespace, name: node.data.dataset },
      });
    }
    model.nodes.set(node.id, {
      id: node.id, type: "DATASET_FIELD", label: node.data.name, parent: group, data: { ...node.data },
      ...(node.change ? { change: node.change } : {}),
    });
  }
  for (const node of graph) {
    for (const edge of [...node.inEdges, ...node.outEdges]) {
      if (!model.nodes.has(edge.origin) || !model.nodes.has(edge.destination)) continue;
      const id = edgeId(edge.origin, edge.destination);
      if (!model.edges.has(id)) {
        model.edges.set(id, {
          id, source: edge.origin, target: edge.destination, label: transformationLabel(edge), data: { ...edge },
          ...validityFields(edgeValidity(edge), at), ...(edge.change ? { change: edge.change } : {}),
        });
      }
    }
  }
  return model;
}

type ColumnEdgeLike = ColumnEdge & Partial<EdgeValidity> & { change?: Change };
type ColumnLike = Omit<ColumnLineageResponse["graph"][number], "inEdges" | "outEdges"> & {
  change?: Change;
  inEdges: ColumnEdgeLike[];
  outEdges: ColumnEdgeLike[];
};

export function transformationLabel(edge: Pick<ColumnEdge, "transformation" | "subtype" | "indirect">): string {
  const kind = edge.transformation ?? (edge.indirect ? "INDIRECT" : "DIRECT");
  return edge.subtype ? `${kind}/${edge.subtype}` : kind;
}

/** The column edges that feed or leave `fieldId`, directly or through other fields, split by side. */
export function columnSides(response: ColumnLineageResponse): { upstream: ColumnEdge[]; downstream: ColumnEdge[] } {
  const edges = new Map<string, ColumnEdge>();
  for (const node of response.graph) for (const e of [...node.inEdges, ...node.outEdges]) edges.set(edgeId(e.origin, e.destination), e);
  const all = [...edges.values()];
  const reach = (forward: boolean): ColumnEdge[] => {
    const seen = new Set([response.nodeId]);
    const found: ColumnEdge[] = [];
    let frontier = [response.nodeId];
    while (frontier.length) {
      const next: string[] = [];
      for (const edge of all) {
        const [from, to] = forward ? [edge.origin, edge.destination] : [edge.destination, edge.origin];
        if (frontier.includes(from)) {
          if (!found.includes(edge)) found.push(edge);
          if (!seen.has(to)) { seen.add(to); next.push(to); }
        }
      }
      frontier = next;
    }
    return found;
  };
  return { upstream: reach(false), downstream: reach(true) };
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
