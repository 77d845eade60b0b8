"""The graph writes' Cypher as named, parameterised constants, with the reads the writer and owner lookups make.

Besides the writes (`MERGE_*`, `SET_*`, `MOVE_*`, `DELETE_*`), the reads the writer needs on the way
(known versions and their order, field keys, dataset aliases) and the effective owners' reads
(`READ_OWNERS`) are here.
Each write statement takes `$rows` (one row per entity, already merged per batch in Python)
and is commutative: first-seen is a minimum, last-seen a maximum, and "latest" facts are
guarded by the event order key, so applying the same events in any order gives one graph.
"""

from __future__ import annotations

from lineage_app.graph.model import Label, Rel, RunState


def _seen(var: str) -> str:
    """SET items that widen `var`'s first/last-seen window to include the row's."""
    return (
        f"{var}.firstSeen = CASE WHEN {var}.firstSeen IS NULL OR row.first < {var}.firstSeen "
        f"THEN row.first ELSE {var}.firstSeen END, "
        f"{var}.lastSeen = CASE WHEN {var}.lastSeen IS NULL OR row.last > {var}.lastSeen "
        f"THEN row.last ELSE {var}.lastSeen END"
    )


def _latest(var: str, *props: str, guard: str = "factsKey", order: str = "row.order") -> str:
    """SET items that take `props` from the row only if its order key (`order`) is the newest
    seen, as kept in `var`'s `guard` property."""
    newer = f"({var}.{guard} IS NULL OR {order} >= {var}.{guard})"
    items = [f"{var}.{p} = CASE WHEN {newer} THEN row.{p} ELSE {var}.{p} END" for p in props]
    # The guard's own key goes last, so every item above compares against the old one.
    items.append(f"{var}.{guard} = CASE WHEN {newer} THEN {order} ELSE {var}.{guard} END")
    return ", ".join(items)


def _latest_run(var: str) -> str:
    """SET items that keep on a job or dataset its latest run: the newest by last event time, then
    runId (the row's `runOrder`). Reads then take a node's latest run from the node itself."""
    return _latest(var, "latestRunId", "latestRunState", "latestRunTime", guard="latestRunOrder", order="row.runOrder")


MERGE_NAMESPACES = f"""
UNWIND $rows AS row
MERGE (n:{Label.NAMESPACE} {{name: row.name}})
SET {_seen("n")}
"""

MERGE_DATASETS = f"""
UNWIND $rows AS row
MERGE (d:{Label.DATASET} {{key: row.key}})
SET d.nodeId = row.nodeId, d.namespace = row.namespace, d.name = row.name, {_seen("d")}
"""

SET_DATASET_FACETS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.key}})
SET {_latest("d", "facetsJson")}
"""

MERGE_JOBS = f"""
UNWIND $rows AS row
MERGE (j:{Label.JOB} {{key: row.key}})
SET j.nodeId = row.nodeId, j.namespace = row.namespace, j.name = row.name, {_seen("j")}
"""

SET_JOB_FACETS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.key}})
SET {_latest("j", "facetsJson", "jobType", "processingType", "integration")}
"""

# A run's node takes a fold of at least as many events as it has: a run's applied events only grow,
# so a smaller fold is an older one (a slower worker's, written late) and must not undo a newer one.
MERGE_RUNS = f"""
UNWIND $rows AS row
MERGE (j:{Label.JOB} {{key: row.jobKey}})
MERGE (r:{Label.RUN} {{runId: row.runId}})
WITH j, r, row, (r.eventCount IS NULL OR row.props.eventCount >= r.eventCount) AS newer
FOREACH (_ IN CASE WHEN newer THEN [1] ELSE [] END | SET r += row.props)
SET r.nodeId = row.nodeId, {_latest_run("j")}
MERGE (j)-[:{Rel.HAS_RUN}]->(r)
"""

# After the run's WROTE edges exist: every dataset a run wrote knows its latest writing run, also
# when a later event of the run (say its FAIL) names no outputs.
SET_DATASET_LATEST_RUNS = f"""
UNWIND $rows AS row
MATCH (:{Label.RUN} {{runId: row.runId}})-[:{Rel.WROTE}]->(d:{Label.DATASET})
SET {_latest_run("d")}
"""

MERGE_RUN_PARENTS = f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})
MERGE (p:{Label.RUN} {{runId: row.parentRunId}})
ON CREATE SET p.nodeId = row.parentNodeId, p.state = '{RunState.NEW}',
              p.jobNamespace = row.parentJobNamespace, p.jobName = row.parentJobName
MERGE (pj:{Label.JOB} {{key: row.parentJobKey}})
ON CREATE SET pj.nodeId = row.parentJobNodeId, pj.namespace = row.parentJobNamespace,
              pj.name = row.parentJobName
SET {_latest("pj", "latestRunId", "latestRunState", guard="latestRunOrder", order="row.runOrder")}
MERGE (pj)-[:{Rel.HAS_RUN}]->(p)
MERGE (r)-[:{Rel.CHILD_OF}]->(p)
"""


def _merge_run_io(rel: Rel) -> str:
    return f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
MERGE (r)-[e:{rel}]->(d)
SET {_seen("e")}
"""


def _set_run_io_statistics(rel: Rel) -> str:
    return f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})-[e:{rel}]->(d:{Label.DATASET} {{key: row.datasetKey}})
SET {_latest("e", "rowCount", "bytes", "fileCount")}
"""


MERGE_RUN_READS = _merge_run_io(Rel.READ)
MERGE_RUN_WRITES = _merge_run_io(Rel.WROTE)
SET_RUN_READ_STATISTICS = _set_run_io_statistics(Rel.READ)
SET_RUN_WRITE_STATISTICS = _set_run_io_statistics(Rel.WROTE)

MERGE_JOB_INPUTS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
MATCH (j:{Label.JOB} {{key: row.jobKey}})
MERGE (d)-[e:{Rel.INPUT_TO}]->(j)
SET {_seen("e")}
"""

MERGE_JOB_OUTPUTS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.jobKey}})
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
MERGE (j)-[e:{Rel.OUTPUTS}]->(d)
SET {_seen("e")}
"""

# A sighting of a schema version: its creating run is the earliest event's, its last key the newest.
_VERSION_SIGHTING = f"""
    v.fieldsJson = row.fieldsJson,
    v.createdByRun = CASE WHEN v.firstKey IS NULL OR row.firstOrder < v.firstKey
                          THEN row.createdByRun ELSE v.createdByRun END,
    v.firstKey = CASE WHEN v.firstKey IS NULL OR row.firstOrder < v.firstKey
                      THEN row.firstOrder ELSE v.firstKey END,
    v.lastKey = CASE WHEN v.lastKey IS NULL OR row.order > v.lastKey THEN row.order ELSE v.lastKey END,
    {_seen("v")}"""

MERGE_DATASET_VERSIONS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
MERGE (v:{Label.DATASET_VERSION} {{key: row.key}})
SET v.namespace = row.namespace, v.name = row.name, v.version = row.version,
    v.fieldNames = row.fieldNames, v.fieldTypes = row.fieldTypes, v.fieldsExpanded = true,{_VERSION_SIGHTING}
MERGE (d)-[:{Rel.HAS_VERSION}]->(v)
"""

# A version already in the graph: its key is a hash of its field names and types, so those, its
# dataset edge and its fields are there already; only the sighting is new.
SET_VERSION_SIGHTINGS = f"""
UNWIND $rows AS row
MATCH (v:{Label.DATASET_VERSION} {{key: row.key}})
SET{_VERSION_SIGHTING}
"""

# Which of the rows' versions the graph holds with their Field nodes (written with the version, in
# its transaction; the fields of the others are merged with `MERGE_FIELDS`), and which of those are
# their dataset's current version (a new sighting of it cannot change what is current). One record.
READ_KNOWN_VERSIONS = f"""
UNWIND $rows AS row
MATCH (v:{Label.DATASET_VERSION} {{key: row.key}})
WHERE v.fieldsExpanded = true
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
RETURN collect(row.key) AS keys, collect(CASE WHEN d.currentVersion = v.version THEN row.key END) AS current
"""

# Which of `$keys` name existing Field nodes: each was created with its HAS_FIELD edge, so a batch
# merges only the fields that are new. One record, one list.
READ_FIELD_KEYS = f"""
UNWIND $keys AS k
MATCH (f:{Label.FIELD} {{key: k}})
RETURN collect(k) AS keys
"""

MERGE_FIELDS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
MERGE (f:{Label.FIELD} {{key: row.key}})
ON CREATE SET f.nodeId = row.nodeId, f.namespace = row.namespace, f.dataset = row.dataset, f.name = row.name
MERGE (d)-[:{Rel.HAS_FIELD}]->(f)
"""

MERGE_FIELD_DERIVATIONS = f"""
UNWIND $rows AS row
MATCH (s:{Label.FIELD} {{key: row.sourceKey}})
MATCH (t:{Label.FIELD} {{key: row.targetKey}})
MERGE (s)-[e:{Rel.DERIVES} {{job: row.job}}]->(t)
SET {_seen("e")},
    {_latest("e", "transformation", "subtype", "indirect", "description", "masking", "transformationsJson")}
"""


def _merge_owners(label: Label) -> str:
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{key: row.targetKey}})
MERGE (o:{Label.OWNER} {{name: row.owner}})
ON CREATE SET o.kind = row.kind
MERGE (x)-[e:{Rel.OWNED_BY} {{role: row.role, source: 'event'}}]->(o)
SET {_seen("e")}
"""


MERGE_DATASET_OWNERS = _merge_owners(Label.DATASET)
MERGE_JOB_OWNERS = _merge_owners(Label.JOB)

# Which version is each dataset's newest, and what the dataset holds as current: without the field
# lists, which only a dataset whose current version changes needs (`READ_DATASET_VERSIONS`).
READ_DATASET_VERSION_ORDER = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
RETURN k AS datasetKey, d.currentVersion AS storedVersion, d.versionCount AS storedCount,
       v.version AS version, v.lastKey AS lastKey
"""

READ_DATASET_VERSIONS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
RETURN k AS datasetKey, d.namespace AS namespace, d.name AS name, d.currentVersion AS storedVersion,
       d.versionCount AS storedCount, v.version AS version, v.lastKey AS lastKey,
       v.fieldNames AS fieldNames, v.fieldTypes AS fieldTypes
"""

SET_DATASET_CURRENT_VERSIONS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
SET d.currentVersion = row.version, d.versionCount = row.versionCount,
    d.fieldCount = row.fieldCount
"""

SET_FIELD_TYPES = f"""
UNWIND $rows AS row
MATCH (f:{Label.FIELD} {{key: row.key}})
SET f.type = row.type, f.current = row.current
"""

DELETE_SOME = "MATCH (n) WITH n LIMIT $limit DETACH DELETE n RETURN count(*) AS deleted"

# --- Ownership (catalog): hand-set OWNED_BY edges and effective-owner reads ---------------------


def _merge_manual_owners(label: Label, key: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{{key}: row.targetKey}})
MERGE (o:{Label.OWNER} {{name: row.owner}})
SET o.kind = row.kind, o.contact = row.contact
MERGE (x)-[e:{Rel.OWNED_BY} {{role: row.role, source: 'manual'}}]->(o)
"""


def _delete_manual_owners(label: Label, key: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{{key}: row.targetKey}})-[e:{Rel.OWNED_BY} {{role: row.role, source: 'manual'}}]->
      (o:{Label.OWNER} {{name: row.owner}})
DELETE e
"""


MERGE_MANUAL_NAMESPACE_OWNERS = _merge_manual_owners(Label.NAMESPACE, "name")
MERGE_MANUAL_DATASET_OWNERS = _merge_manual_owners(Label.DATASET, "key")
MERGE_MANUAL_JOB_OWNERS = _merge_manual_owners(Label.JOB, "key")
DELETE_MANUAL_NAMESPACE_OWNERS = _delete_manual_owners(Label.NAMESPACE, "name")
DELETE_MANUAL_DATASET_OWNERS = _delete_manual_owners(Label.DATASET, "key")
DELETE_MANUAL_JOB_OWNERS = _delete_manual_owners(Label.JOB, "key")

DELETE_ALL_MANUAL_OWNERS = f"""
MATCH ()-[e:{Rel.OWNED_BY} {{source: 'manual'}}]->(:{Label.OWNER})
DELETE e
"""

SET_OWNER_CONTACTS = f"""
UNWIND $rows AS row
MATCH (o:{Label.OWNER} {{name: row.owner}})
SET o.kind = row.kind, o.contact = row.contact
"""


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

# --- Dataset identity (docs/identity.md): the alias registry and the merge of an alias's node ------

MERGE_DATASET_ALIASES = f"""
UNWIND $rows AS row
MERGE (a:{Label.DATASET_ALIAS} {{key: row.key}})
SET a.namespace = row.namespace, a.name = row.name, a.normalKey = row.normalKey,
    a.normalNamespace = row.normalNamespace, a.normalName = row.normalName, {_seen("a")},
    {
    ", ".join(
        f"a.{p} = CASE WHEN a.sourceOrder IS NULL OR row.firstOrder < a.sourceOrder THEN row.{p} ELSE a.{p} END"
        for p in ("sourceEvent", "sourceProducer", "sourceJob", "sourceKind", "sourceType")
    )
},
    a.sourceOrder = CASE WHEN a.sourceOrder IS NULL OR row.firstOrder < a.sourceOrder
                         THEN row.firstOrder ELSE a.sourceOrder END
"""

MERGE_ALIAS_LINKS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET_ALIAS} {{key: row.fromKey}})
MATCH (b:{Label.DATASET_ALIAS} {{key: row.toKey}})
MERGE (a)-[e:{Rel.SAME_AS}]->(b)
SET {_seen("e")},
    {
    ", ".join(
        f"e.{p} = CASE WHEN e.sourceOrder IS NULL OR row.firstOrder < e.sourceOrder THEN row.{p} ELSE e.{p} END"
        for p in ("sourceEvent", "sourceProducer", "sourceJob")
    )
},
    e.sourceOrder = CASE WHEN e.sourceOrder IS NULL OR row.firstOrder < e.sourceOrder
                         THEN row.firstOrder ELSE e.sourceOrder END
"""

# One hop of the alias graph: a name's symlinks (either way) and the names that normalise alike.
READ_ALIAS_LINKED = f"""
UNWIND $keys AS k
MATCH (a:{Label.DATASET_ALIAS} {{key: k}})-[:{Rel.SAME_AS}]-(b:{Label.DATASET_ALIAS})
RETURN k AS key, b.key AS other
"""

READ_ALIAS_SPELLINGS = f"""
UNWIND $keys AS k
MATCH (a:{Label.DATASET_ALIAS} {{key: k}})
MATCH (b:{Label.DATASET_ALIAS} {{normalKey: a.normalKey}})
RETURN k AS key, a.normalNamespace AS namespace, a.normalName AS name, a.canonicalKey AS canonicalKey,
       b.key AS other
"""

SET_ALIAS_CANONICAL = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET_ALIAS} {{key: row.key}})
SET a.canonicalKey = row.canonicalKey
"""

READ_DATASET_KEYS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})
RETURN d.key AS key
"""


def _widen(dst: str, src: str) -> str:
    """SET items that widen `dst`'s first/last-seen window by `src`'s (a merge of two windows)."""
    return (
        f"{dst}.firstSeen = CASE WHEN {dst}.firstSeen IS NULL OR {src}.firstSeen < {dst}.firstSeen "
        f"THEN {src}.firstSeen ELSE {dst}.firstSeen END, "
        f"{dst}.lastSeen = CASE WHEN {dst}.lastSeen IS NULL OR {src}.lastSeen > {dst}.lastSeen "
        f"THEN {src}.lastSeen ELSE {dst}.lastSeen END"
    )


def _newer(dst: str, src: str, *props: str, guard: str = "factsKey") -> str:
    """SET items that take `props` from `src` when its guard (order key) is newer than `dst`'s: the
    same rule `_latest` applies to rows, so merging two nodes equals applying both nodes' rows."""
    newer = f"({src}.{guard} IS NOT NULL AND ({dst}.{guard} IS NULL OR {src}.{guard} > {dst}.{guard}))"
    items = [f"{dst}.{p} = CASE WHEN {newer} THEN {src}.{p} ELSE {dst}.{p} END" for p in props]
    items.append(f"{dst}.{guard} = CASE WHEN {newer} THEN {src}.{guard} ELSE {dst}.{guard} END")
    return ", ".join(items)


# Each merge statement takes rows {fromKey, toKey, toNodeId, toNamespace, toName, fieldIdPrefix, sep}:
# the alias's Dataset node (fromKey) moves into the canonical one (toKey), edge by edge.
MERGE_ALIAS_DATASET = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})
MERGE (c:{Label.DATASET} {{key: row.toKey}})
SET c.nodeId = row.toNodeId, c.namespace = row.toNamespace, c.name = row.toName, {_widen("c", "a")},
    {_newer("c", "a", "facetsJson")},
    {_newer("c", "a", "latestRunId", "latestRunState", "latestRunTime", guard="latestRunOrder")}
REMOVE c.currentVersion
"""


def _move_dataset_edge(rel: Rel, pattern: str, merge: str, *props: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH {pattern}
MATCH (c:{Label.DATASET} {{key: row.toKey}})
MERGE {merge}
SET {_widen("m", "e")}{", " + _newer("m", "e", *props) if props else ""}
"""


MOVE_ALIAS_INPUTS = _move_dataset_edge(
    Rel.INPUT_TO,
    f"(a:{Label.DATASET} {{key: row.fromKey}})-[e:{Rel.INPUT_TO}]->(x:{Label.JOB})",
    f"(c)-[m:{Rel.INPUT_TO}]->(x)",
)
MOVE_ALIAS_OUTPUTS = _move_dataset_edge(
    Rel.OUTPUTS,
    f"(x:{Label.JOB})-[e:{Rel.OUTPUTS}]->(a:{Label.DATASET} {{key: row.fromKey}})",
    f"(x)-[m:{Rel.OUTPUTS}]->(c)",
)
MOVE_ALIAS_READS = _move_dataset_edge(
    Rel.READ,
    f"(x:{Label.RUN})-[e:{Rel.READ}]->(a:{Label.DATASET} {{key: row.fromKey}})",
    f"(x)-[m:{Rel.READ}]->(c)",
    "rowCount",
    "bytes",
    "fileCount",
)
MOVE_ALIAS_WRITES = _move_dataset_edge(
    Rel.WROTE,
    f"(x:{Label.RUN})-[e:{Rel.WROTE}]->(a:{Label.DATASET} {{key: row.fromKey}})",
    f"(x)-[m:{Rel.WROTE}]->(c)",
    "rowCount",
    "bytes",
    "fileCount",
)
MOVE_ALIAS_OWNERS = _move_dataset_edge(
    Rel.OWNED_BY,
    f"(a:{Label.DATASET} {{key: row.fromKey}})-[e:{Rel.OWNED_BY}]->(x:{Label.OWNER})",
    f"(c)-[m:{Rel.OWNED_BY} {{role: e.role, source: e.source}}]->(x)",
)

MOVE_ALIAS_VERSIONS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
MATCH (c:{Label.DATASET} {{key: row.toKey}})
MERGE (m:{Label.DATASET_VERSION} {{key: row.toKey + row.sep + v.version}})
SET m.namespace = row.toNamespace, m.name = row.toName, m.version = v.version,
    m.fieldNames = coalesce(m.fieldNames, v.fieldNames), m.fieldTypes = coalesce(m.fieldTypes, v.fieldTypes),
    m.fieldsJson = coalesce(m.fieldsJson, v.fieldsJson),
    m.fieldsExpanded = coalesce(m.fieldsExpanded, v.fieldsExpanded),
    m.createdByRun = CASE WHEN m.firstKey IS NULL OR v.firstKey < m.firstKey
                          THEN v.createdByRun ELSE m.createdByRun END,
    m.firstKey = CASE WHEN m.firstKey IS NULL OR v.firstKey < m.firstKey THEN v.firstKey ELSE m.firstKey END,
    m.lastKey = CASE WHEN m.lastKey IS NULL OR v.lastKey > m.lastKey THEN v.lastKey ELSE m.lastKey END,
    {_widen("m", "v")}
MERGE (c)-[:{Rel.HAS_VERSION}]->(m)
"""

MOVE_ALIAS_FIELDS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
MATCH (c:{Label.DATASET} {{key: row.toKey}})
MERGE (m:{Label.FIELD} {{key: row.toKey + row.sep + f.name}})
ON CREATE SET m.nodeId = row.fieldIdPrefix + f.name, m.namespace = row.toNamespace,
              m.dataset = row.toName, m.name = f.name
MERGE (c)-[:{Rel.HAS_FIELD}]->(m)
"""

_DERIVATION_FACTS = ("transformation", "subtype", "indirect", "description", "masking", "transformationsJson")

MOVE_ALIAS_DERIVED_FROM = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
      -[e:{Rel.DERIVES}]->(t:{Label.FIELD})
MATCH (n:{Label.FIELD} {{key: row.toKey + row.sep + f.name}})
MERGE (n)-[m:{Rel.DERIVES} {{job: e.job}}]->(t)
SET {_widen("m", "e")}, {_newer("m", "e", *_DERIVATION_FACTS)}
"""

MOVE_ALIAS_DERIVES_INTO = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
      <-[e:{Rel.DERIVES}]-(s:{Label.FIELD})
MATCH (n:{Label.FIELD} {{key: row.toKey + row.sep + f.name}})
MERGE (s)-[m:{Rel.DERIVES} {{job: e.job}}]->(n)
SET {_widen("m", "e")}, {_newer("m", "e", *_DERIVATION_FACTS)}
"""

DELETE_ALIAS_FIELDS = f"""
UNWIND $rows AS row
MATCH (:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
DETACH DELETE f
"""

DELETE_ALIAS_VERSIONS = f"""
UNWIND $rows AS row
MATCH (:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
DETACH DELETE v
"""

DELETE_ALIAS_DATASETS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})
DETACH DELETE a
"""

# In the order they run: the canonical node, every edge kind, versions, fields and their
# derivations, then the alias's own nodes.
MERGE_ALIAS_STATEMENTS = (
    MERGE_ALIAS_DATASET,
    MOVE_ALIAS_INPUTS,
    MOVE_ALIAS_OUTPUTS,
    MOVE_ALIAS_READS,
    MOVE_ALIAS_WRITES,
    MOVE_ALIAS_OWNERS,
    MOVE_ALIAS_VERSIONS,
    MOVE_ALIAS_FIELDS,
    MOVE_ALIAS_DERIVED_FROM,
    MOVE_ALIAS_DERIVES_INTO,
    DELETE_ALIAS_FIELDS,
    DELETE_ALIAS_VERSIONS,
    DELETE_ALIAS_DATASETS,
)
