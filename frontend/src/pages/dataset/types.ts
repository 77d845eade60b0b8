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

/** The current and former consumers of a dataset detail answer. A server before issue #21 names its consumers by
 * job id alone and has no former ones; both are read. */
export function consumersOf(detail: { consumers: unknown[]; formerConsumers?: unknown[] }): { current: DatasetConsumer[]; former: FormerConsumer[] } {
  const current = detail.consumers.map((consumer): DatasetConsumer => typeof consumer === "string"
    ? { jobId: consumer, namespace: "", name: "", lastSeen: null }
    : consumer as DatasetConsumer);
  return { current, former: (detail.formerConsumers ?? []) as FormerConsumer[] };
}
