// `GET /jobs/runs/<runId>/lineage` as the runs page reads it: what a run read and wrote, and how that changed
// from the job's previous completed run (issue #21).

/** A dataset a run read or wrote. */
export interface RunDataset {
  datasetId: string;
  namespace: string;
  name: string;
}

export interface RunLineageChanges {
  addedReads: string[];
  removedReads: string[];
  addedWrites: string[];
  removedWrites: string[];
}

export interface RunLineage {
  runId: string;
  jobId: string;
  state: string;
  startedAt: string | null;
  endedAt: string | null;
  reads: RunDataset[];
  writes: RunDataset[];
  /** The job's completed run before this one, which `changes` compares with; null for its first. */
  previousRunId: string | null;
  changes: RunLineageChanges;
}
