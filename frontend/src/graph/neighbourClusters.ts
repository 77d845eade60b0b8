// A hub's neighbours as the server counts them (a lineage answer's `clusters`): one node per cluster, joined to its
// hub, whose members come into the graph a page at a time (`GET /lineage/neighbours`) when it is clicked.

import type { LineageCluster, LineageNeighbours } from "../api/types";
import { edgeId, nodeLabel, removeNode, type GraphModel } from "./model";

/** The ids the server gives its clusters start so (a client-side grouping's start `cluster:`). */
export const NEIGHBOURS_PREFIX = "neighbours:";

/**
 * What a cluster node keeps: its hub (as recorded, to page with) and the node it is drawn on (the hub, or the application
 * an action job hub is drawn as), which of its neighbours, how many, how many are drawn, the next page.
 */
export interface NeighbourCluster {
  hub: string;
  drawnOn: string;
  direction: LineageCluster["direction"];
  namespace: string | null;
  memberType: LineageCluster["type"];
  count: number;
  failed: number;
  shown: number;
  next: string | null;
}

const NOUNS: Record<LineageCluster["type"], [string, string]> = { JOB: ["job", "jobs"], DATASET: ["dataset", "datasets"] };

/** "10,000 jobs · spark · 12 failing"; once pages are drawn, "9,900 more jobs · spark". */
export function neighbourClusterLabel(cluster: NeighbourCluster): string {
  const left = cluster.count - cluster.shown;
  const [one, many] = NOUNS[cluster.memberType];
  const failing = cluster.failed > 0 && cluster.shown === 0 ? ` · ${cluster.failed.toLocaleString("en")} failing` : "";
  const more = cluster.shown > 0 ? "more " : "";
  return `${left.toLocaleString("en")} ${more}${left === 1 ? one : many} · ${cluster.namespace ?? "all namespaces"}${failing}`;
}

/** The hub -> member edge (or member -> hub, upstream) of a cluster's direction. */
function towards(direction: LineageCluster["direction"], hub: string, other: string): [string, string] {
  return direction === "downstream" ? [hub, other] : [other, hub];
}

function edgeSet(model: GraphModel, [source, target]: [string, string]): void {
  const id = edgeId(source, target);
  if (!model.edges.has(id)) model.edges.set(id, { id, source, target });
}

/** Draw each of `clusters` whose hub is drawn as one node joined to its hub; one drawn already keeps its pages. */
export function neighbourClustersMerge(model: GraphModel, clusters: LineageCluster[] | undefined): void {
  for (const found of clusters ?? []) {
    if (!model.nodes.has(found.drawnOn) || model.nodes.has(found.id)) continue;
    const cluster: NeighbourCluster = {
      hub: found.nodeId, drawnOn: found.drawnOn, direction: found.direction, namespace: found.namespace, memberType: found.type,
      count: found.count, failed: found.failing, shown: 0, next: null,
    };
    model.nodes.set(found.id, {
      id: found.id, type: "CLUSTER", label: neighbourClusterLabel(cluster),
      data: { ...cluster, kind: "neighbours", name: found.namespace ?? "all namespaces" },
    });
    edgeSet(model, towards(found.direction, found.drawnOn, found.id));
  }
}

/** The cluster drawn as node `id`, or null. */
export function neighbourClusterOf(model: GraphModel, id: string): NeighbourCluster | null {
  const node = model.nodes.get(id);
  return node?.type === "CLUSTER" && node.data.kind === "neighbours" ? (node.data as unknown as NeighbourCluster) : null;
}

/**
 * Join `page` of cluster `id`'s members to the graph beside its hub; the cluster then counts those not drawn yet and
 * remembers the next page, or leaves once the last page is in. Returns the ids of the nodes that were not there.
 */
export function neighbourPageMerge(model: GraphModel, id: string, page: LineageNeighbours): string[] {
  const cluster = neighbourClusterOf(model, id);
  if (!cluster) return [];
  const added: string[] = [];
  for (const member of page.members) {
    if (!model.nodes.has(member.id)) {
      added.push(member.id);
      model.nodes.set(member.id, {
        id: member.id, type: member.type, label: nodeLabel(member.type, member.data, member.id), data: { ...member.data },
      });
    }
    edgeSet(model, towards(cluster.direction, cluster.drawnOn, member.id));
  }
  if (page.next === null) {
    removeNode(model, id);
    return added;
  }
  const next: NeighbourCluster = { ...cluster, shown: cluster.shown + page.members.length, next: page.next };
  const node = model.nodes.get(id)!;
  model.nodes.set(id, { ...node, label: neighbourClusterLabel(next), data: { ...node.data, ...next } });
  return added;
}
