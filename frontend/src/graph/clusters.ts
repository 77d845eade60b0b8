// Level of detail for very large answers: nodes grouped into clusters (datasets by namespace and
// directory or schema, action jobs by application, other jobs by namespace), each drawn as one
// node with its count, opened on demand. Edges between clusters are merged into one.

import type { GraphModel, GraphNode } from "./model";
import { edgeId, emptyModel } from "./model";
import { middleEllipsis, namespaceChip, namespaceScheme } from "./names";

/** Answers with more nodes than this open grouped into clusters. */
export const COLLAPSE_ABOVE = 500;
/** The finest grouping with at most this many clusters is chosen. */
const MAX_CLUSTERS = 80;
/** How many trailing directories are dropped from where a dataset lives: its own directory first. */
const COARSENESS = [0, 1, 2, 3, 4];

export const CLUSTER_PREFIX = "cluster:";

function pathLike(namespace: string, name: string): boolean {
  return name.includes("/") || ["file", "s3", "s3a", "gs", "hdfs", "abfss", "wasbs", "dbfs"].includes(namespaceScheme(namespace));
}

/** What a dataset is grouped by: its namespace and where it lives (its directory, or its schema),
 * with the last `coarseness` parts of that dropped. */
function datasetGroup(namespace: string, name: string, coarseness: number): { key: string; label: string } {
  if (pathLike(namespace, name)) {
    const all = name.split("/").filter(Boolean).slice(0, -1);
    const dirs = all.slice(0, Math.max(0, all.length - coarseness));
    const where = dirs.length ? `/${dirs.join("/")}` : "";
    return { key: `dataset|${namespace}|${where}`, label: where ? `…/${dirs.slice(-2).join("/")}` : namespaceChip(namespace) };
  }
  const all = name.split(".").slice(0, -1);
  const parts = all.slice(0, Math.max(0, all.length - coarseness));
  return { key: `dataset|${namespace}|${parts.join(".")}`, label: parts.length ? parts.join(".") : namespaceChip(namespace) };
}

function groupOf(node: GraphNode, coarseness: number): { key: string; label: string; kind: string } | null {
  const { namespace, name, application } = node.data as { namespace?: string; name?: string; application?: string | null };
  if (typeof namespace !== "string" || typeof name !== "string") return null;
  if (node.type === "JOB") {
    if (application) return { key: `application|${application}`, label: application.slice(application.lastIndexOf(":") + 1), kind: "actions" };
    return { key: `job|${namespace}`, label: namespaceChip(namespace), kind: "jobs" };
  }
  if (node.type === "DATASET") return { ...datasetGroup(namespace, name, coarseness), kind: "datasets" };
  return null;
}

export interface Clustering {
  /** Which cluster each clustered node is in. */
  clusterOf: Map<string, string>;
  clusters: Map<string, GraphNode>;
}

/**
 * Group the nodes of `model` into clusters: the finest grouping that makes at most
 * `MAX_CLUSTERS` clusters. Nodes in `keep` (the roots, the focus) are never clustered, nor is a
 * group of one.
 */
export function clusterNodes(model: GraphModel, keep: Set<string>): Clustering {
  let best: Map<string, { label: string; kind: string; members: string[] }> = new Map();
  for (const coarseness of COARSENESS) {
    const groups = new Map<string, { label: string; kind: string; members: string[] }>();
    for (const node of model.nodes.values()) {
      if (keep.has(node.id)) continue;
      const group = groupOf(node, coarseness);
      if (!group) continue;
      const found = groups.get(group.key) ?? groups.set(group.key, { label: group.label, kind: group.kind, members: [] }).get(group.key)!;
      found.members.push(node.id);
    }
    best = groups;
    if (groups.size <= MAX_CLUSTERS) break;
  }
  const clusterOf = new Map<string, string>();
  const clusters = new Map<string, GraphNode>();
  for (const [key, group] of best) {
    if (group.members.length < 2) continue;
    const id = `${CLUSTER_PREFIX}${key}`;
    const failed = group.members.filter((m) => {
      const data = model.nodes.get(m)!.data;
      return (data.latestRunState ?? data.lastRunState) === "FAILED";
    }).length;
    clusters.set(id, {
      id, type: "CLUSTER", label: `${middleEllipsis(group.label, 28)} (${group.members.length} ${group.kind})`,
      data: { members: group.members, kind: group.kind, failed, name: group.label },
    });
    for (const member of group.members) clusterOf.set(member, id);
  }
  return { clusterOf, clusters };
}

/**
 * What a very large model is drawn as, and which of its clusters the user opened: the grouping is
 * made once per model shape (`regroup` after it changes) and kept while clusters are opened.
 */
export class Grouping {
  private clustering: Clustering | null = null;
  private readonly open = new Set<string>();

  /** `model` as drawn: unchanged up to `COLLAPSE_ABOVE` nodes, else with its unopened clusters folded. */
  shown(model: GraphModel, keep: Set<string>): GraphModel {
    if (model.nodes.size <= COLLAPSE_ABOVE) return model;
    this.clustering ??= clusterNodes(model, keep);
    return clusteredModel(model, this.clustering, this.open);
  }

  /** The model changed shape: group it afresh next time, keeping open what was open. */
  regroup(): void {
    this.clustering = null;
  }

  /** Forget the grouping and every opened cluster (a different model). */
  reset(): void {
    this.clustering = null;
    this.open.clear();
  }

  /** Draw cluster `id` as its nodes; its node, or undefined when there is no such cluster. */
  openCluster(id: string): GraphNode | undefined {
    const cluster = this.clustering?.clusters.get(id);
    if (cluster) this.open.add(id);
    return cluster;
  }

  /** How many clusters are drawn folded, or 0 when the model is not grouped. */
  folded(): number {
    return this.clustering ? this.clustering.clusters.size - this.open.size : 0;
  }
}

/**
 * The model as drawn: every clustered node replaced by its cluster unless that cluster is in
 * `open`, edges re-pointed to what is drawn and merged.
 */
export function clusteredModel(model: GraphModel, clustering: Clustering, open: Set<string>): GraphModel {
  const shown = emptyModel();
  const drawnAs = (id: string) => {
    const cluster = clustering.clusterOf.get(id);
    return cluster && !open.has(cluster) ? cluster : id;
  };
  for (const node of model.nodes.values()) {
    const as = drawnAs(node.id);
    if (as === node.id) shown.nodes.set(node.id, node);
    else if (!shown.nodes.has(as)) shown.nodes.set(as, clustering.clusters.get(as)!);
  }
  for (const edge of model.edges.values()) {
    const source = drawnAs(edge.source), target = drawnAs(edge.target);
    if (source === target) continue;
    const id = edgeId(source, target);
    if (!shown.edges.has(id)) shown.edges.set(id, source === edge.source && target === edge.target ? edge : { id, source, target });
  }
  return shown;
}
