"""Read statements for the lineage API, as named, parameterised constants."""

from __future__ import annotations

from lineage_app.graph.model import Label, Rel

FIND_DATASETS = f"UNWIND $keys AS k MATCH (n:{Label.DATASET} {{key: k}}) RETURN n.key AS key"
FIND_JOBS = f"UNWIND $keys AS k MATCH (n:{Label.JOB} {{key: k}}) RETURN n.key AS key"


def _hop(start: Label, rel: Rel, end: Label, *, forward: bool) -> str:
    pattern = f"(a)-[e:{rel}]->(b:{end})" if forward else f"(a)<-[e:{rel}]-(b:{end})"
    return (
        f"UNWIND $keys AS k MATCH (a:{start} {{key: k}}) MATCH {pattern} "
        "WHERE $asOf IS NULL OR e.firstSeen <= $asOf "
        "RETURN a.key AS source, b.key AS target"
    )


# One hop of dataset lineage, per node kind and direction (Dataset -INPUT_TO-> Job -OUTPUTS-> Dataset).
DOWNSTREAM_OF_DATASETS = _hop(Label.DATASET, Rel.INPUT_TO, Label.JOB, forward=True)
DOWNSTREAM_OF_JOBS = _hop(Label.JOB, Rel.OUTPUTS, Label.DATASET, forward=True)
UPSTREAM_OF_DATASETS = _hop(Label.DATASET, Rel.OUTPUTS, Label.JOB, forward=False)
UPSTREAM_OF_JOBS = _hop(Label.JOB, Rel.INPUT_TO, Label.DATASET, forward=False)

DATASET_SUMMARIES = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})
RETURN d.key AS key, d.nodeId AS nodeId, d.namespace AS namespace, d.name AS name,
       d.currentVersion AS currentVersion, d.fieldCount AS fieldCount,
       d.firstSeen AS firstSeen, d.lastSeen AS lastSeen
"""

JOB_SUMMARIES = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})
OPTIONAL MATCH (j)-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
WITH j, r ORDER BY r.lastEventTime DESC
WITH j, collect(r)[0] AS latest
RETURN j.key AS key, j.nodeId AS nodeId, j.namespace AS namespace, j.name AS name,
       j.jobType AS jobType, j.firstSeen AS firstSeen, j.lastSeen AS lastSeen,
       latest.runId AS latestRunId, latest.state AS latestRunState,
       latest.lastEventTime AS latestRunTime
"""

RUN_DETAIL = f"""
MATCH (r:{Label.RUN} {{runId: $runId}})
OPTIONAL MATCH (r)-[:{Rel.READ}]->(i:{Label.DATASET})
WITH r, collect(DISTINCT i.nodeId) AS inputs
OPTIONAL MATCH (r)-[:{Rel.WROTE}]->(o:{Label.DATASET})
WITH r, inputs, collect(DISTINCT o.nodeId) AS outputs
OPTIONAL MATCH (c:{Label.RUN})-[:{Rel.CHILD_OF}]->(r)
RETURN properties(r) AS run, inputs, outputs, collect(DISTINCT c.runId) AS children
"""
