// The read API's answers about lineage in time (issue #21), as the explorer reads them: edge validity on
// `GET /lineage`, and `GET /lineage/diff` (and `/column-lineage/diff`) between two instants.

import type { ColumnEdge, ColumnNode, Direction, EdgeValidity, LineageNode } from "../../api/types";


/** How a node or edge of a diff differs: in the graph at `to` but not at `from` (added), the reverse (removed), or in both. */
export type Change = "added" | "removed" | "unchanged";
export const CHANGES: readonly Change[] = ["added", "removed", "unchanged"];

export interface DiffEdge extends Partial<EdgeValidity> {
  origin: string;
  destination: string;
  change: Change;
}

/** A node of a diff: a node as `GET /lineage` (or `/column-lineage`) answers it, with its change and its edges' changes. */
export type DiffNode<N extends { inEdges: object[] } = LineageNode> = Omit<N, "inEdges" | "outEdges"> & {
  change: Change;
  inEdges: (N["inEdges"][number] & DiffEdge)[];
  outEdges: (N["inEdges"][number] & DiffEdge)[];
};

/** A field of a column-lineage diff, its edges with their transformation and change. */
export type ColumnDiffNode = DiffNode<ColumnNode> & { inEdges: (ColumnEdge & DiffEdge)[] };

export interface EdgeRef {
  origin: string;
  destination: string;
}

export interface SchemaChange {
  datasetId: string;
  fromVersion: string | null;
  toVersion: string | null;
  addedFields: string[];
  removedFields: string[];
  changedFields: { name: string; fromType: string | null; toType: string | null }[];
}

export interface DiffChanges {
  addedNodes: string[];
  removedNodes: string[];
  addedEdges: EdgeRef[];
  removedEdges: EdgeRef[];
}

/** `GET /lineage/diff`: one merged graph of the lineage at `from` and at `to`, each node and edge with its change. */
export interface LineageDiff<N extends { inEdges: object[] } = LineageNode> {
  nodeId: string;
  depth: number;
  direction: Direction;
  from: string;
  to: string;
  truncated: boolean;
  graph: DiffNode<N>[];
  changes: DiffChanges;
  schemaChanges: SchemaChange[];
}

/** `GET /column-lineage/diff`: the same for a field's column lineage. */
export type ColumnLineageDiff = LineageDiff<ColumnNode>;
