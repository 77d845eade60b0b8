// The explorer's data: read API calls whose answers become the explorer's state.

import { api, type LineageShown, type LineageWhen } from "../../api/client";
import type {
  ColumnLineageDiff, ColumnLineageResponse, DatasetDetail, Level, LineageResponse, NearMissResponse, SchemaChange,
} from "../../api/types";
import { fieldIdOf } from "../../format";
import { emptyModel, mergeLineage, type GraphModel } from "../../graph/model";
import { neighbourClustersMerge } from "../../graph/neighbourClusters";
import { placeAt, staleShown, type ExplorerState } from "./state";

/** What a place asks of `GET /lineage` and `/column-lineage` about time: its instant, and whether stale edges too. */
export function placeWhen(place: ExplorerState): LineageWhen {
  return { at: placeAt(place) ?? undefined, includeStale: staleShown(place) };
}

/** What a place asks of `GET /lineage` to draw besides the recorded flow: its temporary datasets, or not. */
export function placeShown(place: ExplorerState): LineageShown {
  return { includeTemporary: place.temporary };
}

/** A table graph: the model drawn, whether the server cut it short, and in a comparison the schema changes between the instants. */
export interface TableLineage {
  model: GraphModel;
  truncated: boolean;
  schemaChanges?: SchemaChange[];
}

/** The table graph of a place: the lineage around each root (or, comparing, the diff around it), merged into one model. */
export async function tableLineageLoad({ place, signal }: { place: ExplorerState; signal: AbortSignal }): Promise<TableLineage> {
  const { time } = place;
  performance.mark("tributary:fetch-start");
  const diffs = time.kind === "compare"
    ? await Promise.all(place.roots.map((id) => api.lineageDiff(id, place.depth, place.direction, time.from, time.to, signal, place.level)))
    : null;
  const answers = diffs
    ?? await Promise.all(place.roots.map((id) => api.lineage(
      id, place.depth, place.direction, signal, place.level, placeWhen(place), placeShown(place),
    )));
  performance.mark("tributary:fetched");
  const model = emptyModel();
  for (const answer of answers) {
    mergeLineage(model, answer, placeAt(place));
    if ("clusters" in answer) neighbourClustersMerge(model, answer.clusters);
  }
  const truncated = answers.some((answer) => answer.truncated);
  if (!diffs) return { model, truncated };
  return { model, truncated, schemaChanges: schemaChangesJoin(diffs.flatMap((diff) => diff.schemaChanges)) };
}

/** Schema changes of several diffs, each dataset's once. */
export function schemaChangesJoin(changes: SchemaChange[]): SchemaChange[] {
  return [...new Map(changes.map((change) => [change.datasetId, change])).values()];
}

/** The nodes one hop around `id`, at a job level (`action` around an application: its action jobs with their datasets), at the place's time. */
export function neighboursLoad(
  { id, level, when = {}, shown = {}, signal }: { id: string; level: Level; when?: LineageWhen; shown?: LineageShown; signal: AbortSignal },
): Promise<LineageResponse> {
  return api.lineage(id, 1, "both", signal, level, when, shown);
}

/** The dataset the column view shows (its fields to pick from). */
export function columnDatasetLoad({ datasetId }: { datasetId: string }): Promise<DatasetDetail> {
  return api.dataset(datasetId);
}

/** The column lineage of the place's field of `detail`, with that field's id. */
export async function columnLineageLoad(
  { place, detail, field, signal }: { place: ExplorerState; detail: DatasetDetail; field: string; signal: AbortSignal },
): Promise<{ fieldId: string; answer: ColumnLineageResponse | ColumnLineageDiff }> {
  const fieldId = fieldIdOf(detail.namespace, detail.name, field);
  const { time } = place;
  const answer = time.kind === "compare"
    ? await api.columnLineageDiff(fieldId, place.depth, place.direction, time.from, time.to, signal)
    : await api.columnLineage(fieldId, place.depth, place.direction, signal, placeWhen(place));
  return { fieldId, answer };
}

/** Why two datasets are not connected: the server's nearest near-misses (another namespace, an alias, a similar name). */
export function nearMissLoad({ a, b, signal }: { a: string; b: string; signal: AbortSignal }): Promise<NearMissResponse> {
  return api.nearMiss(a, b, signal);
}

/** Whether a load failed only because it was aborted (the page was left). */
export function isAbort(error: unknown): boolean {
  return (error as Error).name === "AbortError";
}
