// The consumers of a dataset as `GET /datasets/detail` names them (issue #21): the jobs that read it now, and
// apart the ones that read it once and whose latest completed run no longer does.

export interface DatasetConsumer {
  jobId: string;
  namespace: string;
  name: string;
  lastSeen: string | null;
}

export interface FormerConsumer extends DatasetConsumer {
  staleSince: string | null;
}
