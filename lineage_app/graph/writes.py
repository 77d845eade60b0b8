"""Every Cypher statement that writes the graph, as named, parameterised constants (the alias
registry's and the merge of an alias's node are in `identity_statements`; reads in `reads` and `lookups`).

Each write statement takes `$rows` (one row per entity, already merged per batch in Python)
and is commutative: first-seen is a minimum, last-seen a maximum, and "latest" facts are
guarded by the event order key, so applying the same events in any order gives one graph.
"""

from __future__ import annotations

from lineage_app.graph.facets import facets_held
from lineage_app.graph.model import Label, OwnershipSource, Rel, RunState, key_seek


def seen(var: str) -> str:
    """SET items that widen `var`'s first/last-seen window to include the row's."""
    return (
        f"{var}.firstSeen = CASE WHEN {var}.firstSeen IS NULL OR row.first < {var}.firstSeen "
        f"THEN row.first ELSE {var}.firstSeen END, "
        f"{var}.lastSeen = CASE WHEN {var}.lastSeen IS NULL OR row.last > {var}.lastSeen "
        f"THEN row.last ELSE {var}.lastSeen END"
    )


def named(var: str, name: str) -> str:
    """SET items that give `var` the name `name` (a Cypher expression) and its lower-cased copy, `searchName`,
    which search matches (`reads._search`, the TEXT index of `schema.TEXT_INDEXES`): every name is written here."""
    return f"{var}.name = {name}, {var}.searchName = toLower({name})"


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
SET {seen("n")}
"""

MERGE_DATASETS = f"""
UNWIND $rows AS row
MERGE (d:{Label.DATASET} {{key: row.key}})
SET d.nodeId = row.nodeId, d.namespace = row.namespace, {named("d", "row.name")}, {seen("d")}
"""


MERGE_JOBS = f"""
UNWIND $rows AS row
MERGE (j:{Label.JOB} {{key: row.key}})
SET j.nodeId = row.nodeId, j.namespace = row.namespace, {named("j", "row.name")}, {seen("j")}
"""


# A dataset's or job's facet sightings settled against its lists (`graph.facets`): each row brings a node's
# newest sighting per facet name in the batch (`names`, sorted, with their `orders` and content `hashes`); each
# name keeps the newer of its held and brought sightings, the lists stay sorted by name (re-sorted only when
# a name is new to the node), and the statement answers the nodes whose facets must be rewritten: those a
# newer sighting brought other content for (`changed`), and those still holding a `facetOrdersJson` written
# before the lists (`legacy`, settled in full by the caller), each with what the caller rewrites it from.
def _settle_facet_sightings(label: Label) -> str:
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{key: row.key}})
{key_seek("x", label, "key")}
WITH x, row, coalesce(x.facetNames, []) AS heldNames, coalesce(x.facetOrders, []) AS heldOrders,
     coalesce(x.facetHashes, []) AS heldHashes
WITH x, row, heldNames, heldOrders, heldHashes, heldNames + [n IN row.names WHERE NOT n IN heldNames] AS names
WITH x, row, heldNames, names,
     [n IN names | head([i IN range(0, size(heldNames) - 1) WHERE heldNames[i] = n
                         | [heldOrders[i], heldHashes[i]]])] AS held,
     [n IN names | head([i IN range(0, size(row.names) - 1) WHERE row.names[i] = n
                         | [row.orders[i], row.hashes[i]]])] AS brought
WITH x, row, heldNames, names, held, brought,
     [k IN range(0, size(names) - 1)
      | brought[k] IS NOT NULL AND (held[k] IS NULL OR brought[k][0] > held[k][0])] AS won
WITH x, row, names,
     [k IN range(0, size(names) - 1) | CASE WHEN won[k] THEN brought[k] ELSE held[k] END] AS kept,
     [k IN range(0, size(names) - 1) WHERE won[k] AND brought[k][1] <> coalesce(held[k][1], '') | names[k]] AS changed,
     CASE WHEN size(names) = size(heldNames) THEN range(0, size(names) - 1)
          ELSE [r IN range(0, size(names) - 1) | head([k IN range(0, size(names) - 1)
                WHERE size([m IN names WHERE m < names[k]]) = r])] END AS byName
SET x.facetNames = [k IN byName | names[k]], x.facetOrders = [k IN byName | kept[k][0]],
    x.facetHashes = [k IN byName | kept[k][1]]
WITH x, row, changed, x.facetOrdersJson IS NOT NULL AS legacy
WHERE size(changed) > 0 OR legacy
RETURN row.key AS key, changed, legacy, {facets_held("x")}
"""


SETTLE_DATASET_FACET_SIGHTINGS = _settle_facet_sightings(Label.DATASET)
SETTLE_JOB_FACET_SIGHTINGS = _settle_facet_sightings(Label.JOB)


# A dataset's or job's facets rewritten (`graph.facet_store`): the nodes a settle answered, with their
# sightings' lists again (a `legacy` node's settled in full) and what the live facets say.
def _facet_lists(var: str) -> str:
    return (
        f"{var}.facetNames = row.facetNames, {var}.facetOrders = row.facetOrders, {var}.facetHashes = row.facetHashes"
    )


SET_DATASET_FACETS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.key}})
{key_seek("d", Label.DATASET, "key")}
SET d.facetsJson = row.facetsJson, {_facet_lists("d")}, d.temporary = row.temporary, d.tags = row.tags
REMOVE d.facetOrdersJson
"""

SET_JOB_FACETS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.key}})
{key_seek("j", Label.JOB, "key")}
SET j.facetsJson = row.facetsJson, {_facet_lists("j")}, j.tags = row.tags, j.jobType = row.jobType,
    j.processingType = row.processingType, j.integration = row.integration
REMOVE j.facetOrdersJson
"""

# A run's node takes a fold of at least as many events as it has: a run's applied events only grow,
# so a smaller fold is an older one (a slower worker's, written late) and must not undo a newer one.
# Answers the runs whose confirming moment the new fold takes back or moves (a FAIL timed before the COMPLETE
# the graph held, or a streaming run's newer complete snapshot: `graph.withdrawal`), each with the completion
# or snapshot order the graph held; the node is written
# (locked) before it is compared, so a concurrent batch cannot slip in between.
MERGE_RUNS = f"""
UNWIND $rows AS row
MERGE (j:{Label.JOB} {{key: row.jobKey}})
MERGE (r:{Label.RUN} {{runId: row.runId}})
SET r.nodeId = row.nodeId
WITH j, r, row, (r.eventCount IS NULL OR row.props.eventCount >= r.eventCount) AS newer,
     coalesce(r.completedOrder, r.snapshotOrder) AS held
FOREACH (_ IN CASE WHEN newer THEN [1] ELSE [] END | SET r += row.props)
SET {_latest_run("j")}
MERGE (j)-[:{Rel.HAS_RUN}]->(r)
WITH row, r, held
WHERE held IS NOT NULL AND held <> coalesce(r.completedOrder, r.snapshotOrder, '')
RETURN row.jobKey AS jobKey, row.runId AS runId, held AS `order`
"""

# After the run's WROTE edges exist: every dataset a run wrote knows its latest writing run, also
# when a later event of the run (say its FAIL) names no outputs.
SET_DATASET_LATEST_RUNS = f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})-[:{Rel.WROTE}]->(d)
{key_seek("r", Label.RUN, "runId")}
SET {_latest_run("d")}
"""

# A run another run names (its parent, or its chain's root), as a run of its job, known by reference until
# its own events arrive.
_MERGE_REFERENCED_RUN = f"""
MERGE (p:{Label.RUN} {{runId: row.refRunId}})
ON CREATE SET p.nodeId = row.refNodeId, p.state = '{RunState.NEW}',
              p.jobNamespace = row.refJobNamespace, p.jobName = row.refJobName
MERGE (pj:{Label.JOB} {{key: row.refJobKey}})
ON CREATE SET pj.nodeId = row.refJobNodeId, pj.namespace = row.refJobNamespace,
              {named("pj", "row.refJobName")}
SET {_latest("pj", "latestRunId", "latestRunState", guard="latestRunOrder", order="row.runOrder")}
MERGE (pj)-[:{Rel.HAS_RUN}]->(p)
"""

MERGE_RUN_PARENTS = f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})
{key_seek("r", Label.RUN, "runId")}
{_MERGE_REFERENCED_RUN}
MERGE (r)-[:{Rel.CHILD_OF}]->(p)
"""

# The roots runs name beyond their parents: a root is linked by the `rootRunId` its descendants keep, so a
# page can link it (and list what it started) even when no event of its own ever arrives.
MERGE_RUN_ROOTS = f"""
UNWIND $rows AS row
{_MERGE_REFERENCED_RUN}
"""


def _merge_run_io(rel: Rel) -> str:
    return f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})
{key_seek("r", Label.RUN, "runId")}
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
MERGE (r)-[e:{rel}]->(d)
SET {seen("e")}
"""


def _set_run_io_statistics(rel: Rel) -> str:
    return f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})-[e:{rel}]->(d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("r", Label.RUN, "runId")} {key_seek("d", Label.DATASET, "key")}
SET {_latest("e", "rowCount", "bytes", "fileCount")}
"""


# A run's data-quality report on a dataset (`graph.quality`): its checks and its metrics, each the latest
# an event of the run sent (each by its own order key, as producers may send them in separate events).
MERGE_RUN_CHECKS = f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})
{key_seek("r", Label.RUN, "runId")}
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
MERGE (r)-[e:{Rel.CHECKED}]->(d)
SET {seen("e")}, {_latest("e", "checksJson", "status", "checkedAt", "checksVersion", guard="checksOrder")}
"""

MERGE_RUN_METRICS = f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})
{key_seek("r", Label.RUN, "runId")}
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
MERGE (r)-[e:{Rel.CHECKED}]->(d)
SET {seen("e")}, {_latest("e", "metricsJson", "measuredAt", "metricsVersion", guard="metricsOrder")}
"""


# The part of a dataset a run read or wrote (`subset` facet, `graph.subsets`): only rows that sent one, so a
# run reading or writing a whole dataset costs nothing more.
def _set_run_io_subsets(rel: Rel) -> str:
    return f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{runId: row.runId}})-[e:{rel}]->(d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("r", Label.RUN, "runId")} {key_seek("d", Label.DATASET, "key")}
SET {_latest("e", "subset", guard="subsetOrder")}
"""


MERGE_RUN_READS = _merge_run_io(Rel.READ)
MERGE_RUN_WRITES = _merge_run_io(Rel.WROTE)
SET_RUN_READ_STATISTICS = _set_run_io_statistics(Rel.READ)
SET_RUN_WRITE_STATISTICS = _set_run_io_statistics(Rel.WROTE)
SET_RUN_READ_SUBSETS = _set_run_io_subsets(Rel.READ)
SET_RUN_WRITE_SUBSETS = _set_run_io_subsets(Rel.WROTE)

# A job edge seen or confirmed is current until `graph.validity.validity_settle`, later in the same
# transaction, says otherwise: it retires what the batch's completed runs left out, and works a job's
# edges out again in full when the batch is not simply its newest news.
_CURRENT = "e.staleSince = null, e.settledSince = null"
# The latest completed run that confirmed a job edge (a maximum: any order, same result); a row the batch
# only saw carries none, which changes nothing.
_CONFIRMED = _latest("e", "confirmedBy", "confirmedAt", guard="confirmedOrder", order="row.confirmedOrder")


def inferred_input(var: str, sighting: str) -> str:
    """A SET item, before the one that widens `var`'s first-seen: an input edge is `inferred` (from column
    lineage, `true`; absent once real) only while every sighting of it (`sighting`, a boolean) was, so a
    sighting as a real input, in any order, makes it real."""
    return (
        f"{var}.inferred = CASE WHEN {sighting} AND ({var}.firstSeen IS NULL OR {var}.inferred = true) "
        f"THEN true ELSE null END"
    )


# A row's `inferred`: the batch saw the edge only as a source its column lineage named (`graph.projection`).
MERGE_JOB_INPUTS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
MATCH (j:{Label.JOB} {{key: row.jobKey}})
{key_seek("j", Label.JOB, "key")}
MERGE (d)-[e:{Rel.INPUT_TO}]->(j)
SET {inferred_input("e", "row.inferred")}, {seen("e")}, {_CURRENT}, {_CONFIRMED}
"""

# Answers the output edges it made current that were not before (new, or stale until now): none of the job's
# derivations into such an output was current before the batch (`graph.validity`).
MERGE_JOB_OUTPUTS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.jobKey}})
{key_seek("j", Label.JOB, "key")}
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
MERGE (j)-[e:{Rel.OUTPUTS}]->(d)
WITH row, e, e.firstSeen IS NULL OR e.staleSince IS NOT NULL AS revived
SET {seen("e")}, {_CURRENT}, {_CONFIRMED}
WITH row, revived
WHERE revived
RETURN row.jobKey AS jobKey, row.datasetKey AS datasetKey
"""

# The last part of a dataset a job wrote (a partition: `subset` facet), as of its newest write naming one; set
# only from the rows of outputs that name one, so whole-dataset writes cost nothing more. Shown beside the edge.
SET_JOB_OUTPUT_SUBSETS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.jobKey}})-[e:{Rel.OUTPUTS}]->(d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("j", Label.JOB, "key")} {key_seek("d", Label.DATASET, "key")}
SET {_latest("e", "lastSubset", "lastSubsetAt", guard="lastSubsetOrder")}
"""

# A sighting of a schema version: its creating run is the earliest event's, its field descriptions and
# last key the newest's.
_VERSION_SIGHTING = f"""
    v.fieldDescriptions = CASE WHEN v.lastKey IS NULL OR row.order >= v.lastKey
                               THEN row.fieldDescriptions ELSE v.fieldDescriptions END,
    v.createdByRun = CASE WHEN v.firstKey IS NULL OR row.firstOrder < v.firstKey
                          THEN row.createdByRun ELSE v.createdByRun END,
    v.firstKey = CASE WHEN v.firstKey IS NULL OR row.firstOrder < v.firstKey
                      THEN row.firstOrder ELSE v.firstKey END,
    v.lastKey = CASE WHEN v.lastKey IS NULL OR row.order > v.lastKey THEN row.order ELSE v.lastKey END,
    {seen("v")}"""

MERGE_DATASET_VERSIONS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
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
{key_seek("v", Label.DATASET_VERSION, "key")}
SET{_VERSION_SIGHTING}
"""

MERGE_FIELDS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
MERGE (f:{Label.FIELD} {{key: row.key}})
ON CREATE SET f.nodeId = row.nodeId, f.namespace = row.namespace, f.dataset = row.dataset, {named("f", "row.name")}
MERGE (d)-[:{Rel.HAS_FIELD}]->(f)
"""

MERGE_FIELD_DERIVATIONS = f"""
UNWIND $rows AS row
MATCH (s:{Label.FIELD} {{key: row.sourceKey}})
{key_seek("s", Label.FIELD, "key")}
MATCH (t:{Label.FIELD} {{key: row.targetKey}})
{key_seek("t", Label.FIELD, "key")}
MERGE (s)-[e:{Rel.DERIVES} {{job: row.job}}]->(t)
SET {seen("e")}, {_CURRENT}, {_CONFIRMED},
    {_latest("e", "transformation", "subtype", "indirect", "description", "masking", "transformationsJson")}
"""

# A job dependency a run declared (`jobDependencies`), upstream job to downstream job, kept per declaring
# job (`declaredBy`, one of its two ends): an edge of that job, current or stale by its runs like its inputs.
MERGE_JOB_DEPENDENCIES = f"""
UNWIND $rows AS row
MATCH (u:{Label.JOB} {{key: row.sourceKey}})
{key_seek("u", Label.JOB, "key")}
MATCH (d:{Label.JOB} {{key: row.targetKey}})
{key_seek("d", Label.JOB, "key")}
MERGE (u)-[e:{Rel.PRECEDES} {{declaredBy: row.jobKey}}]->(d)
SET {seen("e")}, {_CURRENT}, {_CONFIRMED},
    {_latest("e", "dependencyType", "sequenceTriggerRule", "statusTriggerRule")}
"""


def _merge_owners(label: Label) -> str:
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{key: row.targetKey}})
{key_seek("x", label, "key")}
MERGE (o:{Label.OWNER} {{name: row.owner}})
ON CREATE SET o.kind = row.kind
MERGE (x)-[e:{Rel.OWNED_BY} {{role: row.role, source: '{OwnershipSource.EVENT}'}}]->(o)
SET {seen("e")}
"""


MERGE_DATASET_OWNERS = _merge_owners(Label.DATASET)
MERGE_JOB_OWNERS = _merge_owners(Label.JOB)


def _merge_tags(label: Label, key: str) -> str:
    """Tag nodes and their `TAGGED` edges: only ever added (commutative); search follows an edge only if its tag
    is among the node's current tags (`tags`, written with its facets), so a tag a later event dropped finds
    nothing."""
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{{key}: row.targetKey}})
{key_seek("x", label, key)}
MERGE (t:{Label.TAG} {{key: row.tag}})
MERGE (x)-[:{Rel.TAGGED}]->(t)
"""


MERGE_DATASET_TAGS = _merge_tags(Label.DATASET, "key")
MERGE_JOB_TAGS = _merge_tags(Label.JOB, "key")
MERGE_RUN_TAGS = _merge_tags(Label.RUN, "runId")

SET_DATASET_CURRENT_VERSIONS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
SET d.currentVersion = row.version, d.versionCount = row.versionCount,
    d.fieldCount = row.fieldCount
"""

SET_FIELD_TYPES = f"""
UNWIND $rows AS row
MATCH (f:{Label.FIELD} {{key: row.key}})
{key_seek("f", Label.FIELD, "key")}
SET f.type = row.type, f.current = row.current
"""

DELETE_SOME = "MATCH (n) WITH n LIMIT $limit DETACH DELETE n RETURN count(*) AS deleted"

# --- Ownership (catalog): hand-set OWNED_BY edges -------------------------------------------


def _merge_manual_owners(label: Label, key: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{{key}: row.targetKey}})
{key_seek("x", label, key)}
MERGE (o:{Label.OWNER} {{name: row.owner}})
SET o.kind = row.kind, o.contact = row.contact
MERGE (x)-[e:{Rel.OWNED_BY} {{role: row.role, source: '{OwnershipSource.MANUAL}'}}]->(o)
"""


def _delete_manual_owners(label: Label, key: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH (x:{label} {{{key}: row.targetKey}})-[e:{Rel.OWNED_BY} {{role: row.role, source: '{OwnershipSource.MANUAL}'}}]->
      (o:{Label.OWNER} {{name: row.owner}})
{key_seek("x", label, key)} {key_seek("o", Label.OWNER, "name")}
DELETE e
"""


MERGE_MANUAL_NAMESPACE_OWNERS = _merge_manual_owners(Label.NAMESPACE, "name")
MERGE_MANUAL_DATASET_OWNERS = _merge_manual_owners(Label.DATASET, "key")
MERGE_MANUAL_JOB_OWNERS = _merge_manual_owners(Label.JOB, "key")
DELETE_MANUAL_NAMESPACE_OWNERS = _delete_manual_owners(Label.NAMESPACE, "name")
DELETE_MANUAL_DATASET_OWNERS = _delete_manual_owners(Label.DATASET, "key")
DELETE_MANUAL_JOB_OWNERS = _delete_manual_owners(Label.JOB, "key")

DELETE_ALL_MANUAL_OWNERS = f"""
MATCH ()-[e:{Rel.OWNED_BY} {{source: '{OwnershipSource.MANUAL}'}}]->(:{Label.OWNER})
DELETE e
"""

SET_OWNER_CONTACTS = f"""
UNWIND $rows AS row
MATCH (o:{Label.OWNER} {{name: row.owner}})
{key_seek("o", Label.OWNER, "name")}
SET o.kind = row.kind, o.contact = row.contact
"""

# --- Edge validity (`graph.validity`): the completed runs that confirm a job's edges, and staleness ---


def _confirm(pattern: str) -> str:
    """Confirm edges the batch does not see again (a run's earlier events named them)."""
    return f"""
UNWIND $rows AS row
MATCH {pattern}
SET {_CONFIRMED}, {_CURRENT}
"""


# A job edge `e` by the keys of its ends, each sought in its index (`key_seek`).
_JOB_INPUT = (
    f"(d:{Label.DATASET} {{key: row.datasetKey}})-[e:{Rel.INPUT_TO}]->(j:{Label.JOB} {{key: row.jobKey}})\n"
    f"{key_seek('d', Label.DATASET, 'key')} {key_seek('j', Label.JOB, 'key')}"
)
_JOB_OUTPUT = (
    f"(j:{Label.JOB} {{key: row.jobKey}})-[e:{Rel.OUTPUTS}]->(d:{Label.DATASET} {{key: row.datasetKey}})\n"
    f"{key_seek('j', Label.JOB, 'key')} {key_seek('d', Label.DATASET, 'key')}"
)
_DERIVATION = (
    f"(s:{Label.FIELD} {{key: row.sourceKey}})-[e:{Rel.DERIVES} {{job: row.job}}]->"
    f"(t:{Label.FIELD} {{key: row.targetKey}})\n{key_seek('s', Label.FIELD, 'key')} {key_seek('t', Label.FIELD, 'key')}"
)
_DEPENDENCY = (
    f"(u:{Label.JOB} {{key: row.sourceKey}})-[e:{Rel.PRECEDES} {{declaredBy: row.jobKey}}]->"
    f"(d:{Label.JOB} {{key: row.targetKey}})\n{key_seek('u', Label.JOB, 'key')} {key_seek('d', Label.JOB, 'key')}"
)

CONFIRM_JOB_INPUTS = _confirm(_JOB_INPUT)
CONFIRM_JOB_OUTPUTS = _confirm(_JOB_OUTPUT)
CONFIRM_DERIVATIONS = _confirm(_DERIVATION)
CONFIRM_JOB_DEPENDENCIES = _confirm(_DEPENDENCY)


def _withdraw(pattern: str, identity: str) -> str:
    """Take back the confirmation of edges a run confirmed at `row.order`, a completion its fold no longer
    has (`graph.withdrawal`): answers each edge's identity (`identity`), job and first sighting."""
    return f"""
UNWIND $rows AS row
MATCH {pattern}
WHERE e.confirmedBy = row.runId AND e.confirmedOrder = row.order
SET e.confirmedBy = null, e.confirmedAt = null, e.confirmedOrder = null
RETURN {identity}, row.jobKey AS ofJob, e.firstSeen AS firstSeen
"""


WITHDRAW_JOB_INPUTS = _withdraw(
    f"(d)-[e:{Rel.INPUT_TO}]->(j:{Label.JOB} {{key: row.jobKey}})\n{key_seek('j', Label.JOB, 'key')}",
    "d.key AS datasetKey, row.jobKey AS jobKey",
)
WITHDRAW_JOB_OUTPUTS = _withdraw(
    f"(j:{Label.JOB} {{key: row.jobKey}})-[e:{Rel.OUTPUTS}]->(d)\n{key_seek('j', Label.JOB, 'key')}",
    "row.jobKey AS jobKey, d.key AS datasetKey",
)
# A run confirmed only derivations into what its job outputs.
WITHDRAW_DERIVATIONS = _withdraw(
    f"(j:{Label.JOB} {{key: row.jobKey}})-[:{Rel.OUTPUTS}]->()-[:{Rel.HAS_FIELD}]->(t)<-[e:{Rel.DERIVES}]-(s)\n"
    f"{key_seek('j', Label.JOB, 'key')}",
    "s.key AS sourceKey, t.key AS targetKey, e.job AS job",
)
# The declaring job is one end of its dependency edges (either end may declare one), so they are found from it.
WITHDRAW_JOB_DEPENDENCIES = _withdraw(
    f"(j:{Label.JOB} {{key: row.jobKey}})-[e:{Rel.PRECEDES} {{declaredBy: row.jobKey}}]-()\n"
    f"{key_seek('j', Label.JOB, 'key')}",
    "startNode(e).key AS sourceKey, endNode(e).key AS targetKey, row.jobKey AS jobKey",
)


def _set_stale_since(pattern: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH {pattern}
SET e.staleSince = row.staleSince, e.settledSince = row.settledSince
"""


SET_JOB_INPUT_STALE_SINCE = _set_stale_since(_JOB_INPUT)
SET_JOB_OUTPUT_STALE_SINCE = _set_stale_since(_JOB_OUTPUT)
SET_DERIVATION_STALE_SINCE = _set_stale_since(_DERIVATION)
SET_JOB_DEPENDENCY_STALE_SINCE = _set_stale_since(_DEPENDENCY)

# Where an edge's validity counts from: its latest confirmation or its last sighting (as an order key,
# `$separator` after the time), whichever is later; "" for neither.
_SINCE = (
    "CASE WHEN e.lastSeen IS NULL OR coalesce(e.confirmedOrder, '') > e.lastSeen + $separator "
    "THEN coalesce(e.confirmedOrder, '') ELSE e.lastSeen + $separator END"
)


def _retire(pattern: str, where: str = "") -> str:
    """Each current edge of `row.jobKey` last confirmed or seen before its newest completed run
    (`row.order`) turns stale at that run's end (`row.at`): the run left it out."""
    return f"""
UNWIND $rows AS row
MATCH {pattern}
WHERE {where}e.staleSince IS NULL
WITH row, e, {_SINCE} AS since
WHERE since <> '' AND since < row.order
SET e.staleSince = row.at, e.settledSince = since
"""


# A job's inputs, outputs and the dependencies it declared (it is one end of those, either way round), in
# one walk of the job's edges; the job's newest confirmation becomes that run's on the way.
RETIRE_JOB_EDGES = _retire(
    f"(j:{Label.JOB} {{key: row.jobKey}})\n"
    f"{key_seek('j', Label.JOB, 'key')}\n"
    f"SET j.latestConfirmation = row.order\n"
    f"WITH row, j\n"
    f"MATCH (j)-[e:{Rel.INPUT_TO}|{Rel.OUTPUTS}|{Rel.PRECEDES}]-()",
    where="(e.declaredBy IS NULL OR e.declaredBy = row.jobKey) AND ",
)
# A job's derivations end in fields of what it outputs; those into a dataset its output edge to is stale
# already are stale too (never confirmed or seen later than that edge), so only current outputs are walked,
# and not those the batch made current (`row.revived`) when it only confirmed derivations into them: those
# it did not confirm were stale before and stay so. Run before RETIRE_JOB_EDGES, while the outputs it
# retires are still current.
RETIRE_DERIVATIONS = _retire(
    f"(j:{Label.JOB} {{key: row.jobKey}})-[o:{Rel.OUTPUTS}]->(d)\n"
    f"{key_seek('j', Label.JOB, 'key')}\n"
    f"WHERE o.staleSince IS NULL AND NOT d.key IN row.revived\n"
    f"WITH row, j, d\n"
    f"MATCH (d)-[:{Rel.HAS_FIELD}]->()<-[e:{Rel.DERIVES}]-()",
    where="e.job = j.nodeId AND ",
)

# The newest confirmation a job's edges have had (`graph.validity`): an order key, only ever raised.
SET_JOB_LATEST_CONFIRMATIONS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.jobKey}})
{key_seek("j", Label.JOB, "key")}
SET j.latestConfirmation = row.latest
"""

# A job's latest JobEvent (static lineage): its time, kept as a maximum; the edges it did not declare are
# retired by it like by a completed run (`graph.validity`).
SET_JOB_DECLARATIONS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.jobKey}})
{key_seek("j", Label.JOB, "key")}
SET {_latest("j", "declaredAt", guard="declaredOrder", order="row.declaredOrder")}
"""

# A dataset's latest DROP (`lifecycleStateChange`): every job edge to or from it last seen before that is
# stale from then on (`graph.validity`); one seen after it (the dataset made again) is not.
SET_DATASET_DROPS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
SET {_latest("d", "droppedAt", guard="droppedOrder", order="row.droppedOrder")}
"""

# A dataset's latest deleted `columnLineage` facet (`{"_deleted": true}`): the derivations into its fields
# last seen before it are stale from then on (`graph.validity`).
SET_DATASET_LINEAGE_DELETIONS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
{key_seek("d", Label.DATASET, "key")}
SET {_latest("d", "lineageDeletedAt", guard="lineageDeletedOrder", order="row.deletedOrder")}
"""
