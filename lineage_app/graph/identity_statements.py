"""The alias registry's writes and the merge of an alias's dataset node into its canonical one
(docs/identity.md), as named, parameterised constants; the registry's reads are in `lookups`."""

from __future__ import annotations

from lineage_app.graph.model import Label, Rel, key_seek
from lineage_app.graph.writes import inferred_input, named, seen

MERGE_DATASET_ALIASES = f"""
UNWIND $rows AS row
MERGE (a:{Label.DATASET_ALIAS} {{key: row.key}})
SET a.namespace = row.namespace, {named("a", "row.name")}, a.normalKey = row.normalKey,
    a.normalNamespace = row.normalNamespace, a.normalName = row.normalName, {seen("a")},
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
{key_seek("a", Label.DATASET_ALIAS, "key")}
MATCH (b:{Label.DATASET_ALIAS} {{key: row.toKey}})
{key_seek("b", Label.DATASET_ALIAS, "key")}
MERGE (a)-[e:{Rel.SAME_AS}]->(b)
SET {seen("e")},
    {
    ", ".join(
        f"e.{p} = CASE WHEN e.sourceOrder IS NULL OR row.firstOrder < e.sourceOrder THEN row.{p} ELSE e.{p} END"
        for p in ("sourceEvent", "sourceProducer", "sourceJob")
    )
},
    e.sourceOrder = CASE WHEN e.sourceOrder IS NULL OR row.firstOrder < e.sourceOrder
                         THEN row.firstOrder ELSE e.sourceOrder END
"""

SET_ALIAS_CANONICAL = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET_ALIAS} {{key: row.key}})
{key_seek("a", Label.DATASET_ALIAS, "key")}
SET a.canonicalKey = row.canonicalKey
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
    same rule `writes` applies to rows, so merging two nodes equals applying both nodes' rows."""
    newer = f"({src}.{guard} IS NOT NULL AND ({dst}.{guard} IS NULL OR {src}.{guard} > {dst}.{guard}))"
    items = [f"{dst}.{p} = CASE WHEN {newer} THEN {src}.{p} ELSE {dst}.{p} END" for p in props]
    items.append(f"{dst}.{guard} = CASE WHEN {newer} THEN {src}.{guard} ELSE {dst}.{guard} END")
    return ", ".join(items)


# Each merge statement takes rows {fromKey, toKey, toNodeId, toNamespace, toName, fieldIdPrefix, sep}:
# the alias's Dataset node (fromKey) moves into the canonical one (toKey), edge by edge.
MERGE_ALIAS_DATASET = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})
{key_seek("a", Label.DATASET, "key")}
MERGE (c:{Label.DATASET} {{key: row.toKey}})
SET c.nodeId = row.toNodeId, c.namespace = row.toNamespace, {named("c", "row.toName")},
    {_widen("c", "a")},
    {_newer("c", "a", "latestRunId", "latestRunState", "latestRunTime", guard="latestRunOrder")}
REMOVE c.currentVersion
"""


def _move_dataset_edge(rel: Rel, pattern: str, merge: str, *props: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH {pattern}
{key_seek("a", Label.DATASET, "key")}
MATCH (c:{Label.DATASET} {{key: row.toKey}})
{key_seek("c", Label.DATASET, "key")}
MERGE {merge}
SET {_widen("m", "e")}{", " + _newer("m", "e", *props) if props else ""}
"""


# A job edge keeps the latest completed run that confirmed either of the two it merges; whether it is
# stale is worked out again afterwards (`graph.validity`, for the jobs around the merged datasets).
_CONFIRMATION = ("confirmedBy", "confirmedAt")


def _move_job_edge(rel: Rel, pattern: str, merge: str, *first: str) -> str:
    before = "".join(f"{item}, " for item in first)
    return f"""
UNWIND $rows AS row
MATCH {pattern}
{key_seek("a", Label.DATASET, "key")}
MATCH (c:{Label.DATASET} {{key: row.toKey}})
{key_seek("c", Label.DATASET, "key")}
MERGE {merge}
SET {before}{_widen("m", "e")}, {_newer("m", "e", *_CONFIRMATION, guard="confirmedOrder")}
"""


# An input inferred from column lineage stays so only if both edges it merges were.
MOVE_ALIAS_INPUTS = _move_job_edge(
    Rel.INPUT_TO,
    f"(a:{Label.DATASET} {{key: row.fromKey}})-[e:{Rel.INPUT_TO}]->(x:{Label.JOB})",
    f"(c)-[m:{Rel.INPUT_TO}]->(x)",
    inferred_input("m", "e.inferred = true"),
)
MOVE_ALIAS_OUTPUTS = _move_job_edge(
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

# A tag edge has no properties of its own: moved as it is.
MOVE_ALIAS_TAGS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.TAGGED}]->(t:{Label.TAG})
{key_seek("a", Label.DATASET, "key")}
MATCH (c:{Label.DATASET} {{key: row.toKey}})
{key_seek("c", Label.DATASET, "key")}
MERGE (c)-[:{Rel.TAGGED}]->(t)
"""

# Quality reports keep, of the two they merge, each part's latest (checks and metrics have their own order keys).
MOVE_ALIAS_CHECKS = f"""
UNWIND $rows AS row
MATCH (x:{Label.RUN})-[e:{Rel.CHECKED}]->(a:{Label.DATASET} {{key: row.fromKey}})
{key_seek("a", Label.DATASET, "key")}
MATCH (c:{Label.DATASET} {{key: row.toKey}})
{key_seek("c", Label.DATASET, "key")}
MERGE (x)-[m:{Rel.CHECKED}]->(c)
SET {_widen("m", "e")}, {_newer("m", "e", "checksJson", "status", "checkedAt", "checksVersion", guard="checksOrder")},
    {_newer("m", "e", "metricsJson", "measuredAt", "metricsVersion", guard="metricsOrder")}
"""

MOVE_ALIAS_VERSIONS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("a", Label.DATASET, "key")}
MATCH (c:{Label.DATASET} {{key: row.toKey}})
{key_seek("c", Label.DATASET, "key")}
MERGE (m:{Label.DATASET_VERSION} {{key: row.toKey + row.sep + v.version}})
SET m.namespace = row.toNamespace, m.name = row.toName, m.version = v.version,
    m.fieldNames = coalesce(m.fieldNames, v.fieldNames), m.fieldTypes = coalesce(m.fieldTypes, v.fieldTypes),
    m.fieldDescriptions = CASE WHEN m.lastKey IS NULL OR v.lastKey > m.lastKey
                               THEN v.fieldDescriptions ELSE m.fieldDescriptions END,
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
{key_seek("a", Label.DATASET, "key")}
MATCH (c:{Label.DATASET} {{key: row.toKey}})
{key_seek("c", Label.DATASET, "key")}
MERGE (m:{Label.FIELD} {{key: row.toKey + row.sep + f.name}})
ON CREATE SET m.nodeId = row.fieldIdPrefix + f.name, m.namespace = row.toNamespace,
              m.dataset = row.toName, {named("m", "f.name")}
MERGE (c)-[:{Rel.HAS_FIELD}]->(m)
"""

_DERIVATION_FACTS = ("transformation", "subtype", "indirect", "description", "masking", "transformationsJson")

MOVE_ALIAS_DERIVED_FROM = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
      -[e:{Rel.DERIVES}]->(t:{Label.FIELD})
{key_seek("a", Label.DATASET, "key")}
MATCH (n:{Label.FIELD} {{key: row.toKey + row.sep + f.name}})
{key_seek("n", Label.FIELD, "key")}
MERGE (n)-[m:{Rel.DERIVES} {{job: e.job}}]->(t)
SET {_widen("m", "e")}, {_newer("m", "e", *_DERIVATION_FACTS)},
    {_newer("m", "e", *_CONFIRMATION, guard="confirmedOrder")}
"""

MOVE_ALIAS_DERIVES_INTO = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
      <-[e:{Rel.DERIVES}]-(s:{Label.FIELD})
{key_seek("a", Label.DATASET, "key")}
MATCH (n:{Label.FIELD} {{key: row.toKey + row.sep + f.name}})
{key_seek("n", Label.FIELD, "key")}
MERGE (s)-[m:{Rel.DERIVES} {{job: e.job}}]->(n)
SET {_widen("m", "e")}, {_newer("m", "e", *_DERIVATION_FACTS)},
    {_newer("m", "e", *_CONFIRMATION, guard="confirmedOrder")}
"""

DELETE_ALIAS_FIELDS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
{key_seek("a", Label.DATASET, "key")}
DETACH DELETE f
"""

DELETE_ALIAS_VERSIONS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("a", Label.DATASET, "key")}
DETACH DELETE v
"""

DELETE_ALIAS_DATASETS = f"""
UNWIND $rows AS row
MATCH (a:{Label.DATASET} {{key: row.fromKey}})
{key_seek("a", Label.DATASET, "key")}
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
    MOVE_ALIAS_TAGS,
    MOVE_ALIAS_CHECKS,
    MOVE_ALIAS_VERSIONS,
    MOVE_ALIAS_FIELDS,
    MOVE_ALIAS_DERIVED_FROM,
    MOVE_ALIAS_DERIVES_INTO,
    DELETE_ALIAS_FIELDS,
    DELETE_ALIAS_VERSIONS,
    DELETE_ALIAS_DATASETS,
)
