"""Read statements for the lineage API, as named, parameterised constants.

Every statement here runs unchanged on Neo4j 5 and on the embedded ArcadeDB. Nulls are
coalesced before sorting (the two engines place nulls differently), and lists sort by their
named key, then by `nodeId` / `runId`, so pages are stable.
"""

from __future__ import annotations

from lineage_app.graph.failure_cause import DATA_QUALITY
from lineage_app.graph.model import Label, Moment, OwnershipSource, Rel, key_seek

# ---- node lookup (an API id may split several ways; the caller asks for every candidate key) ----


def _find_nodes(label: Label) -> str:
    return (
        f"UNWIND $keys AS k MATCH (n:{label} {{key: k}}) {key_seek('n', label, 'key')} "
        "RETURN n.key AS key, elementId(n) AS id"
    )


FIND_DATASETS = _find_nodes(Label.DATASET)
FIND_JOBS = _find_nodes(Label.JOB)
FIND_FIELDS = _find_nodes(Label.FIELD)
FIND_NODES = {Label.DATASET: FIND_DATASETS, Label.JOB: FIND_JOBS, Label.FIELD: FIND_FIELDS}


# ---- lineage: one or two hops per round trip, per node kind and direction ----
# Each hop and each summary answers ONE record holding a list: the engines' per-record cost
# (ArcadeDB's most of all) is far above the cost of a longer list. A traversal names the nodes it
# has reached by element id, valid for the one read transaction it runs in: seeking a node by
# element id costs both engines a fraction of an index lookup by key. Hops, the hot path, answer
# lists (maps made a 2,000-node lineage read about 10% slower) whose columns are named
# once here; the statement is built from the names and a reader finds a column by its name.

# Which edges a hop follows, by (whether it asks about an instant `$at`, whether stale edges count):
# `graph.validity` keeps `staleSince` on every job edge and derivation (null while current).
_FILTERS = {
    (False, False): ("{e}.staleSince IS NULL",),
    (False, True): (),
    (True, False): ("{e}.firstSeen <= $at", "({e}.staleSince IS NULL OR {e}.staleSince > $at)"),
    (True, True): ("{e}.firstSeen <= $at",),
}
# The edges a hop leaves out unless asked for them, beside time: inputs inferred from column lineage (an
# `INPUT_TO` edge's `inferred`, `graph.writes.inferred_input`), by relationship.
_LEFT_OUT = {Rel.INPUT_TO: "{e}.inferred IS NULL"}
# Every (at, stale, inferred) triple a `Moment` can be, and whether the hop answers each edge's times: a lineage
# answer shows them, a walk that only needs what it reaches (impact, root cause, a path's length) leaves them out.
WINDOWS = tuple(
    (at, stale, inferred, times) for at, stale in _FILTERS for inferred in (True, False) for times in (True, False)
)


def window(moment: Moment, *, times: bool = True) -> tuple[bool, bool, bool, bool]:
    """The key of the statements that follow the edges `moment` names (with each edge's times or not)."""
    return (moment.at is not None, moment.stale, moment.inferred, times)


def hop_filter(var: str, rel: Rel, at: bool, stale: bool, inferred: bool) -> str:
    conditions = [*_FILTERS[(at, stale)], *([] if inferred or rel not in _LEFT_OUT else [_LEFT_OUT[rel]])]
    return f"WHERE {' AND '.join(conditions).format(e=var)} " if conditions else ""


# One hop of dataset lineage, Dataset -INPUT_TO-> Job -OUTPUTS-> Dataset, and of column lineage,
# Field -DERIVES-> Field: (direction, frontier label) -> (relationship, next label).
HOP_STEPS = {
    ("downstream", Label.DATASET): (Rel.INPUT_TO, Label.JOB),
    ("downstream", Label.JOB): (Rel.OUTPUTS, Label.DATASET),
    ("upstream", Label.DATASET): (Rel.OUTPUTS, Label.JOB),
    ("upstream", Label.JOB): (Rel.INPUT_TO, Label.DATASET),
    ("downstream", Label.FIELD): (Rel.DERIVES, Label.FIELD),
    ("upstream", Label.FIELD): (Rel.DERIVES, Label.FIELD),
}
# When an edge held, as every lineage edge carries it into an answer.
EDGE_TIMES = ("firstSeen", "lastSeen", "staleSince")
# What a dataset-lineage edge carries beside its times: whether it is an input inferred from column lineage
# (`true`, else null).
EDGE_MARKS = ("inferred",)
# What a DERIVES edge carries into column lineage besides its times.
EDGE_PROPERTIES = ("job", "transformation", "subtype", "indirect")
# The columns of a hop's lists: a DERIVES hop has all of them but the marks (null), a dataset-lineage hop the
# first seven.
HOP_COLUMNS = ("source", "target", "targetId", *EDGE_TIMES, *EDGE_MARKS, *EDGE_PROPERTIES)
_HOP_VALUES = {"source": "a.key", "target": "b.key", "targetId": "elementId(b)"} | {
    name: f"e.{name}" for name in (*EDGE_TIMES, *EDGE_MARKS, *EDGE_PROPERTIES)
}
# The columns of a two-hop read's lists: for each middle node, the frontier keys reaching it and their
# edges' times and marks, and the far nodes beyond it (keys, element ids, edges' times and marks: aggregated
# over the same rows, so they pair up).
TWO_HOP_COLUMNS = ("sources", "sourceTimes", "middle", "middleId", "targets", "targetIds", "targetTimes")
_TWO_HOP_VALUES = {name: name for name in TWO_HOP_COLUMNS} | {"middle": "b.key", "middleId": "elementId(b)"}
_TIMES = "[{e}.firstSeen, {e}.lastSeen, {stale}, {inferred}]"


def _stale_since(var: str, at: bool, stale: bool) -> str:
    """What a hop answers as an edge's `staleSince`: null outright when it follows current edges only
    (every such edge's is null, and reading it would cost the engine one more property lookup per edge)."""
    return "null" if not at and not stale else f"{var}.staleSince"


def _inferred(var: str, rel: Rel, inferred: bool) -> str:
    """What a hop answers as an edge's `inferred`: null outright for edges that are never inferred, and when
    the hop leaves inferred ones out."""
    return f"{var}.inferred" if inferred and rel in _LEFT_OUT else "null"


def _frontier(label: Label) -> str:
    return f"UNWIND $ids AS i MATCH (a:{label}) WHERE elementId(a) = i "


def _hop(direction: str, start: Label, at: bool, stale: bool, inferred: bool, times: bool) -> str:
    """Each edge one hop from the frontier as a list of `HOP_COLUMNS` (all of them for DERIVES; the times
    and marks null unless `times`)."""
    match, values = _hop_parts(direction, start, at, stale, inferred, times)
    return f"{match}RETURN collect([{values}]) AS pairs"


def _hop_parts(direction: str, start: Label, at: bool, stale: bool, inferred: bool, times: bool) -> tuple[str, str]:
    """A hop's MATCH over the edges it follows from frontier node `a`, and the values of each edge's list."""
    rel, end = HOP_STEPS[(direction, start)]
    pattern = f"(a)-[e:{rel}]->(b:{end})" if direction == "downstream" else f"(a)<-[e:{rel}]-(b:{end})"
    columns = HOP_COLUMNS if rel is Rel.DERIVES else HOP_COLUMNS[: 3 + len(EDGE_TIMES) + len(EDGE_MARKS)]
    hop_values = _HOP_VALUES | {"staleSince": _stale_since("e", at, stale), "inferred": _inferred("e", rel, inferred)}
    values = ", ".join(
        hop_values[name] if times or name not in (*EDGE_TIMES, *EDGE_MARKS) else "null" for name in columns
    )
    return f"{_frontier(start)}MATCH {pattern} {hop_filter('e', rel, at, stale, inferred)}", values


def _windows(*rels: Rel) -> tuple[tuple[bool, bool, bool, bool], ...]:
    """The windows a hop over `rels` has statements of its own for: the one for inferred edges or not, unless
    none of `rels` has edges a `Moment` may leave out (`hop_key` asks for the one with them then)."""
    return tuple(key for key in WINDOWS if key[2] or any(rel in _LEFT_OUT for rel in rels))


# One hop, keyed by (direction, frontier label, `window(moment)`); the value names the next label.
HOPS: dict[tuple[str, Label, tuple[bool, bool, bool, bool]], tuple[str, Label]] = {
    (direction, start, key): (_hop(direction, start, *key), HOP_STEPS[(direction, start)][1])
    for direction, start in HOP_STEPS
    for key in _windows(HOP_STEPS[(direction, start)][0])
}


def _clustered_hop(direction: str, start: Label, at: bool, stale: bool, inferred: bool, times: bool) -> str:
    """`_hop` for a walk that summarises big neighbourhoods: per frontier node, its key, how many neighbours
    the hop reaches from it, and its edges as `_hop` lists them, none when more than `$over` (the engine
    counts them; they never leave it)."""
    match, values = _hop_parts(direction, start, at, stale, inferred, times)
    return (
        f"{match}WITH a, collect([{values}]) AS pairs "
        "RETURN collect([a.key, size(pairs), CASE WHEN size(pairs) > $over THEN [] ELSE pairs END]) AS sources"
    )


# `HOPS`' dataset-lineage hops, each as `_clustered_hop`; keyed like `HOPS`.
CLUSTERED_HOPS: dict[tuple[str, Label, tuple[bool, bool, bool, bool]], tuple[str, Label]] = {
    key: (_clustered_hop(key[0], key[1], *key[2]), end) for key, (_, end) in HOPS.items() if key[1] is not Label.FIELD
}


def _double_hop(direction: str, start: Label, at: bool, stale: bool, inferred: bool, times: bool) -> str:
    """Two hops in one round trip, Dataset -> Job -> Dataset or Job -> Dataset -> Job: a list of
    `TWO_HOP_COLUMNS` for each middle node (one with nothing beyond it has empty far lists; the times
    lists are empty unless `times`)."""
    first_rel, middle = HOP_STEPS[(direction, start)]
    second_rel, end = HOP_STEPS[(direction, middle)]

    def arrow(var: str, rel: Rel) -> str:
        return f"-[{var}:{rel}]->" if direction == "downstream" else f"<-[{var}:{rel}]-"

    def held(var: str, rel: Rel) -> str:
        return _TIMES.format(e=var, stale=_stale_since(var, at, stale), inferred=_inferred(var, rel, inferred))

    source_times = f"collect({held('e', first_rel)})" if times else "[]"
    target_times = f"collect(CASE WHEN c IS NULL THEN null ELSE {held('f', second_rel)} END)" if times else "[]"
    first_held = hop_filter("e", first_rel, at, stale, inferred)
    return (
        f"{_frontier(start)}MATCH (a){arrow('e', first_rel)}(b:{middle}) {first_held}"
        f"WITH b, collect(a.key) AS sources, {source_times} AS sourceTimes "
        f"OPTIONAL MATCH (b){arrow('f', second_rel)}(c:{end}) {hop_filter('f', second_rel, at, stale, inferred)}"
        f"WITH b, sources, sourceTimes, collect(c.key) AS targets, collect(elementId(c)) AS targetIds, "
        f"{target_times} AS targetTimes "
        f"RETURN collect([{', '.join(_TWO_HOP_VALUES[name] for name in TWO_HOP_COLUMNS)}]) AS rows"
    )


# Two hops, keyed like HOPS; the value names the middle and far labels.
DOUBLE_HOPS: dict[tuple[str, Label, tuple[bool, bool, bool, bool]], tuple[str, Label, Label]] = {
    (direction, start, key): (
        _double_hop(direction, start, *key),
        HOP_STEPS[(direction, start)][1],
        HOP_STEPS[(direction, HOP_STEPS[(direction, start)][1])][1],
    )
    for direction, start in HOP_STEPS
    if start is not Label.FIELD
    for key in WINDOWS
}


def hop_key(
    direction: str, start: Label, moment: Moment, *, times: bool
) -> tuple[str, Label, tuple[bool, bool, bool, bool]]:
    """The key in `HOPS` of the hop from a `start` node `direction`-wards over the edges `moment` names."""
    key = window(moment, times=times)
    if not key[2] and HOP_STEPS[(direction, start)][0] not in _LEFT_OUT:
        key = (key[0], key[1], True, key[3])  # no edge of the hop's is ever left out
    return direction, start, key


# Declared job dependencies (`PRECEDES`, from `jobDependencies` run facets): one hop from the frontier jobs,
# upstream or downstream, as lists of `HOP_COLUMNS`' first six, every edge with its times. Drawn beside the
# data flow in the lineage view (`traversal.job_lineage_traverse`), never walked on by impact or root cause.
def _dependency_hop(direction: str, at: bool, stale: bool) -> str:
    arrow = "-[e:{rel}]->" if direction == "downstream" else "<-[e:{rel}]-"
    values = ", ".join(
        (_HOP_VALUES | {"staleSince": _stale_since("e", at, stale)})[name]
        for name in HOP_COLUMNS[: 3 + len(EDGE_TIMES)]
    )
    held = hop_filter("e", Rel.PRECEDES, at, stale, True)  # a dependency is never inferred: nothing to leave out
    return (
        f"{_frontier(Label.JOB)}MATCH (a){arrow.format(rel=Rel.PRECEDES)}(b:{Label.JOB}) {held}"
        f"RETURN collect([{values}]) AS pairs"
    )


# Keyed by (direction, `window(moment)`'s first two).
DEPENDENCY_HOPS: dict[tuple[str, tuple[bool, bool]], str] = {
    (direction, key): _dependency_hop(direction, *key) for direction in ("upstream", "downstream") for key in _FILTERS
}

# ---- applications: jobs whose runs are the parents (ParentRunFacet, `CHILD_OF`) of other jobs' runs ----
# A job's application is the job of its latest run's parent run, when that parent is an application whose
# children are its internals: a Spark application (its actions) or a Flink job (its operators), as its
# `jobType` facet says (`jobType` APPLICATION, or integration SPARK or FLINK), or, when the parent sent no
# `jobType` of its own (known only as its children's parent), as the child's says (a Spark or Flink step that
# is no application itself: a Spark application's parent is the orchestrator task that ran it). An orchestrator's run (a
# dbt run, an Airflow DAG or task) is the parent of the pipeline's own steps, with their datasets in between:
# rolled up, it would stand as one job reading and writing its own intermediates, so it never is. Only the
# latest run is asked, by the `latestRunId` the writes keep on the job: a seek per job, however many runs it has.
INTERNAL_STEP_INTEGRATIONS = ("SPARK", "FLINK")


def _rolls_up(app: str, child: str) -> str:
    """The condition on job variables `app` (the parent run's job) and `child` under which `child` is one of
    `app`'s internal steps."""
    integrations = "[" + ", ".join(f"'{name}'" for name in INTERNAL_STEP_INTEGRATIONS) + "]"
    return (
        f"({app}.jobType = 'APPLICATION' OR {app}.integration IN {integrations}"
        f" OR ({app}.jobType IS NULL AND {app}.integration IS NULL AND {child}.integration IN {integrations}"
        f" AND coalesce({child}.jobType, '') <> 'APPLICATION'))"
    )


# Each job named by element id in `$ids` that is part of an application, as
# {job (key), application (key), applicationId (element id)}.
JOB_APPLICATIONS = f"""
UNWIND $ids AS i MATCH (j:{Label.JOB}) WHERE elementId(j) = i
MATCH (r:{Label.RUN} {{runId: j.latestRunId}})-[:{Rel.CHILD_OF}]->(:{Label.RUN})<-[:{Rel.HAS_RUN}]-(app:{Label.JOB})
{key_seek("r", Label.RUN, "runId")}
WHERE app.key <> j.key AND {_rolls_up("app", "j")}
RETURN collect({{job: j.key, application: app.key, applicationId: elementId(app)}}) AS rows
"""

# The jobs that are part of each application job in `$keys` (their latest run's parent run is one of
# its runs, and they are its internal steps), as {application (key), job (key), jobId (element id)}.
APPLICATION_ACTIONS = f"""
UNWIND $keys AS k
MATCH (app:{Label.JOB} {{key: k}})-[:{Rel.HAS_RUN}]->()<-[:{Rel.CHILD_OF}]-(r)<-[:{Rel.HAS_RUN}]-(j)
{key_seek("app", Label.JOB, "key")}
WHERE r.runId = j.latestRunId AND j.key <> k AND {_rolls_up("app", "j")}
RETURN collect({{application: k, job: j.key, jobId: elementId(j)}}) AS rows
"""


def node_columns(label: Label, columns: tuple[tuple[str, str], ...], *, by_id: bool = False) -> str:
    """A statement answering, for each of `$keys` naming a `label` node (or each of `$ids`, its
    element id, when `by_id`), one list of the node's properties in `columns` order
    ((name, property) pairs; lists cost the engines less than maps, `traversal.node_rows` names them)."""
    values = ", ".join(f"n.{prop}" for _, prop in columns)
    match = (
        f"UNWIND $ids AS i MATCH (n:{label}) WHERE elementId(n) = i"
        if by_id
        else f"UNWIND $keys AS k MATCH (n:{label} {{key: k}}) {key_seek('n', label, 'key')}"
    )
    return f"{match} RETURN collect([{values}]) AS rows"


# What the explorer shows of each node, as (API field, node property). A dataset's and a job's
# latest run are kept on the node by the writes (`latestRun*`), so no run is read here.
SUMMARY_COLUMNS: dict[Label, tuple[tuple[str, str], ...]] = {
    Label.DATASET: (
        ("key", "key"),
        ("nodeId", "nodeId"),
        ("namespace", "namespace"),
        ("name", "name"),
        ("currentVersion", "currentVersion"),
        ("fieldCount", "fieldCount"),
        ("firstSeen", "firstSeen"),
        ("lastSeen", "lastSeen"),
        ("lastRunState", "latestRunState"),
        ("lastRunTime", "latestRunTime"),
        ("temporary", "temporary"),
    ),
    Label.JOB: (
        ("key", "key"),
        ("nodeId", "nodeId"),
        ("namespace", "namespace"),
        ("name", "name"),
        ("jobType", "jobType"),
        ("firstSeen", "firstSeen"),
        ("lastSeen", "lastSeen"),
        ("latestRunId", "latestRunId"),
        ("latestRunState", "latestRunState"),
        ("latestRunTime", "latestRunTime"),
    ),
    Label.FIELD: (
        ("key", "key"),
        ("nodeId", "nodeId"),
        ("namespace", "namespace"),
        ("dataset", "dataset"),
        ("name", "name"),
        ("type", "type"),
    ),
}

DATASET_SUMMARIES = node_columns(Label.DATASET, SUMMARY_COLUMNS[Label.DATASET])
JOB_SUMMARIES = node_columns(Label.JOB, SUMMARY_COLUMNS[Label.JOB])
FIELD_SUMMARIES = node_columns(Label.FIELD, SUMMARY_COLUMNS[Label.FIELD])
DATASET_SUMMARIES_BY_ID = node_columns(Label.DATASET, SUMMARY_COLUMNS[Label.DATASET], by_id=True)
JOB_SUMMARIES_BY_ID = node_columns(Label.JOB, SUMMARY_COLUMNS[Label.JOB], by_id=True)
FIELD_SUMMARIES_BY_ID = node_columns(Label.FIELD, SUMMARY_COLUMNS[Label.FIELD], by_id=True)
SUMMARIES = {Label.DATASET: DATASET_SUMMARIES, Label.JOB: JOB_SUMMARIES, Label.FIELD: FIELD_SUMMARIES}
SUMMARIES_BY_ID = {
    Label.DATASET: DATASET_SUMMARIES_BY_ID,
    Label.JOB: JOB_SUMMARIES_BY_ID,
    Label.FIELD: FIELD_SUMMARIES_BY_ID,
}


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
MATCH (d:{Label.DATASET}) {_list_filter("d")}
RETURN d.key AS key ORDER BY d.namespace, d.name, d.nodeId SKIP $offset LIMIT $limit
"""

JOB_COUNT = f"MATCH (j:{Label.JOB}) {_list_filter('j')} RETURN count(j) AS count"
JOB_PAGE = f"""
MATCH (j:{Label.JOB}) {_list_filter("j")}
RETURN j.key AS key ORDER BY j.namespace, j.name, j.nodeId SKIP $offset LIMIT $limit
"""


# ---- dataset detail ----

DATASET_NODE = f"""
MATCH (d:{Label.DATASET} {{key: $key}})
{key_seek("d", Label.DATASET, "key")}
RETURN d.nodeId AS id, d.namespace AS namespace, d.name AS name, d.facetsJson AS facetsJson,
       d.currentVersion AS currentVersion
"""

DATASET_FIELDS = f"""
MATCH (d:{Label.DATASET} {{key: $key}})-[:{Rel.HAS_FIELD}]->(f:{Label.FIELD})
{key_seek("d", Label.DATASET, "key")}
RETURN f.nodeId AS id, f.name AS name, f.type AS type, coalesce(f.current, true) AS current
ORDER BY name, id
"""

DATASET_VERSIONS = f"""
MATCH (d:{Label.DATASET} {{key: $key}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("d", Label.DATASET, "key")}
RETURN v.version AS version, v.firstSeen AS firstSeen, v.lastSeen AS lastSeen,
       v.createdByRun AS createdByRun, v.fieldNames AS fieldNames, v.fieldTypes AS fieldTypes,
       v.fieldDescriptions AS fieldDescriptions, v.lastKey AS lastKey
ORDER BY coalesce(v.firstKey, ''), version
"""

DATASET_OWNERS = f"""
MATCH (d:{Label.DATASET} {{key: $key}})-[e:{Rel.OWNED_BY}]->(o:{Label.OWNER})
{key_seek("d", Label.DATASET, "key")}
RETURN o.name AS name, o.kind AS kind, e.role AS role, e.source AS source
ORDER BY name, role, source
"""

# A dataset's producers and consumers, current and former (stale: no longer confirmed by the job's runs).
DATASET_PRODUCERS = f"""
MATCH (j:{Label.JOB})-[e:{Rel.OUTPUTS}]->(d:{Label.DATASET} {{key: $key}})
{key_seek("d", Label.DATASET, "key")}
RETURN j.nodeId AS id, e.lastSeen AS lastSeen, e.staleSince AS staleSince ORDER BY id
"""

DATASET_CONSUMERS = f"""
MATCH (d:{Label.DATASET} {{key: $key}})-[e:{Rel.INPUT_TO}]->(j:{Label.JOB})
{key_seek("d", Label.DATASET, "key")}
RETURN j.nodeId AS id, e.lastSeen AS lastSeen, e.staleSince AS staleSince, e.inferred AS inferred ORDER BY id
"""

# The runs that wrote the dataset, newest first.
DATASET_LAST_RUNS = f"""
MATCH (r:{Label.RUN})-[w:{Rel.WROTE}]->(d:{Label.DATASET} {{key: $key}})
{key_seek("d", Label.DATASET, "key")}
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r)
RETURN r.runId AS runId, j.nodeId AS job, r.state AS state, r.startedAt AS startedAt,
       r.endedAt AS endedAt, w.subset AS subset
ORDER BY coalesce(r.startedAt, r.endedAt, r.lastEventTime, '') DESC, runId
LIMIT $limit
"""

# The rows and bytes each run wrote to the dataset (its `outputStatistics`, kept on the WROTE edge), newest first.
DATASET_WRITE_STATISTICS = f"""
MATCH (r:{Label.RUN})-[w:{Rel.WROTE}]->(d:{Label.DATASET} {{key: $key}})
{key_seek("d", Label.DATASET, "key")}
WITH r, w, coalesce(r.endedAt, r.startedAt, r.lastEventTime) AS at
WHERE w.rowCount IS NOT NULL OR w.bytes IS NOT NULL OR w.fileCount IS NOT NULL
RETURN r.runId AS runId, r.state AS state, at, w.rowCount AS rowCount, w.bytes AS bytes, w.fileCount AS fileCount
ORDER BY coalesce(at, '') DESC, runId
LIMIT $limit
"""

DATASET_VERSION_FIELDS = f"""
MATCH (d:{Label.DATASET} {{key: $key}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("d", Label.DATASET, "key")}
WHERE v.version IN $versions
RETURN v.version AS version, v.fieldNames AS fieldNames, v.fieldTypes AS fieldTypes
"""


# ---- job detail and runs ----

# The input and output datasets of each job in `$keys` (an application's action jobs).
# A job's inputs as [dataset id, staleSince, inferred] and outputs as [dataset id, staleSince] (staleSince null
# while current, inferred true for an input inferred from column lineage; a job with none has one list of nulls).
JOB_IO = f"""
UNWIND $keys AS k
MATCH (j:{Label.JOB} {{key: k}})
{key_seek("j", Label.JOB, "key")}
OPTIONAL MATCH (i:{Label.DATASET})-[e:{Rel.INPUT_TO}]->(j)
WITH j, collect([i.nodeId, e.staleSince, e.inferred]) AS inputs
OPTIONAL MATCH (j)-[f:{Rel.OUTPUTS}]->(o:{Label.DATASET})
RETURN j.key AS key, inputs, collect([o.nodeId, f.staleSince]) AS outputs
"""

JOB_NODE = f"""
MATCH (j:{Label.JOB} {{key: $key}})
{key_seek("j", Label.JOB, "key")}
OPTIONAL MATCH (i:{Label.DATASET})-[e:{Rel.INPUT_TO}]->(j)
WITH j, collect([i.nodeId, e.staleSince, e.inferred]) AS inputs
OPTIONAL MATCH (j)-[f:{Rel.OUTPUTS}]->(o:{Label.DATASET})
RETURN j.nodeId AS id, j.namespace AS namespace, j.name AS name, j.jobType AS jobType,
       j.facetsJson AS facetsJson, inputs, collect([o.nodeId, f.staleSince]) AS outputs
"""

# A job's declared dependencies (`PRECEDES`, from `jobDependencies` run facets), each way, as lists of
# [other job's id, declaring job's key, stale since, dependency type, sequence rule, status rule].
_DEPENDENCY = (
    "[{other}.nodeId, {e}.declaredBy, {e}.staleSince, {e}.dependencyType, {e}.sequenceTriggerRule, "
    "{e}.statusTriggerRule]"
)
JOB_DEPENDENCIES = f"""
MATCH (j:{Label.JOB} {{key: $key}})
{key_seek("j", Label.JOB, "key")}
OPTIONAL MATCH (u:{Label.JOB})-[e:{Rel.PRECEDES}]->(j)
WITH j, collect({_DEPENDENCY.format(other="u", e="e")}) AS upstream
OPTIONAL MATCH (j)-[f:{Rel.PRECEDES}]->(d:{Label.JOB})
RETURN upstream, collect({_DEPENDENCY.format(other="d", e="f")}) AS downstream
"""

_RUN_FIELDS = (
    "r.runId AS runId, r.state AS state, r.startedAt AS startedAt, r.endedAt AS endedAt, "
    "r.durationMs AS durationMs, r.errorMessage AS errorMessage, "
    "r.failureCause AS cause, r.failureClass AS classification, r.trigger AS trigger"
)
_RUN_NEWEST_FIRST = "ORDER BY coalesce(r.startedAt, r.endedAt, r.lastEventTime, '') DESC, r.runId"

JOB_RUN_COUNT = f"""
MATCH (:{Label.JOB} {{key: $key}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN}) RETURN count(r) AS count
"""

JOB_RUN_PAGE = f"""
MATCH (j:{Label.JOB} {{key: $key}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
{key_seek("j", Label.JOB, "key")}
RETURN {_RUN_FIELDS} {_RUN_NEWEST_FIRST} SKIP $offset LIMIT $limit
"""


# The kinds of step each run of `$runIds` ran: the integration and job type of its child runs' jobs, as
# {runId, integration, jobType, steps (how many child runs)}, one row per kind (none for a run with no children).
RUN_STEP_KINDS = f"""
UNWIND $runIds AS id
MATCH (c:{Label.RUN})-[:{Rel.CHILD_OF}]->(r:{Label.RUN} {{runId: id}})
{key_seek("r", Label.RUN, "runId")}
MATCH (cj:{Label.JOB})-[:{Rel.HAS_RUN}]->(c)
RETURN id AS runId, cj.integration AS integration, cj.jobType AS jobType, count(c) AS steps
"""


# ---- failures: failed / aborted runs, by the time they ended ----
# A run that completed but reported failing data-quality checks (`graph.quality`) is a failure too.


def failed(var: str) -> str:
    """Whether run `var` is a failure: its state is one of `$states`, or it failed its data-quality checks."""
    return f"({var}.state IN $states OR coalesce({var}.failureClass, '') = '{DATA_QUALITY}')"


# A run's class (`failureClass`, folded from its error) decides `$classification`; an application run
# whose own error says nothing (no class, or `unknown`) matches by the classes of its failed child
# (action) runs instead, when they have one, as its headline borrows a child's cause; and any
# application run matches `data_quality` when one of its failed actions failed its checks.

_FAILURE_MATCH = f"""
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
WHERE {failed("r")}
  AND ($namespace IS NULL OR j.namespace = $namespace)
  AND ($jobKey IS NULL OR j.key = $jobKey)
WITH j, r, coalesce(r.endedAt, r.lastEventTime, '') AS at
WHERE ($since IS NULL OR at >= $since) AND ($until IS NULL OR at <= $until)
OPTIONAL MATCH (c:{Label.RUN})-[:{Rel.CHILD_OF}]->(r)
WHERE $classification IS NOT NULL AND {failed("c")} AND coalesce(c.failureClass, 'unknown') <> 'unknown'
WITH j, r, at, collect(c.failureClass) AS childClasses, coalesce(r.failureClass, 'unknown') = 'unknown' AS vague
WHERE $classification IS NULL
   OR (NOT (vague AND size(childClasses) > 0) AND r.failureClass = $classification)
   OR ((vague OR $classification = '{DATA_QUALITY}') AND $classification IN childClasses)
"""

FAILURE_COUNT = _FAILURE_MATCH + "RETURN count(r) AS count"

FAILURE_PAGE = _FAILURE_MATCH + "RETURN r.runId AS runId ORDER BY at DESC, runId SKIP $offset LIMIT $limit"


# The datasets a run's data-quality checks failed on (API ids and natural keys), after `WITH <carried>, r`.
def _failed_checks(carried: str, run: str) -> str:
    return f"""OPTIONAL MATCH ({run})-[q:{Rel.CHECKED}]->(t:{Label.DATASET})
WHERE q.status = 'failing'
WITH {carried}, collect(DISTINCT t.nodeId) AS tested, collect(DISTINCT t.key) AS testedKeys"""


# What each run should have written: the datasets it wrote, and every declared output of its job
# (API ids, and natural keys for the blast radius); and the datasets its failing checks tested.
FAILURE_DETAILS = f"""
UNWIND $runIds AS id
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r:{Label.RUN} {{runId: id}})
{key_seek("r", Label.RUN, "runId")}
OPTIONAL MATCH (r)-[:{Rel.WROTE}]->(w:{Label.DATASET})
WITH j, r, collect(DISTINCT w.nodeId) AS wrote, collect(DISTINCT w.key) AS wroteKeys
{_failed_checks("j, r, wrote, wroteKeys", "r")}
OPTIONAL MATCH (j)-[:{Rel.OUTPUTS}]->(o:{Label.DATASET})
RETURN r.runId AS runId, j.nodeId AS job, r.state AS state, r.startedAt AS startedAt,
       r.endedAt AS endedAt, r.errorMessage AS errorMessage, r.stackTrace AS stackTrace,
       r.failureCause AS cause, r.failureClass AS classification, r.parentRunId AS parentRunId,
       wrote, collect(DISTINCT o.nodeId) AS declared, wroteKeys, collect(DISTINCT o.key) AS declaredKeys,
       tested, testedKeys
"""

# The failed child (action) runs of each run in `$runIds`, with what each should have written.
FAILURE_CHILDREN = f"""
UNWIND $runIds AS id
MATCH (c:{Label.RUN})-[:{Rel.CHILD_OF}]->(r:{Label.RUN} {{runId: id}})
{key_seek("r", Label.RUN, "runId")}
WHERE {failed("c")}
MATCH (cj:{Label.JOB})-[:{Rel.HAS_RUN}]->(c)
OPTIONAL MATCH (c)-[:{Rel.WROTE}]->(w:{Label.DATASET})
WITH id, c, cj, collect(DISTINCT w.nodeId) AS wrote, collect(DISTINCT w.key) AS wroteKeys
{_failed_checks("id, c, cj, wrote, wroteKeys", "c")}
OPTIONAL MATCH (cj)-[:{Rel.OUTPUTS}]->(o:{Label.DATASET})
RETURN id AS parentRunId, c.runId AS runId, cj.nodeId AS job, coalesce(c.endedAt, c.lastEventTime, '') AS at,
       c.failureCause AS cause, c.failureClass AS classification,
       wrote, collect(DISTINCT o.nodeId) AS declared, wroteKeys, collect(DISTINCT o.key) AS declaredKeys,
       tested, testedKeys
"""

# ---- failures grouped by job: one group per job with a matching failure, its latest first ----
# A child run whose parent run failed too is told under its application's group, not its own.

_FAILURE_JOB_MATCH = (
    _FAILURE_MATCH
    + f"""
OPTIONAL MATCH (r)-[:{Rel.CHILD_OF}]->(p:{Label.RUN})
WITH j, r, at, p WHERE p IS NULL OR NOT {failed("p")}
"""
)

FAILURE_JOB_COUNT = _FAILURE_JOB_MATCH + "RETURN count(DISTINCT j) AS count"

FAILURE_JOB_PAGE = (
    _FAILURE_JOB_MATCH
    + """
WITH j, max(at) AS lastAt, count(r) AS failureCount
RETURN j.key AS key, j.nodeId AS job, j.namespace AS namespace, j.name AS name, lastAt, failureCount
ORDER BY lastAt DESC, key SKIP $offset LIMIT $limit
"""
)

# The latest matching failure of each `{key, at}` in `$groups` (ties: the least runId, as in FAILURE_PAGE).
FAILURE_JOB_LAST = f"""
UNWIND $groups AS g
MATCH (j:{Label.JOB} {{key: g.key}})-[:{Rel.HAS_RUN}]->(r:{Label.RUN})
{key_seek("j", Label.JOB, "key")}
WHERE {failed("r")} AND coalesce(r.endedAt, r.lastEventTime, '') = g.at
RETURN g.key AS key, min(r.runId) AS runId
"""


# ---- data quality (`graph.quality`): each run's report on a dataset, newest first ----

DATASET_QUALITY_HISTORY = f"""
MATCH (d:{Label.DATASET} {{key: $key}})<-[q:{Rel.CHECKED}]-(r:{Label.RUN})
{key_seek("d", Label.DATASET, "key")}
MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r)
WITH j, r, q, CASE WHEN coalesce(q.checkedAt, '') > coalesce(q.measuredAt, '')
                   THEN q.checkedAt ELSE q.measuredAt END AS at
RETURN r.runId AS runId, j.nodeId AS job, r.state AS state, at, q.status AS status,
       q.checksJson AS checksJson, q.metricsJson AS metricsJson,
       coalesce(q.checksVersion, q.metricsVersion) AS datasetVersion
ORDER BY at DESC, runId SKIP $offset LIMIT $limit
"""

DATASET_QUALITY_COUNT = f"""
MATCH (:{Label.DATASET} {{key: $key}})<-[q:{Rel.CHECKED}]-(:{Label.RUN}) RETURN count(q) AS count
"""

# Each dataset's current checks: per job that checks it, the status of its latest run's checks.
DATASET_QUALITY_STATUSES = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})<-[q:{Rel.CHECKED}]-(:{Label.RUN})<-[:{Rel.HAS_RUN}]-(j:{Label.JOB})
{key_seek("d", Label.DATASET, "key")}
WHERE q.status IS NOT NULL
WITH d, j, max(q.checksOrder) AS newest
MATCH (d)<-[q:{Rel.CHECKED}]-(:{Label.RUN})<-[:{Rel.HAS_RUN}]-(j)
WHERE q.checksOrder = newest
RETURN d.key AS key, collect(q.status) AS statuses
"""


# ---- search: exact name, then prefix, then substring (tiers), shorter names first; case-insensitive ----
# Names are matched through `searchName`, the lower-cased name the writes keep beside it (`$q` comes lower-cased).
# Each tier is a statement of its own, so that a search stops once tiers have filled its page
# (`explorer.selectors.search`), and each reads at most `$window` matches: the exact and prefix tiers in the order
# of the range index on (`searchName`, node id) (`graph.schema.ORDER_INDEXES`), which Neo4j reads in order and cuts,
# the substring tier as the TEXT index on `searchName` yields them (`graph.schema.TEXT_INDEXES`). Then the tier's
# window is ranked, shorter names first, then node id, and its first `$limit` answered. A tier with no more than
# `$window` matches is thus ranked whole, as before tiers; one with more ranks the window: for the exact tier the
# `$window` least node ids (the same page as ranking every match: all its names are as long), for the prefix tier
# the first `$window` names in name order, for the substring tier the first `$window` its index gives.

# The tiers, as `searchName` conditions on a node variable, best first; `SEARCH_RANKS` names them.
SEARCH_TIERS = (
    "{v}.searchName = $q",
    "{v}.searchName STARTS WITH $q AND {v}.searchName <> $q",
    "{v}.searchName CONTAINS $q AND NOT {v}.searchName STARTS WITH $q",
)
SEARCH_RANKS = ("exact", "prefix", "substring")


def _search_window(label: Label, var: str, rank: int, tie: str, *, also: str = "") -> str:
    """The first `$window` nodes of `label` in tier `rank` (and `also`, a further condition): in (`searchName`,
    `tie`) order where an index gives that order. The index is named (`USING`): left to its estimates, Neo4j may
    serve `=` from the TEXT index and sort every match, or scan the ordered index whole for a rare prefix;
    ArcadeDB takes the hint and plans as it does without it."""
    where = SEARCH_TIERS[rank].format(v=var) + also
    if rank == len(SEARCH_TIERS) - 1:  # a TEXT index serves CONTAINS but gives no order: the first it yields
        return (
            f"MATCH ({var}:{label}) USING TEXT INDEX {var}:{label}(searchName) WHERE {where}\nWITH {var} LIMIT $window"
        )
    return (
        f"MATCH ({var}:{label}) USING INDEX {var}:{label}(searchName, {tie})\n"
        f"WHERE {where} AND {var}.{tie} IS NOT NULL\n"
        f"WITH {var} ORDER BY {var}.searchName, {var}.{tie} LIMIT $window"
    )


def _search(label: Label, rank: int, *extra: str) -> str:
    returned = ", ".join(("n.nodeId AS id", "n.namespace AS namespace", "n.name AS name", *extra))
    return f"""
{_search_window(label, "n", rank, "nodeId")}
RETURN {returned}, {rank} AS rank ORDER BY size(n.name), n.nodeId LIMIT $limit
"""


# ---- dataset identity (docs/identity.md) ----

# The canonical dataset a name resolves to, by its spelling as sent or its normalised form.
DATASET_ALIAS_RESOLVE = f"""
UNWIND $keys AS k
MATCH (a:{Label.DATASET_ALIAS}) WHERE a.key = k OR a.normalKey = k
MATCH (d:{Label.DATASET} {{key: a.canonicalKey}})
{key_seek("d", Label.DATASET, "key")}
RETURN DISTINCT d.key AS key ORDER BY key LIMIT 1
"""

DATASET_ALIASES = f"""
MATCH (a:{Label.DATASET_ALIAS} {{canonicalKey: $key}})
{key_seek("a", Label.DATASET_ALIAS, "canonicalKey")}
WHERE a.key <> $key
RETURN a.namespace AS namespace, a.name AS name, a.sourceKind AS kind, a.sourceType AS type,
       a.sourceJob AS job, a.sourceProducer AS producer, a.sourceEvent AS event, a.firstSeen AS firstSeen
ORDER BY namespace, name
"""


def _search_aliases(rank: int) -> str:
    """Datasets one of whose aliases matches tier `rank` (ranked as `_search`, by the dataset's name)."""
    return f"""
{_search_window(Label.DATASET_ALIAS, "a", rank, "key", also=" AND a.canonicalKey IS NOT NULL")}
MATCH (n:{Label.DATASET} {{key: a.canonicalKey}})
{key_seek("n", Label.DATASET, "key")}
WITH n, min(a.name) AS alias
RETURN n.nodeId AS id, n.namespace AS namespace, n.name AS name, alias, {rank} AS rank
ORDER BY size(n.name), id LIMIT $limit
"""


SEARCH_DATASET_ALIASES = tuple(_search_aliases(rank) for rank in range(len(SEARCH_TIERS)))

# What a near-miss explanation needs of one dataset: its id, names (its own and its aliases'), and the
# datasets its consumers wrote / its producers read (one job away).
NEAR_MISS_DATASET = f"""
MATCH (d:{Label.DATASET} {{key: $key}})
{key_seek("d", Label.DATASET, "key")}
OPTIONAL MATCH (a:{Label.DATASET_ALIAS} {{canonicalKey: $key}})
RETURN d.nodeId AS id, d.namespace AS namespace, d.name AS name,
       collect(DISTINCT {{namespace: a.namespace, name: a.name}}) AS aliases
"""

NEAR_MISS_NEIGHBOURS = f"""
MATCH (d:{Label.DATASET} {{key: $key}})-[:{Rel.INPUT_TO}]->(j:{Label.JOB})-[:{Rel.OUTPUTS}]->(x:{Label.DATASET})
{key_seek("d", Label.DATASET, "key")}
RETURN 'wrote' AS relation, j.nodeId AS job, x.nodeId AS id, x.namespace AS namespace, x.name AS name
LIMIT $limit
UNION
MATCH (x:{Label.DATASET})-[:{Rel.INPUT_TO}]->(j:{Label.JOB})-[:{Rel.OUTPUTS}]->(d:{Label.DATASET} {{key: $key}})
{key_seek("d", Label.DATASET, "key")}
RETURN 'read' AS relation, j.nodeId AS job, x.nodeId AS id, x.namespace AS namespace, x.name AS name
LIMIT $limit
"""

# Datasets one of whose aliases (not their canonical name) has the name `$name`.
NEAR_MISS_SAME_NAME = f"""
MATCH (a:{Label.DATASET_ALIAS})
WHERE a.normalName = $name AND a.canonicalKey IS NOT NULL AND a.canonicalKey <> $key
  AND a.normalKey <> a.canonicalKey
MATCH (d:{Label.DATASET} {{key: a.canonicalKey}})
{key_seek("d", Label.DATASET, "key")}
RETURN DISTINCT d.nodeId AS id, a.namespace AS namespace, a.name AS name LIMIT $limit
"""


# A run by its id (the agent's `with_run_id` stamps it into rows), with its job: the Run's unique runId first.
SEARCH_RUN = f"""
MATCH (r:{Label.RUN} {{runId: $runId}})
{key_seek("r", Label.RUN, "runId")}
OPTIONAL MATCH (j:{Label.JOB})-[:{Rel.HAS_RUN}]->(r)
RETURN r.nodeId AS id, r.runId AS runId, r.state AS state, j.nodeId AS job,
       coalesce(j.namespace, r.jobNamespace) AS namespace, coalesce(j.name, r.jobName) AS name
LIMIT 1
"""


def _effective_owned_by(edge: str, node: str) -> str:
    """Whether the `OWNED_BY` edge `edge` of `node` is one of its effective owners' (`graph.ownership.owners_for`,
    the one rule; this is it in Cypher, for a statement that must apply it before its `LIMIT`): a hand-set edge,
    or any edge of a node that has no hand-set one. (A node with no edge of its own inherits its namespace's
    owners: no edge of its to match, so an inherited owner never makes a hit.)"""
    manual = f"({node})-[:{Rel.OWNED_BY} {{source: '{OwnershipSource.MANUAL}'}}]->(:{Label.OWNER})"
    return f"({edge}.source = '{OwnershipSource.MANUAL}' OR NOT EXISTS {{ MATCH {manual} }})"


def _search_owned(label: Label) -> str:
    """Nodes of `label` that an owner whose name contains `$q` effectively owns: the few Owner nodes first, then
    their edges, those of an owner that a hand-set one replaces left out. One row a node, by its best-matching
    owner (the owner's match, then the first owner by name); in search's order (that match, then the name's length, then
    the node id), so that the `$limit` rows kept are the page's best, each a node of its own."""
    rank = "CASE WHEN toLower(o.name) = $q THEN 0 WHEN toLower(o.name) STARTS WITH $q THEN 1 ELSE 2 END"
    return f"""
MATCH (o:{Label.OWNER}) WHERE toLower(o.name) CONTAINS $q
MATCH (n:{label})-[e:{Rel.OWNED_BY}]->(o) WHERE {_effective_owned_by("e", "n")}
WITH n, o.name AS owner, {rank} AS rank
WITH n, rank, min(owner) AS owner
WITH n, min(rank) AS best, collect([rank, owner]) AS owners
RETURN n.nodeId AS id, n.key AS key, n.namespace AS namespace, n.name AS name,
       head([m IN owners WHERE m[0] = best | m[1]]) AS owner, best AS rank
ORDER BY rank, size(coalesce(name, '')), id LIMIT $limit
"""


def _search_tagged(label: Label, name: str, *extra: str) -> str:
    """Nodes of `label` with a tag (`key:value`) that contains `$q` among the tags their facets carry now: the few
    Tag nodes first, then their edges. A node keeps the `TAGGED` edge of every tag an event ever gave it, and its
    current tags in `tags` (`graph.facets.tag_texts` of its facets, written with them): an edge whose tag is not
    in that list is left out. A tag's match: 0 when `$q` is the tag, its key or its value, 1 when one of them
    starts with it, 2 when it is inside. One row a node, by its best-matching tag (its match, then the first tag
    in text order); in search's order (that match, then the length of `name`, the node's name, then the node id),
    so that the `$limit` rows kept are the page's best, each a node of its own."""
    returned = ", ".join(("n.nodeId AS id", f"{name} AS name", *extra))
    return f"""
MATCH (t:{Label.TAG}) WHERE toLower(t.key) CONTAINS $q
MATCH (n:{label})-[:{Rel.TAGGED}]->(t) WHERE t.key IN n.tags
WITH n, t.key AS tag, toLower(t.key) AS low
WITH n, tag, low, CASE WHEN low CONTAINS ':' THEN substring(low, size(split(low, ':')[0]) + 1) ELSE low END AS value
WITH n, tag, CASE WHEN $q IN [low, split(low, ':')[0], value] THEN 0
                  WHEN low STARTS WITH $q OR value STARTS WITH $q THEN 1 ELSE 2 END AS rank
WITH n, rank, min(tag) AS tag
WITH n, min(rank) AS best, collect([rank, tag]) AS matches
RETURN {returned}, head([m IN matches WHERE m[0] = best | m[1]]) AS tag, best AS rank
ORDER BY rank, size(coalesce(name, '')), id LIMIT $limit
"""


SEARCH_OWNED = {Label.DATASET: _search_owned(Label.DATASET), Label.JOB: _search_owned(Label.JOB)}
SEARCH_TAGGED = {
    Label.DATASET: _search_tagged(Label.DATASET, "n.name", "n.namespace AS namespace"),
    Label.JOB: _search_tagged(Label.JOB, "n.name", "n.namespace AS namespace", "n.key AS key"),
    Label.RUN: _search_tagged(
        Label.RUN, "n.jobName", "n.jobNamespace AS namespace", "n.runId AS runId", "n.state AS state"
    ),
}

# The fields and their descriptions of every schema version of each dataset named by `$keys`, with each version's
# newest sighting (`schema_fields.field_descriptions` reads a field's description off them).
DATASET_FIELD_DESCRIPTIONS = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("d", Label.DATASET, "key")}
RETURN k AS key, v.fieldNames AS fieldNames, v.fieldDescriptions AS fieldDescriptions, v.lastKey AS lastKey
"""

# Per label, one statement per tier (`SEARCH_TIERS`), best first.
SEARCH = {
    label: tuple(_search(label, rank, *extra) for rank in range(len(SEARCH_TIERS)))
    for label, extra in (
        (Label.DATASET, ()),
        (Label.JOB, ("n.key AS key", "elementId(n) AS elementId")),
        (Label.FIELD, ("n.dataset AS dataset",)),
    )
}


# ---- runs ----

RUN_PROPERTIES = f"""
UNWIND $runIds AS runId
MATCH (r:{Label.RUN} {{runId: runId}})
{key_seek("r", Label.RUN, "runId")}
RETURN r.runId AS runId, properties(r) AS props
"""

# The last part of a dataset each job wrote (`subset` facet), for the job -> dataset edges in `$rows`
# ({job, dataset} keys) that have one, as [job key, dataset key, subset, when].
JOB_OUTPUT_SUBSETS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.job}})-[e:{Rel.OUTPUTS}]->(d:{Label.DATASET} {{key: row.dataset}})
{key_seek("j", Label.JOB, "key")} {key_seek("d", Label.DATASET, "key")}
WHERE e.lastSubset IS NOT NULL
RETURN collect([row.job, row.dataset, e.lastSubset, e.lastSubsetAt]) AS rows
"""

# A run with what it read and wrote, and the part of each it read or wrote where its `subset` facet said
# ([dataset id, subset] lists).
RUN_DETAIL = f"""
MATCH (r:{Label.RUN} {{runId: $runId}})
{key_seek("r", Label.RUN, "runId")}
OPTIONAL MATCH (r)-[u:{Rel.READ}]->(i:{Label.DATASET})
WITH r, collect(DISTINCT i.nodeId) AS inputs,
     collect(CASE WHEN u.subset IS NULL THEN null ELSE [i.nodeId, u.subset] END) AS inputSubsets
OPTIONAL MATCH (r)-[w:{Rel.WROTE}]->(o:{Label.DATASET})
WITH r, inputs, inputSubsets, collect(DISTINCT o.nodeId) AS outputs,
     collect(CASE WHEN w.subset IS NULL THEN null ELSE [o.nodeId, w.subset] END) AS outputSubsets
OPTIONAL MATCH (c:{Label.RUN})-[:{Rel.CHILD_OF}]->(r)
RETURN properties(r) AS run, inputs, outputs, inputSubsets, outputSubsets, collect(DISTINCT c.runId) AS children
"""

# ---- lineage in time (docs/time.md) ----

# What each run in `$runIds` read and wrote, as [nodeId, namespace, name] lists, and its child runs.
RUNS_IO = f"""
UNWIND $runIds AS id
MATCH (r:{Label.RUN} {{runId: id}})
{key_seek("r", Label.RUN, "runId")}
OPTIONAL MATCH (r)-[:{Rel.READ}]->(i:{Label.DATASET})
WITH r, collect(DISTINCT [i.nodeId, i.namespace, i.name]) AS reads
OPTIONAL MATCH (r)-[:{Rel.WROTE}]->(o:{Label.DATASET})
WITH r, reads, collect(DISTINCT [o.nodeId, o.namespace, o.name]) AS writes
OPTIONAL MATCH (c:{Label.RUN})-[:{Rel.CHILD_OF}]->(r)
RETURN r.runId AS runId, reads, writes, collect(DISTINCT c.runId) AS children
"""

# The job's latest `$limit` completed runs before `$before` (a completed-run order key), newest first.
PREVIOUS_COMPLETED_RUNS = f"""
MATCH (j:{Label.JOB} {{key: $jobKey}})-[:{Rel.HAS_RUN}]->(p:{Label.RUN})
{key_seek("j", Label.JOB, "key")}
WHERE p.completedOrder < $before
RETURN p.runId AS runId, p.endedAt AS endedAt, p.trigger AS trigger
ORDER BY p.completedOrder DESC LIMIT $limit
"""

# Every schema version of each dataset in `$keys`, with when it was first seen and its fields.
DATASET_VERSION_HISTORY = f"""
UNWIND $keys AS k
MATCH (d:{Label.DATASET} {{key: k}})-[:{Rel.HAS_VERSION}]->(v:{Label.DATASET_VERSION})
{key_seek("d", Label.DATASET, "key")}
RETURN collect([k, v.version, v.firstSeen, v.fieldNames, v.fieldTypes]) AS rows
"""
