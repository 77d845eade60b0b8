"""Read statements for the lineage API, as named, parameterised constants.

Every statement here runs unchanged on Neo4j 5 and on the embedded ArcadeDB. Nulls are
coalesced before sorting (the two engines place nulls differently), and lists sort by their
named key, then by `nodeId` / `runId`, so pages are stable.
"""

from __future__ import annotations

from lineage_app.graph.model import Label, Rel

# ---- node lookup (an API id may split several ways; the caller asks for every candidate key) ----

FIND_NODES = {
    label: f"UNWIND $keys AS k MATCH (n:{label} {{key: k}}) RETURN n.key AS key"
    for label in (Label.DATASET, Label.JOB, Label.FIELD)
}


# ---- dataset lineage: one hop per round trip, per node kind and direction ----

def _hop(start: Label, rel: Rel, end: Label, *, forward: bool) -> str:
    pattern = f"(a)-[e:{rel}]->(b:{end})" if forward else f"(a)<-[e:{rel}]-(b:{end})"
    return (
        f"UNWIND $keys AS k MATCH (a:{start} {{key: k}}) MATCH {pattern} "
        "WHERE $asOf IS NULL OR e.firstSeen <= $asOf "
        "RETURN a.key AS source, b.key AS target"
    )


# Dataset -INPUT_TO-> Job -OUTPUTS-> Dataset.
DOWNSTREAM_OF_DATASETS = _hop(Label.DATASET, Rel.INPUT_TO, Label.JOB, forward=True)
DOWNSTREAM_OF_JOBS = _hop(Label.JOB, Rel.OUTPUTS, Label.DATASET, forward=True)
UPSTREAM_OF_DATASETS = _hop(Label.DATASET, Rel.OUTPUTS, Label.JOB, forward=False)
UPSTREAM_OF_JOBS = _hop(Label.JOB, Rel.INPUT_TO, Label.DATASET, forward=False)

# The state of the latest run that wrote each dataset.
DATASET_SUMMARIES = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})
OPTIONAL MATCH (r:{Label.RUN})-[:{Rel.WROTE}]->(d)
WITH d, r ORDER BY coalesce(r.lastEventTime, '') DESC
WITH d, collect(r)[0] AS latest
RETURN d.key AS key, d.nodeId AS nodeId, d.namespace AS namespace, d.name AS name,
       d.currentVersion AS currentVersion, d.fieldCount AS fieldCount,
       d.firstSeen AS firstSeen, d.lastSeen AS lastSeen, latest.state AS lastRunState
"""

JOB_SUMMARIES = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})
OPTIONAL MATCH (j)-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
WITH j, r ORDER BY coalesce(r.lastEventTime, '') DESC
WITH j, collect(r)[0] AS latest
RETURN j.key AS key, j.nodeId AS nodeId, j.namespace AS namespace, j.name AS name,
       j.jobType AS jobType, j.firstSeen AS firstSeen, j.lastSeen AS lastSeen,
       latest.runId AS latestRunId, latest.state AS latestRunState,
       latest.lastEventTime AS latestRunTime
"""


# ---- column lineage: (Field)-[:DERIVES]->(Field), source to derived ----

_DERIVES_ROW = (
    "WHERE $asOf IS NULL OR e.firstSeen <= $asOf "
    "RETURN a.key AS source, b.key AS target, e.job AS job, e.transformation AS transformation, "
    "e.subtype AS subtype, e.indirect AS indirect"
)
DERIVED_FROM_FIELDS = (
    f"UNWIND $keys AS k MATCH (a:{Label.FIELD} {{key: k}}) MATCH (a)-[e:{Rel.DERIVES}]->(b:{Label.FIELD}) "
    + _DERIVES_ROW
)
SOURCES_OF_FIELDS = (
    f"UNWIND $keys AS k MATCH (a:{Label.FIELD} {{key: k}}) MATCH (a)<-[e:{Rel.DERIVES}]-(b:{Label.FIELD}) "
    + _DERIVES_ROW
)

FIELD_SUMMARIES = f"""
UNWIND $keys AS k
MATCH (f:{Label.FIELD} {{key: k}})
RETURN f.key AS key, f.nodeId AS nodeId, f.namespace AS namespace, f.dataset AS dataset,
       f.name AS name, f.type AS type
"""


# ---- namespaces ----

NAMESPACE_COUNT = f"MATCH (n:{Label.NAMESPACE}) RETURN count(n) AS count"

NAMESPACE_PAGE = f"""
MATCH (n:{Label.NAMESPACE})
RETURN n.name AS name ORDER BY name SKIP $offset LIMIT $limit
"""

NAMESPACE_COUNTS = f"""
UNWIND $names AS ns
OPTIONAL MATCH (d:{Label.DATASET} {{namespace: ns}})
WITH ns, count(d) AS datasetCount
OPTIONAL MATCH (j:{Label.JOB} {{namespace: ns}})
RETURN ns AS name, datasetCount, count(j) AS jobCount
"""


# ---- dataset and job lists: `$namespace` and `$q` (lower-cased) are optional filters ----

def _list_filter(var: str) -> str:
    return (
        f"WHERE ($namespace IS NULL OR {var}.namespace = $namespace) "
        f"AND ($q IS NULL OR toLower({var}.name) CONTAINS $q)"
    )


DATASET_COUNT = f"MATCH (d:{Label.DATASET}) {_list_filter('d')} RETURN count(d) AS count"
DATASET_PAGE = f"""
MATCH (d:{Label.DATASET}) {_list_filter('d')}
RETURN d.key AS key ORDER BY d.namespace, d.name, d.nodeId SKIP $offset LIMIT $limit
"""

JOB_COUNT = f"MATCH (j:{Label.JOB}) {_list_filter('j')} RETURN count(j) AS count"
JOB_PAGE = f"""
MATCH (j:{Label.JOB}) {_list_filter('j')}
RETURN j.key AS key ORDER BY j.namespace, j.name, j.nodeId SKIP $offset LIMIT $limit
"""


# ---- dataset detail ----

DATASET_NODE = f"""
MATCH (d:{Label.DATASET} {{key: $key}})
RETURN d.nodeId AS id, d.namespace AS namespace, d.name AS name, d.facetsJson AS facetsJson,
       d.currentVersion AS currentVersion
"""

DATASET_FIELDS = f"""
MATCH (:{Label.DATASET} {{key: $key}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
RETURN f.nodeId AS id, f.name AS name, f.type AS type, coalesce(f.current, true) AS current
ORDER BY name, id
"""

DATASET_VERSIONS = f"""
MATCH (:{Label.DATASET} {{key: $key}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
RETURN v.version AS version, v.firstSeen AS firstSeen, v.lastSeen AS lastSeen,
       v.createdByRun AS createdByRun, v.fieldNames AS fieldNames, v.fieldTypes AS fieldTypes
ORDER BY coalesce(v.firstKey, ''), version
"""

DATASET_OWNERS = f"""
MATCH (:{Label.DATASET} {{key: $key}})-[e:{Rel.OWNED_BY}]->(o:{Label.OWNER})
RETURN o.name AS name, o.kind AS kind, e.role AS role, e.source AS source
ORDER BY name, role, source
"""

DATASET_PRODUCERS = f"""
MATCH (j:{Label.JOB})-[:{Rel.OUTPUTS}]->(:{Label.DATASET} {{key: $key}})
RETURN DISTINCT j.nodeId AS id ORDER BY id
"""

DATASET_CONSUMERS = f"""
MATCH (:{Label.DATASET} {{key: $key}})-[:{Rel.INPUT_TO}]->(j:{Label.JOB})
RETURN DISTINCT j.nodeId AS id ORDER BY id
"""

# The runs that wrote the dataset, newest first.
DATASET_LAST_RUNS = f"""
MATCH (r:{Label.RUN})-[:{Rel.WROTE}]->(:{Label.DATASET} {{key: $key}})
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r)
RETURN r.runId AS runId, j.nodeId AS job, r.state AS state, r.startedAt AS startedAt,
       r.endedAt AS endedAt
ORDER BY coalesce(r.startedAt, r.endedAt, r.lastEventTime, '') DESC, runId
LIMIT $limit
"""

DATASET_VERSION_FIELDS = f"""
MATCH (:{Label.DATASET} {{key: $key}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
WHERE v.version IN $versions
RETURN v.version AS version, v.fieldNames AS fieldNames, v.fieldTypes AS fieldTypes
"""


# ---- job detail and runs ----

JOB_NODE = f"""
MATCH (j:{Label.JOB} {{key: $key}})
OPTIONAL MATCH (i:{Label.DATASET})-[:{Rel.INPUT_TO}]->(j)
WITH j, collect(DISTINCT i.nodeId) AS inputs
OPTIONAL MATCH (j)-[:{Rel.OUTPUTS}]->(o:{Label.DATASET})
RETURN j.nodeId AS id, j.namespace AS namespace, j.name AS name, j.jobType AS jobType,
       j.facetsJson AS facetsJson, inputs, collect(DISTINCT o.nodeId) AS outputs
"""

_RUN_FIELDS = (
    "r.runId AS runId, r.state AS state, r.startedAt AS startedAt, r.endedAt AS endedAt, "
    "r.durationMs AS durationMs, r.errorMessage AS errorMessage"
)
_RUN_NEWEST_FIRST = "ORDER BY coalesce(r.startedAt, r.endedAt, r.lastEventTime, '') DESC, r.runId"

JOB_RUN_COUNT = f"""
MATCH (:{Label.JOB} {{key: $key}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN}) RETURN count(r) AS count
"""

JOB_RUN_PAGE = f"""
MATCH (:{Label.JOB} {{key: $key}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
RETURN {_RUN_FIELDS} {_RUN_NEWEST_FIRST} SKIP $offset LIMIT $limit
"""


# ---- failures: failed / aborted runs, by the time they ended ----

_FAILURE_MATCH = f"""
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
WHERE r.state IN $states
  AND ($namespace IS NULL OR j.namespace = $namespace)
  AND ($jobKey IS NULL OR j.key = $jobKey)
WITH j, r, coalesce(r.endedAt, r.lastEventTime, '') AS at
WHERE ($since IS NULL OR at >= $since) AND ($until IS NULL OR at <= $until)
"""

FAILURE_COUNT = _FAILURE_MATCH + "RETURN count(r) AS count"

FAILURE_PAGE = _FAILURE_MATCH + "RETURN r.runId AS runId ORDER BY at DESC, runId SKIP $offset LIMIT $limit"

# What each run should have written: the datasets it wrote, and every declared output of its job.
FAILURE_DETAILS = f"""
UNWIND $runIds AS id
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r:{Label.RUN} {{runId: id}})
OPTIONAL MATCH (r)-[:{Rel.WROTE}]->(w:{Label.DATASET})
WITH j, r, collect(DISTINCT w.nodeId) AS wrote
OPTIONAL MATCH (j)-[:{Rel.OUTPUTS}]->(o:{Label.DATASET})
RETURN r.runId AS runId, j.nodeId AS job, r.state AS state, r.startedAt AS startedAt,
       r.endedAt AS endedAt, r.errorMessage AS errorMessage, r.stackTrace AS stackTrace,
       wrote, collect(DISTINCT o.nodeId) AS declared
"""


# ---- search: exact name, then prefix, then substring; shorter names first; case-insensitive ----

def _search(label: Label, *extra: str) -> str:
    returned = ", ".join(("n.nodeId AS id", "n.namespace AS namespace", "n.name AS name", *extra))
    return f"""
MATCH (n:{label}) WHERE toLower(n.name) CONTAINS $q
WITH n, CASE WHEN toLower(n.name) = $q THEN 0 WHEN toLower(n.name) STARTS WITH $q THEN 1 ELSE 2 END AS rank
RETURN {returned}, rank ORDER BY rank, size(n.name), n.nodeId LIMIT $limit
"""


SEARCH = {
    Label.DATASET: _search(Label.DATASET),
    Label.JOB: _search(Label.JOB),
    Label.FIELD: _search(Label.FIELD, "n.dataset AS dataset"),
}


# ---- runs ----

RUN_DETAIL = f"""
MATCH (r:{Label.RUN} {{runId: $runId}})
OPTIONAL MATCH (r)-[:{Rel.READ}]->(i:{Label.DATASET})
WITH r, collect(DISTINCT i.nodeId) AS inputs
OPTIONAL MATCH (r)-[:{Rel.WROTE}]->(o:{Label.DATASET})
WITH r, inputs, collect(DISTINCT o.nodeId) AS outputs
OPTIONAL MATCH (c:{Label.RUN})-[:{Rel.CHILD_OF}]->(r)
RETURN properties(r) AS run, inputs, outputs, collect(DISTINCT c.runId) AS children
"""
