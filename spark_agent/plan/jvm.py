"""py4j access to the few JVM facts the plan JSON lacks: dataset locations and metrics."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from spark_agent.naming import dataset_from_jdbc, dataset_from_uri
from spark_agent.plan.model import DatasetId, Stats, Symlink

JavaObject = Any  # a py4j proxy

_STAGE_WRAPPERS = ("QueryStageExec",)
_METRIC = re.compile(r"(\w+) -> SQLMetric\(.*value: (-?\d+)\)$")


@dataclass
class Relation:
    """What a leaf relation reads, as seen through py4j."""

    first_expr_id: int | None
    datasets: list[DatasetId]
    symlink: Symlink | None


def simple_name(obj: JavaObject) -> str:
    """The simple class name of any JVM object: two py4j calls."""
    return str(obj.getClass().getSimpleName())


def node_name(node: JavaObject) -> str:
    """The simple class name of a plan node in one py4j call: Catalyst's nodes (logical and physical) are case
    classes, whose `productPrefix` is that name. A node class that is not one answers "", which names no node the
    agent looks for."""
    return str(node.productPrefix())


def seq(scala_seq: JavaObject) -> Iterator[JavaObject]:
    """Iterate over a Scala `Seq` through py4j."""
    for i in range(int(scala_seq.size())):
        yield scala_seq.apply(i)


def option(scala_option: JavaObject) -> JavaObject | None:
    return scala_option.get() if scala_option.isDefined() else None


def table_name(identifier: JavaObject) -> str:
    """`spark_catalog.default.orders` -> `default.orders`."""
    name = str(identifier.unquotedString())
    return name.removeprefix("spark_catalog.")


def logical_leaves(plan: JavaObject) -> list[JavaObject]:
    """All leaves of `plan` and of every subquery nested in its expressions."""
    leaves = list(seq(plan.collectLeaves()))
    for sub in seq(plan.subqueriesAll()):
        leaves.extend(seq(sub.collectLeaves()))
    return leaves


def relation(leaf: JavaObject, warehouse: str) -> Relation | None:
    """The datasets a logical leaf reads; `None` for leaves that read none (Range, local data)."""
    leaf_kind = node_name(leaf)
    if leaf_kind == "DataSourceV2Relation":
        catalog, ident = option(leaf.catalog()), option(leaf.identifier())
        dataset, symlink = v2_table_dataset(leaf.table(), catalog, ident, warehouse)
        output = leaf.output()
        first = int(output.apply(0).exprId().id()) if int(output.size()) else None
        return Relation(first, [dataset], symlink)
    if leaf_kind != "LogicalRelation":
        return None
    rel = leaf.relation()
    kind = simple_name(rel)
    if kind not in ("HadoopFsRelation", "JDBCRelation"):
        return None
    output = leaf.output()
    first = int(output.apply(0).exprId().id()) if int(output.size()) else None
    table = option(leaf.catalogTable())
    symlink = Symlink(warehouse, table_name(table.identifier())) if table is not None else None
    if kind == "HadoopFsRelation":
        paths = str(rel.location().rootPaths().mkString("\u0001")).split("\u0001")
        return Relation(first, [dataset_from_uri(p) for p in paths if p], symlink)
    opts = rel.jdbcOptions()
    return Relation(first, [dataset_from_jdbc(str(opts.url()), str(opts.tableOrQuery()))], symlink)


def v2_table_name(catalog: JavaObject | None, ident: JavaObject) -> str:
    """`v2db.APP.ORDERS`; a table of the session catalog without `spark_catalog.`."""
    name = str(ident.toString())
    if catalog is None or str(catalog.name()) == "spark_catalog":
        return name
    return f"{catalog.name()}.{name}"


def v2_table_dataset(
    table: JavaObject | None, catalog: JavaObject | None, ident: JavaObject | None, warehouse: str
) -> tuple[DatasetId, Symlink | None]:
    """A DataSource V2 table as a dataset: a JDBC table by its database and name, a table with a
    `location` property (Iceberg, Delta) by its location with the catalog name as symlink, else
    the catalog name in the warehouse namespace."""
    name = v2_table_name(catalog, ident) if ident is not None else str(table.name()) if table is not None else ""
    if table is not None and simple_name(table) == "JDBCTable":
        opts = table.jdbcOptions()
        return dataset_from_jdbc(str(opts.url()), str(opts.tableOrQuery())), None
    location = table.properties().get("location") if table is not None else None
    if location:
        return dataset_from_uri(str(location)), Symlink(warehouse, name)
    return DatasetId(warehouse, name), None


def file_format(fmt: JavaObject) -> str:
    """`parquet`, `csv`, `json`, `orc`, `text`, ... for a `FileFormat`."""
    try:
        return str(fmt.shortName())
    except Exception:  # a FileFormat that is not a DataSourceRegister
        return str(fmt.toString()).lower()


def metrics(node: JavaObject) -> dict[str, int]:
    """A plan node's SQL metrics in one py4j call (parsed from `SQLMetric.toString`)."""
    found = {}
    for item in str(node.metrics().mkString("\u0001")).split("\u0001"):
        match = _METRIC.match(item)
        if match:
            found[match.group(1)] = int(match.group(2))
    return found


def physical_root(executed: JavaObject) -> tuple[JavaObject, str]:
    """The executed plan with adaptive-execution wrappers removed, and its node name: `AdaptiveSparkPlanExec` and,
    from Spark 4.0 on, the `ResultQueryStageExec` it puts around the final stage (a write after a shuffle is inside
    one; in Spark 3.5 it is right under `AdaptiveSparkPlanExec`)."""
    while True:
        kind = node_name(executed)
        if kind == "AdaptiveSparkPlanExec":
            executed = executed.executedPlan()
        elif kind.endswith(_STAGE_WRAPPERS):
            executed = executed.plan()
        else:
            return executed, kind


def write_stats(executed: JavaObject) -> Stats | None:
    """Rows, bytes and files written, from the write node's metrics."""
    root, kind = physical_root(executed)
    if kind != "DataWritingCommandExec":
        return None
    found = metrics(root)
    return Stats(found.get("numOutputRows"), found.get("numOutputBytes"), found.get("numFiles"))


def scan_stats(executed: JavaObject) -> dict[DatasetId, Stats]:
    """Rows, bytes and files read per dataset, from the scan nodes' metrics."""
    found: dict[DatasetId, Stats] = {}
    for scan in _physical_leaves(executed):
        kind = node_name(scan)
        if kind == "FileSourceScanExec":
            paths = str(scan.relation().location().rootPaths().mkString("\u0001")).split("\u0001")
            m = metrics(scan)
            stats = Stats(m.get("numOutputRows"), m.get("filesSize"), m.get("numFiles"))
            ids = [dataset_from_uri(p) for p in paths if p]
        elif kind == "RowDataSourceScanExec" and simple_name(scan.relation()) == "JDBCRelation":
            opts = scan.relation().jdbcOptions()
            ids = [dataset_from_jdbc(str(opts.url()), str(opts.tableOrQuery()))]
            stats = Stats(rows=metrics(scan).get("numOutputRows"))
        else:
            continue
        if len(ids) == 1:
            found[ids[0]] = found[ids[0]].plus(stats) if ids[0] in found else stats
    return found


def _physical_leaves(plan: JavaObject) -> Iterator[JavaObject]:
    stack = [plan]
    while stack:
        for leaf in seq(stack.pop().collectLeaves()):
            kind = node_name(leaf)
            if kind == "AdaptiveSparkPlanExec":
                stack.append(leaf.executedPlan())
            elif kind.endswith(_STAGE_WRAPPERS):
                stack.append(leaf.plan())
            elif kind == "ReusedExchangeExec":
                stack.append(leaf.child())
            else:
                yield leaf


def output_expr_ids(plan: JavaObject) -> list[int]:
    return [int(a.exprId().id()) for a in seq(plan.output())]


def error_info(exc: JavaObject, jvm: JavaObject) -> tuple[str, str]:
    """The message and the full stack trace of a JVM throwable."""
    return str(exc.toString()), str(jvm.org.apache.spark.util.Utils.exceptionString(exc))
