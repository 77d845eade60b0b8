"""Turn one `QueryExecution` into `ActionFacts`: datasets, schemas, column lineage, stats."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from spark_agent.naming import dataset_from_jdbc, dataset_from_uri, snake
from spark_agent.plan import jvm
from spark_agent.plan.columns import ColumnLineageBuilder
from spark_agent.plan.model import ActionFacts, DatasetId, DatasetInfo, ErrorInfo, Stats, Symlink
from spark_agent.plan.schema import schema_fields
from spark_agent.plan.tree import Attr, parse
from spark_agent.plan.worker import serialise_in_background

JavaObject = Any

# DataSource V2 write commands: their child-run verb and the output's lifecycle change.
V2_WRITES: dict[str, tuple[str, str | None]] = {
    "AppendData": ("append", None),
    "OverwriteByExpression": ("overwrite", "OVERWRITE"),
    "OverwritePartitionsDynamic": ("overwrite_partitions", "OVERWRITE"),
    "CreateTableAsSelect": ("create_table", "CREATE"),
    "ReplaceTableAsSelect": ("replace_table", "OVERWRITE"),
}
WRITE_COMMANDS = frozenset(
    {
        "InsertIntoHadoopFsRelationCommand",
        "CreateDataSourceTableAsSelectCommand",
        "SaveIntoDataSourceCommand",
        "InsertIntoDataSourceCommand",
        *V2_WRITES,
    }
)
_LIFECYCLE = {"Overwrite": "OVERWRITE", "ErrorIfExists": "CREATE", "Ignore": "CREATE"}


@dataclass(frozen=True)
class ExtractContext:
    """Per-agent facts the extractor needs."""

    jvm: JavaObject
    session: JavaObject  # the JVM SparkSession
    warehouse: str
    read_actions: bool


@dataclass
class _Target:
    dataset: DatasetInfo
    verb: str
    table: str | None
    query: JavaObject
    column_names: list[str] | None


def extract(
    ctx: ExtractContext,
    func_name: str,
    qe: JavaObject,
    duration_ns: int | None,
    exc: JavaObject | None,
) -> ActionFacts | None:
    """Facts about one finished action, or `None` when it is not worth a child run."""
    analyzed = qe.analyzed()
    root_cls = jvm.node_name(analyzed)
    if root_cls not in WRITE_COMMANDS and exc is None and not ctx.read_actions:
        return None
    target = _target(ctx, root_cls, analyzed)
    query = target.query if target else analyzed
    # The plan's JSON (Spark serialises it by reflection: most of an action's cost) is made on the plan worker's
    # own JVM connection while this thread reads the leaves, the schema and the metrics.
    plan_json = serialise_in_background(query)
    leaves = (jvm.relation(leaf, ctx.warehouse) for leaf in jvm.logical_leaves(query))
    relations = [r for r in leaves if r is not None]
    schema = json.loads(str(query.schema().json())).get("fields", []) if target else []
    error = None
    scan_stats: dict[DatasetId, Stats] = {}
    if exc is not None:
        message, stack = jvm.error_info(exc, ctx.jvm)
        error = ErrorInfo(message=message, stack_trace=stack, language="JAVA")
    else:
        executed = qe.executedPlan()
        scan_stats = jvm.scan_stats(executed)
        if target is not None:
            target.dataset.stats = jvm.write_stats(executed)
    builder = ColumnLineageBuilder({r.first_expr_id: r.datasets for r in relations if r.first_expr_id is not None})
    out_attrs = builder.visit(parse(json.loads(plan_json.result())))
    inputs = _inputs(relations, builder)
    for ds_id, stats in scan_stats.items():
        if ds_id in inputs:
            inputs[ds_id].stats = stats
    unresolved = _describe_output(target, query, schema, builder, out_attrs) if target else 0
    outputs = [target.dataset] if target else []
    if not (inputs or outputs or error):
        return None
    return ActionFacts(
        qe_id=int(qe.id()),
        func_name=func_name,
        verb=target.verb if target else snake(func_name),
        target=target.table if target else None,
        end_time=time.time(),
        duration_s=(duration_ns or 0) / 1e9,
        inputs=list(inputs.values()),
        outputs=outputs,
        error=error,
        unresolved_columns=unresolved,
        unknown_nodes=sorted(set(builder.unknown_nodes)),
    )


def _inputs(relations: list[jvm.Relation], builder: ColumnLineageBuilder) -> dict[DatasetId, DatasetInfo]:
    inputs: dict[DatasetId, DatasetInfo] = {}
    for rel in relations:
        for ds in rel.datasets:
            attrs = builder.input_schemas.get(ds)
            schema = schema_fields([(a.name, a.data_type) for a in attrs]) if attrs else None
            inputs.setdefault(ds, DatasetInfo(id=ds, schema=schema, symlink=rel.symlink))
    return inputs


def _describe_output(
    target: _Target,
    query: JavaObject,
    schema: list[dict[str, Any]],
    builder: ColumnLineageBuilder,
    out_attrs: list[Attr] | None,
) -> int:
    """Fill in the output's schema (`schema`: the query's, as Spark's JSON gives its fields) and column lineage;
    return the unresolved column count."""
    names = target.column_names or [str(f.get("name")) for f in schema]
    if out_attrs is not None and len(out_attrs) == len(names):
        ids: list[int | None] = [a.expr_id for a in out_attrs]
    else:  # the plan's top is a node the builder does not know: ask the JVM
        ids = list(jvm.output_expr_ids(query))
    body, unresolved = builder.facet_body(list(zip(names, ids, strict=False)))
    types = [f.get("type") for f in schema]
    target.dataset.schema = schema_fields(list(zip(names, types, strict=False)))
    target.dataset.column_lineage = body
    return unresolved


def _target(ctx: ExtractContext, root_cls: str, cmd: JavaObject) -> _Target | None:
    if root_cls in V2_WRITES:
        return _v2_target(ctx, root_cls, cmd)
    if root_cls == "InsertIntoHadoopFsRelationCommand":
        table = jvm.option(cmd.catalogTable())
        name = jvm.table_name(table.identifier()) if table is not None else None
        fmt = jvm.file_format(cmd.fileFormat())
        dataset = DatasetInfo(
            id=dataset_from_uri(str(cmd.outputPath().toString())),
            symlink=Symlink(ctx.warehouse, name) if name else None,
            lifecycle=_LIFECYCLE.get(str(cmd.mode().toString())),
        )
        verb = "insert_into" if name else f"write_{fmt}"
        names = _names(cmd.outputColumnNames())
        return _Target(dataset, verb, name, cmd.query(), names)
    if root_cls == "CreateDataSourceTableAsSelectCommand":
        table = cmd.table()
        name = jvm.table_name(table.identifier())
        location = jvm.option(table.storage().locationUri())
        if location is None:
            location = ctx.session.sessionState().catalog().defaultTablePath(table.identifier())
        dataset = DatasetInfo(
            id=dataset_from_uri(str(location.toString())),
            symlink=Symlink(ctx.warehouse, name),
            lifecycle=_LIFECYCLE.get(str(cmd.mode().toString())),
        )
        return _Target(dataset, "create_table", name, cmd.query(), _names(cmd.outputColumnNames()))
    if root_cls == "SaveIntoDataSourceCommand":
        options = cmd.options()
        url, table = jvm.option(options.get("url")), jvm.option(options.get("dbtable"))
        if url is None or table is None:
            return None
        dataset = DatasetInfo(
            id=dataset_from_jdbc(str(url), str(table)),
            lifecycle=_LIFECYCLE.get(str(cmd.mode().toString())),
        )
        return _Target(dataset, "write_jdbc", str(table), cmd.query(), None)
    if root_cls == "InsertIntoDataSourceCommand":
        rel = jvm.relation(cmd.logicalRelation(), ctx.warehouse)
        if rel is None or not rel.datasets:
            return None
        name = rel.symlink.name if rel.symlink else None
        dataset = DatasetInfo(id=rel.datasets[0], symlink=rel.symlink)
        dataset.lifecycle = "OVERWRITE" if bool(cmd.overwrite()) else None
        return _Target(dataset, "insert_into", name or rel.datasets[0].name, cmd.query(), None)
    return None


def _v2_target(ctx: ExtractContext, root_cls: str, cmd: JavaObject) -> _Target:
    """A DataSource V2 write: into an existing table (`AppendData`, `OverwriteByExpression`,
    `OverwritePartitionsDynamic`: `writeTo`, `INSERT INTO`) or creating one (`CreateTableAsSelect`,
    `ReplaceTableAsSelect`), through any catalog."""
    verb, lifecycle = V2_WRITES[root_cls]
    if root_cls in ("CreateTableAsSelect", "ReplaceTableAsSelect"):
        resolved = cmd.name()
        catalog, ident = resolved.catalog(), resolved.identifier()
        table = _table_loaded(catalog, ident)
    else:
        relation = cmd.table()
        catalog, ident, table = jvm.option(relation.catalog()), jvm.option(relation.identifier()), relation.table()
    dataset_id, symlink = jvm.v2_table_dataset(table, catalog, ident, ctx.warehouse)
    name = jvm.v2_table_name(catalog, ident) if ident is not None else dataset_id.name
    dataset = DatasetInfo(id=dataset_id, symlink=symlink, lifecycle=lifecycle)
    return _Target(dataset, verb, name, cmd.query(), None)


# The pauses before each further try to load a table a CTAS or RTAS wrote (0.75 s in all, on the listener thread).
LOAD_TABLE_PAUSES_S = (0.05, 0.1, 0.2, 0.4)


def _table_loaded(catalog: JavaObject, ident: JavaObject) -> JavaObject | None:
    """The table a CTAS or RTAS wrote, as its catalog loads it now; `None` if it cannot (the command failed).

    The table exists once the command has run, but the listener reads the action later, while the job goes on:
    a `REPLACE TABLE … AS SELECT` that followed it may be between dropping the table and creating it again (seen on a
    loaded machine). So a failed load is tried again after short pauses before the table is taken for missing."""
    for pause in LOAD_TABLE_PAUSES_S:
        try:
            return catalog.loadTable(ident)
        except Exception:
            time.sleep(pause)
    try:
        return catalog.loadTable(ident)
    except Exception:
        return None


def _names(scala_seq: JavaObject) -> list[str]:
    text = str(scala_seq.mkString("\u0001"))
    return text.split("\u0001") if text else []
