"""Cypher for impact analysis and root cause, as named, parameterised constants (one record per chunk)."""

from __future__ import annotations

from lineage_app.graph.model import Label, Rel
from lineage_app.graph.reads import FIND_NODES, HOPS

__all__ = ["DATASET_DETAILS", "DATASET_FIELDS", "DATASET_VERSIONS", "FIELD_DETAILS", "FIND_NODES", "HOPS",
           "JOB_DETAILS", "JOB_FAILURES"]

# The fields of each dataset: the seeds of column-level impact when a whole dataset changes.
DATASET_FIELDS = f"""
UNWIND $keys AS k
MATCH (:{Label.DATASET} {{key: k}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
RETURN collect(f.key) AS keys
"""

# Every run that wrote each dataset / ran each job, as [time, runId, state]: the caller keeps the latest.
DATASET_DETAILS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})
OPTIONAL MATCH (r:{Label.RUN})-[:{Rel.WROTE}]->(d)
WITH d, collect([coalesce(r.endedAt, r.lastEventTime, r.startedAt, ''), r.runId, r.state]) AS runs
RETURN collect({{key: d.key, nodeId: d.nodeId, namespace: d.namespace, name: d.name, runs: runs}}) AS rows
"""

JOB_DETAILS = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})
OPTIONAL MATCH (j)-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
WITH j, collect([coalesce(r.endedAt, r.lastEventTime, r.startedAt, ''), r.runId, r.state]) AS runs
RETURN collect({{key: j.key, nodeId: j.nodeId, namespace: j.namespace, name: j.name, runs: runs}}) AS rows
"""

FIELD_DETAILS = f"""
UNWIND $keys AS k
MATCH (f:{Label.FIELD} {{key: k}})
RETURN collect({{key: f.key, nodeId: f.nodeId, namespace: f.namespace, dataset: f.dataset, name: f.name,
       type: f.type}}) AS rows
"""

# ---- root cause ----

# Failed or aborted runs of each job: [key, at, runId, state, errorMessage].
JOB_FAILURES = f"""
UNWIND $keys AS k
MATCH (:{Label.JOB} {{key: k}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
WHERE r.state IN $states
RETURN collect([k, coalesce(r.endedAt, r.lastEventTime, r.startedAt, ''), r.runId, r.state,
       r.errorMessage]) AS rows
"""

# Every schema version of each dataset: [key, firstSeen, version, createdByRun, fieldNames, fieldTypes, order].
DATASET_VERSIONS = f"""
UNWIND $keys AS k
MATCH (:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
RETURN collect([k, v.firstSeen, v.version, v.createdByRun, v.fieldNames, v.fieldTypes,
       coalesce(v.firstKey, '')]) AS rows
"""
