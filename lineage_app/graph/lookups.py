"""Read statements that look nodes up by key for the write path and ownership, as named, parameterised
constants: which schema versions, fields and datasets the graph holds, the alias registry, owners.

The read API's statements (lineage hops, listings, search) are in `reads`; these run inside the write
transaction (`graph.writer`, `graph.alias_registry`) or read owners (`graph.ownership`).
"""

from __future__ import annotations

from lineage_app.graph.facets import facets_held
from lineage_app.graph.model import Label, Rel, key_seek

# Which of the rows' versions the graph holds with their Field nodes (written with the version, in
# its transaction; the fields of the others are merged with `MERGE_FIELDS`), and which of those are
# their dataset's current version (a new sighting of it cannot change what is current). One record.
READ_KNOWN_VERSIONS = f"""
UNWIND $rows AS row
MATCH (v:{Label.DATASET_VERSION} {{key: row.key}})
{key_seek("v", Label.DATASET_VERSION, "key")}
WHERE v.fieldsExpanded = true
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
RETURN collect(row.key) AS keys, collect(CASE WHEN d.currentVersion = v.version THEN row.key END) AS current
"""

# Which of the rows' (dataset, job) input edges the graph holds already: the others are a job reading a
# dataset for the first time (a new downstream consumer). A record per edge found.
READ_KNOWN_JOB_INPUTS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})-[:{Rel.INPUT_TO}]->(j:{Label.JOB} {{key: row.jobKey}})
{key_seek("d", Label.DATASET, "key")} {key_seek("j", Label.JOB, "key")}
RETURN row.datasetKey AS datasetKey, row.jobKey AS jobKey
"""

# Which of `$keys` name existing Field nodes: each was created with its HAS_FIELD edge, so a batch
# merges only the fields that are new. One record, one list.
READ_FIELD_KEYS = f"""
UNWIND $keys AS k
MATCH (f:{Label.FIELD} {{key: k}})
{key_seek("f", Label.FIELD, "key")}
RETURN collect(k) AS keys
"""

# Which version is each dataset's newest, and what the dataset holds as current: without the field
# lists, which only a dataset whose current version changes needs (`READ_DATASET_VERSIONS`).
READ_DATASET_VERSION_ORDER = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("d", Label.DATASET, "key")}
RETURN k AS datasetKey, d.currentVersion AS storedVersion, d.versionCount AS storedCount,
       v.version AS version, v.lastKey AS lastKey
"""

READ_DATASET_VERSIONS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("d", Label.DATASET, "key")}
RETURN k AS datasetKey, d.namespace AS namespace, d.name AS name, d.currentVersion AS storedVersion,
       d.versionCount AS storedCount, v.version AS version, v.lastKey AS lastKey,
       v.fieldNames AS fieldNames, v.fieldTypes AS fieldTypes
"""


# The facets of each dataset (or job) named by `$keys` as the graph keeps them (`graph.facets`), read in
# the write transaction after its node is written, so no other batch changes them until it commits.
def _read_facets(label: Label) -> str:
    return f"""
UNWIND $keys AS k
MATCH (x:{label} {{key: k}})
{key_seek("x", label, "key")}
RETURN k AS key, {facets_held("x")}
"""


READ_DATASET_FACETS = _read_facets(Label.DATASET)
READ_JOB_FACETS = _read_facets(Label.JOB)


# The OWNED_BY edges of each node named by `$keys`, one statement per label (namespaces by name),
# answering one record: {key, name (the owner's), kind, contact, role, source} per edge.
def _read_owners(label: Label, key: str) -> str:
    return f"""
UNWIND $keys AS k
MATCH (:{label} {{{key}: k}})-[e:{Rel.OWNED_BY}]->(o:{Label.OWNER})
RETURN collect({{key: k, name: o.name, kind: o.kind, contact: o.contact, role: e.role, source: e.source}}) AS rows
"""


READ_NAMESPACE_OWNERS = _read_owners(Label.NAMESPACE, "name")
READ_DATASET_OWNERS = _read_owners(Label.DATASET, "key")
READ_JOB_OWNERS = _read_owners(Label.JOB, "key")
READ_OWNERS = {
    Label.NAMESPACE: READ_NAMESPACE_OWNERS,
    Label.DATASET: READ_DATASET_OWNERS,
    Label.JOB: READ_JOB_OWNERS,
}

# --- Dataset identity (docs/identity.md): the alias registry -----------------------------------

# One hop of the alias graph: a name's symlinks (either way) and the names that normalise alike.
READ_ALIAS_LINKED = f"""
UNWIND $keys AS k
MATCH (a:{Label.DATASET_ALIAS} {{key: k}})-[:{Rel.SAME_AS}]-(b)
{key_seek("a", Label.DATASET_ALIAS, "key")}
RETURN k AS key, b.key AS other
"""

READ_ALIAS_SPELLINGS = f"""
UNWIND $keys AS k
MATCH (a:{Label.DATASET_ALIAS} {{key: k}})
{key_seek("a", Label.DATASET_ALIAS, "key")}
MATCH (b:{Label.DATASET_ALIAS} {{normalKey: a.normalKey}})
{key_seek("b", Label.DATASET_ALIAS, "normalKey")}
RETURN k AS key, a.normalNamespace AS namespace, a.normalName AS name, a.canonicalKey AS canonicalKey,
       b.key AS other
"""

READ_DATASET_KEYS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})
{key_seek("d", Label.DATASET, "key")}
RETURN d.key AS key
"""

# ---- edge validity (`graph.validity`): a job's edges with what decides whether they are current ----
# Each answers one record with one list per edge, in `VALIDITY_COLUMNS` order (nulls where a kind of
# edge has no such end).
VALIDITY_COLUMNS = (
    "jobKey",
    "jobNamespace",
    "datasetKey",
    "sourceKey",
    "targetKey",
    "job",
    "confirmedOrder",
    "lastSeen",
    "staleSince",
    "settledSince",
    "droppedOrder",
    "droppedAt",
    "deletedOrder",
    "deletedAt",
    "declaredOrder",
    "declaredAt",
)
# What decides a job edge's validity; `d` is its dataset (a derivation's: the one it derives into).
_VALIDITY = "e.confirmedOrder, e.lastSeen, e.staleSince, e.settledSince, d.droppedOrder, d.droppedAt"
# The job's latest JobEvent (static lineage), which retires edges as a completed run does.
_DECLARED = "j.declaredOrder, j.declaredAt"

READ_JOB_INPUT_VALIDITY = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})<-[e:{Rel.INPUT_TO}]-(d:{Label.DATASET})
{key_seek("j", Label.JOB, "key")}
RETURN collect([k, j.namespace, d.key, null, null, null, {_VALIDITY}, null, null, {_DECLARED}]) AS rows
"""

READ_JOB_OUTPUT_VALIDITY = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})-[e:{Rel.OUTPUTS}]->(d:{Label.DATASET})
{key_seek("j", Label.JOB, "key")}
RETURN collect([k, j.namespace, d.key, null, null, null, {_VALIDITY}, null, null, {_DECLARED}]) AS rows
"""

# A job's derivations end in fields of the datasets it outputs (column lineage comes with an output).
READ_JOB_DERIVATION_VALIDITY = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})-[:{Rel.OUTPUTS}]->(d:{Label.DATASET})-[:{Rel.HAS_FIELD}]->(t:{Label.FIELD})
      <-[e:{Rel.DERIVES}]-(s:{Label.FIELD})
{key_seek("j", Label.JOB, "key")}
WHERE e.job = j.nodeId
RETURN collect([k, j.namespace, null, s.key, t.key, e.job, {_VALIDITY}, d.lineageDeletedOrder, d.lineageDeletedAt,
                {_DECLARED}]) AS rows
"""

# A job's dependency edges (`jobDependencies`) are those it declared, of which it is one end: upstream of
# the other job (it named a downstream) or downstream of it (it named an upstream).
_DEPENDENCY_VALIDITY = (
    f"WHERE e.declaredBy = k\n"
    f"RETURN collect([k, j.namespace, null, u.key, d.key, null, e.confirmedOrder, e.lastSeen, e.staleSince, "
    f"e.settledSince, null, null, null, null, {_DECLARED}]) AS rows"
)

READ_JOB_DOWNSTREAM_DEPENDENCY_VALIDITY = f"""
UNWIND $keys AS k
MATCH (u:{Label.JOB} {{key: k}})-[e:{Rel.PRECEDES}]->(d:{Label.JOB})
{key_seek("u", Label.JOB, "key")}
WITH k, u AS j, u, e, d
{_DEPENDENCY_VALIDITY}
"""

READ_JOB_UPSTREAM_DEPENDENCY_VALIDITY = f"""
UNWIND $keys AS k
MATCH (u:{Label.JOB})-[e:{Rel.PRECEDES}]->(d:{Label.JOB} {{key: k}})
{key_seek("d", Label.JOB, "key")}
WITH k, d AS j, u, e, d
{_DEPENDENCY_VALIDITY}
"""

# Each job's confirming runs (completed, or a running one's latest complete snapshot) after `row.after`
# (an order key) and, when `row.until` is set, confirming no later than it, as [job key, order, time].
READ_JOB_COMPLETED_RUNS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.key}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
{key_seek("j", Label.JOB, "key")}
WITH row, coalesce(r.completedOrder, r.snapshotOrder) AS confirmed, coalesce(r.endedAt, r.snapshotAt) AS at
WHERE confirmed > row.after AND (row.until IS NULL OR at <= row.until)
RETURN collect([row.key, confirmed, at]) AS rows
"""

# Each job's namespace and newest confirmation on record (`graph.validity`), as [key, namespace, order].
READ_JOB_LATEST_CONFIRMATIONS = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})
{key_seek("j", Label.JOB, "key")}
RETURN collect([k, j.namespace, j.latestConfirmation]) AS rows
"""

# Each job's newest confirmation found in the graph itself, for jobs with none on record (new ones, or a
# graph written before it was kept): [key, newest confirming run's order, latest JobEvent's order].
READ_JOB_NEWEST_CONFIRMATIONS = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})
{key_seek("j", Label.JOB, "key")}
OPTIONAL MATCH (j)-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
WITH k, j, max(coalesce(r.completedOrder, r.snapshotOrder)) AS ran
RETURN collect([k, ran, j.declaredOrder]) AS rows
"""

# The datasets among `$keys` that a DROP or a deleted `columnLineage` facet has retired edges of, as
# [key, latest drop's order, latest deletion's order].
READ_DATASET_RETIREMENTS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})
{key_seek("d", Label.DATASET, "key")}
WHERE d.droppedOrder IS NOT NULL OR d.lineageDeletedOrder IS NOT NULL
RETURN collect([k, d.droppedOrder, d.lineageDeletedOrder]) AS rows
"""

# The jobs that read or write any of the datasets `$keys` (after an alias merge moved edges onto them).
READ_JOBS_OF_DATASETS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.INPUT_TO}|{Rel.OUTPUTS}]-(j:{Label.JOB})
{key_seek("d", Label.DATASET, "key")}
RETURN collect(DISTINCT j.key) AS keys
"""

# The runs of each job that confirm its edges (completed, or emitting complete snapshots) and whose last
# event is no earlier than `row.since`: those that may have named an edge first seen then (`graph.withdrawal`).
READ_JOB_CONFIRMING_RUNS_SINCE = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.jobKey}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
{key_seek("j", Label.JOB, "key")}
WHERE coalesce(r.completedOrder, r.snapshotOrder) IS NOT NULL AND r.lastEventTime >= row.since
RETURN collect(r.runId) AS runIds
"""
