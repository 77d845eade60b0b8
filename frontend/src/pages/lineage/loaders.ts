// The explorer's data: read API calls whose answers become the explorer's state.

import { api } from "../../api/client";
import type { ColumnLineageResponse, DatasetDetail, Level, LineageResponse, NearMissResponse } from "../../api/types";
import { fieldIdOf } from "../../format";
import { emptyModel, mergeLineage, type GraphModel } from "../../graph/model";
import type { ExplorerState } from "./state";

/** The table graph of a place: the lineage around each root, merged into one model. */
export async function tableLineageLoad({ place, signal }: { place: ExplorerState; signal: AbortSignal }): Promise<{ model: GraphModel; truncated: boolean }> {
  performance.mark("tributary:fetch-start");
  const answers = await Promise.all(place.roots.map((id) => api.lineage(id, place.depth, place.direction, signal, place.level)));
  performance.mark("tributary:fetched");
  const model = emptyModel();
  for (const answer of answers) mergeLineage(model, answer);
  return { model, truncated: answers.some((answer) => answer.truncated) };
}

/** The nodes one hop around `id`, at a job level (`action` around an application: its action jobs with their datasets). */
export function neighboursLoad({ id, level, signal }: { id: string; level: Level; signal: AbortSignal }): Promise<LineageResponse> {
  return api.lineage(id, 1, "both", signal, level);
}

/** The dataset the column view shows (its fields to pick from). */
export function columnDatasetLoad({ datasetId }: { datasetId: string }): Promise<DatasetDetail> {
  return api.dataset(datasetId);
}

/** The column lineage of the place's field of `detail`, with that field's id. */
export async function columnLineageLoad(
  { place, detail, field, signal }: { place: ExplorerState; detail: DatasetDetail; field: string; signal: AbortSignal },
): Promise<{ fieldId: string; answer: ColumnLineageResponse }> {
  const fieldId = fieldIdOf(detail.namespace, detail.name, field);
  return { fieldId, answer: await api.columnLineage(fieldId, place.depth, place.direction, signal) };
}

/** Why two datasets are not connected: the server's nearest near-misses (another namespace, an alias, a similar name). */
export function nearMissLoad({ a, b, signal }: { a: string; b: string; signal: AbortSignal }): Promise<NearMissResponse> {
  return api.nearMiss(a, b, signal);
}

/** Whether a load failed only because it was aborted (the page was left). */
export function isAbort(error: unknown): boolean {
  return (error as Error).name === "AbortError";
}
