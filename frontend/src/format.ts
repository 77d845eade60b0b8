// Small formatters for ids, times, durations and run states.

import type { QualityStatus, RunSummary } from "./api/types";

type RunState = RunSummary["state"];
/** The colour families: every run state the schema names (a new one fails the build here) except NEW,
 * which has nothing to show yet and is drawn like no run at all. */
export type StateKey = Exclude<RunState, "NEW"> | "UNKNOWN";

export const STATE_COLORS: Record<StateKey, string> = {
  COMPLETED: "#2da44e",
  FAILED: "#cf222e",
  RUNNING: "#1f6feb",
  ABORTED: "#bf8700",
  UNKNOWN: "#8c959f",
};

/** A dataset's data-quality status: its colour and the sign before its name (none when never checked). */
export const QUALITY_COLORS: Record<QualityStatus, string> = {
  failing: "#cf222e",
  warning: "#bf8700",
  passing: "#2da44e",
  unknown: "#8c959f",
};
export const QUALITY_MARKS: Record<QualityStatus, string> = { failing: "✗ ", warning: "! ", passing: "✓ ", unknown: "" };

/** The colour family of a run state; anything not known (no run, NEW) is UNKNOWN. */
export function stateKey(state: string | null | undefined): StateKey {
  return state && state in STATE_COLORS && state !== "UNKNOWN" ? (state as StateKey) : "UNKNOWN";
}

/** `dataset:ns:name` → `ns:name` (the type prefix is shown separately). */
export function idLabel(id: string): string {
  const colon = id.indexOf(":");
  return colon < 0 ? id : id.slice(colon + 1);
}

export function idType(id: string): string {
  const colon = id.indexOf(":");
  return colon < 0 ? "" : id.slice(0, colon);
}

export function datasetIdOf(namespace: string, name: string): string {
  return `dataset:${namespace}:${name}`;
}

export function fieldIdOf(namespace: string, dataset: string, field: string): string {
  return `datasetField:${namespace}:${dataset}:${field}`;
}

export function formatTime(value: string | null | undefined): string {
  if (!value) return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z").replace(/:00Z$/, "Z");
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
