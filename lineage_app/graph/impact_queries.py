"""Cypher for impact analysis and root cause, as named, parameterised constants (one record per chunk)."""

from __future__ import annotations

from lineage_app.graph.model import Label, Rel, key_seek
from lineage_app.graph.reads import FIELD_SUMMARIES, SUMMARY_COLUMNS, node_columns

# The fields of each dataset: the seeds of column-level impact when a whole dataset changes.
FIELDS_OF_DATASETS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
{key_seek("d", Label.DATASET, "key")}
RETURN collect(f.key) AS keys
"""

# What a report shows of each asset, as (report field, node property): a dataset's and a job's
# latest run are kept on the node by the writes; a field's is its summary (`reads.SUMMARY_COLUMNS`).
_RUN_COLUMNS = (("lastRunState", "latestRunState"), ("lastRunTime", "latestRunTime"))
DETAIL_COLUMNS: dict[Label, tuple[tuple[str, str], ...]] = {
    Label.DATASET: (("key", "key"), ("nodeId", "nodeId"), ("namespace", "namespace"), ("name", "name"), *_RUN_COLUMNS),
    Label.JOB: (("key", "key"), ("nodeId", "nodeId"), ("namespace", "namespace"), ("name", "name"), *_RUN_COLUMNS),
    Label.FIELD: SUMMARY_COLUMNS[Label.FIELD],
}
DATASET_DETAILS = node_columns(Label.DATASET, DETAIL_COLUMNS[Label.DATASET])
JOB_DETAILS = node_columns(Label.JOB, DETAIL_COLUMNS[Label.JOB])
DETAILS = {Label.DATASET: DATASET_DETAILS, Label.JOB: JOB_DETAILS, Label.FIELD: FIELD_SUMMARIES}

# ---- root cause ----

# Failed or aborted runs of each job: {key, at, runId, state, message}.
JOB_FAILURES = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
{key_seek("j", Label.JOB, "key")}
WHERE r.state IN $states
RETURN collect({{key: k, at: coalesce(r.endedAt, r.lastEventTime, r.startedAt, ''), runId: r.runId,
       state: r.state, message: r.errorMessage}}) AS rows
"""

# Every schema version of each dataset: {key, firstSeen, version, createdByRun, fieldNames, fieldTypes, order}.
VERSIONS_OF_DATASETS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("d", Label.DATASET, "key")}
RETURN collect({{key: k, firstSeen: v.firstSeen, version: v.version, createdByRun: v.createdByRun,
       fieldNames: v.fieldNames, fieldTypes: v.fieldTypes, order: coalesce(v.firstKey, '')}}) AS rows
"""

# How many stale edges (of those a `Moment` leaves out: stale now, or stale at `$at`) lead on from
# the nodes with element ids `$ids`: the paths an impact answer left out, which `includeStale` adds.
STALE_EDGES_FROM = f"""
UNWIND $ids AS i
MATCH (a) WHERE elementId(a) = i
MATCH (a)-[e:{Rel.INPUT_TO}|{Rel.OUTPUTS}|{Rel.DERIVES}]->()
WHERE e.staleSince IS NOT NULL AND ($at IS NULL OR (e.firstSeen <= $at AND e.staleSince <= $at))
RETURN count(e) AS stale
"""
