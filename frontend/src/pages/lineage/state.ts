// The explorer's place, kept in the URL: roots, depth, direction, view, focused node and field, and when it looks
// (now, at an instant, or comparing two) with or without stale edges.

import { LINEAGE_MAX_DEPTH } from "../../api/limits";
import type { Direction, Level } from "../../api/types";
import { timeParams, timeParse, type TimeChoice } from "./time";

export type View = "table" | "column";

export interface ExplorerState {
  roots: string[];
  depth: number;
  direction: Direction;
  /** Application jobs with their actions rolled up (the default), or every action job. */
  level: Level;
  view: View;
  /** Draw every node of a very large answer instead of grouping it into clusters. */
  all: boolean;
  focus: string | null;
  field: string | null;
  /** Now (the default), the graph as it was at an instant, or the changes between two instants. */
  time: TimeChoice;
  /** Draw the edges no longer confirmed by their job's latest completed run too (dashed). */
  stale: boolean;
  /** Draw temporary datasets (`datasetType` subtype TEMPORARY) instead of job -> job edges through them. */
  temporary: boolean;
}

export const DEFAULT_DEPTH = 2;
const DIRECTIONS: Direction[] = ["upstream", "downstream", "both"];

export function parseState(params: URLSearchParams): ExplorerState {
  const depth = Number.parseInt(params.get("depth") ?? "", 10);
  const direction = params.get("direction") as Direction;
  const roots = [...new Set(params.getAll("nodeId").filter(Boolean))];
  return {
    roots,
    depth: Number.isFinite(depth) ? Math.max(0, Math.min(LINEAGE_MAX_DEPTH, depth)) : DEFAULT_DEPTH,
    direction: DIRECTIONS.includes(direction) ? direction : "both",
    level: params.get("level") === "action" ? "action" : "application",
    view: params.get("view") === "column" ? "column" : "table",
    all: params.get("all") === "1",
    focus: params.get("focus") || null,
    field: params.get("field") || null,
    time: timeParse(params),
    stale: params.get("stale") === "1",
    temporary: params.get("temporary") === "1",
  };
}

export function stateParams(state: ExplorerState): URLSearchParams {
  const params = new URLSearchParams();
  for (const root of state.roots) params.append("nodeId", root);
  params.set("depth", String(state.depth));
  params.set("direction", state.direction);
  if (state.level !== "application") params.set("level", state.level);
  if (state.view !== "table") params.set("view", state.view);
  if (state.all) params.set("all", "1");
  if (state.focus) params.set("focus", state.focus);
  if (state.field) params.set("field", state.field);
  timeParams(state.time, params);
  if (state.stale) params.set("stale", "1");
  if (state.temporary) params.set("temporary", "1");
  return params;
}

/** What identifies the table graph: the same key means the same fetched lineage. */
export function tableKey(state: ExplorerState): string {
  return JSON.stringify([state.roots, state.depth, state.direction, state.level, state.time, staleShown(state), state.temporary]);
}

/** The dataset whose columns the column view shows: the focused node if a dataset, else the first dataset root. */
export function columnDataset(state: ExplorerState): string | null {
  if (state.focus?.startsWith("dataset:")) return state.focus;
  return state.roots.find((root) => root.startsWith("dataset:")) ?? null;
}

/** Whether stale edges are asked for: a diff compares the graphs at two instants, stale edges have no part in it. */
export function staleShown(state: ExplorerState): boolean {
  return state.stale && state.time.kind !== "compare";
}

/** The instant the place looks at the graph as at; null: now (or a comparison, whose edges are drawn by their change). */
export function placeAt(state: ExplorerState): string | null {
  return state.time.kind === "at" ? state.time.at : null;
}
