"""Invariant 9, one thing one node: normalised names, site rules and symlinks resolve to one dataset."""

from __future__ import annotations

import pytest
from django.test import override_settings

from lineage_app.explorer.selectors.lineage import lineage_for_node
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.identity import canonical_of, canonical_order, identity_normalise
from lineage_app.graph.model import Label, Rel
from lineage_app.ingest.services import events_apply
from tests.apply import accept
from tests.graph.identity_events import CANONICAL_ID, CATALOG, LOCATION, SUMMARY_ID, alias_events
from tests.graph_dump import graph_dump

# --- pure normalisation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelled", "normal"),
    [
        (("s3a://lake", "warehouse/orders"), ("s3://lake", "warehouse/orders")),
        (("s3n://lake/", "warehouse/orders/"), ("s3://lake", "warehouse/orders")),
        (("S3A://lake", "x"), ("s3://lake", "x")),
        (("s3://lake", "warehouse/orders//"), ("s3://lake", "warehouse/orders")),
        (("file", "/data/orders/"), ("file", "/data/orders")),
        (("file", "file:///data/orders"), ("file", "/data/orders")),
        (("", "file:/data/orders"), ("file", "/data/orders")),
        (("file:", "/data/orders"), ("file", "/data/orders")),
        (("file:///", "data/orders"), ("file", "/data/orders")),
        (("file", "file://localhost/data/orders"), ("file", "/data/orders")),
        (("hive://metastore", "sales.orders"), ("hive://metastore", "sales.orders")),
        (("postgres://db:5432", "public.orders"), ("postgres://db:5432", "public.orders")),
        (("file:///data", "raw/orders"), ("file:///data", "raw/orders")),  # a namespace with a path is kept
        (("s3://lake", "/"), ("s3://lake", "/")),
    ],
)
def test_names_normalise_to_one_spelling(spelled, normal):  # type: ignore[no-untyped-def]
    assert identity_normalise(*spelled) == normal
    assert identity_normalise(*normal) == normal  # idempotent


@override_settings(NAMESPACE_ALIASES={"hdfs://nn1:8020": "hdfs://prod-nn", "s3a://old-lake/": "s3://lake"})
def test_site_rules_rename_whole_namespaces_after_scheme_normalisation():  # type: ignore[no-untyped-def]
    assert identity_normalise("hdfs://nn1:8020", "/warehouse/orders") == ("hdfs://prod-nn", "/warehouse/orders")
    assert identity_normalise("s3n://old-lake", "orders") == ("s3://lake", "orders")
    assert identity_normalise("hdfs://nn2:8020", "/x") == ("hdfs://nn2:8020", "/x")


def test_the_canonical_name_is_the_location_then_the_least_by_text():  # type: ignore[no-untyped-def]
    names = {CATALOG, LOCATION, ("gs://mirror", "orders")}
    assert canonical_of(names) == ("gs://mirror", "orders")
    assert canonical_of({CATALOG, LOCATION}) == LOCATION
    assert canonical_order(("hive://metastore", "a")) > canonical_order(("s3://z", "z"))
    assert canonical_of({("hive://a", "t"), ("hive://b", "t")}) == ("hive://a", "t")


# --- the graph ------------------------------------------------------------------------------------


def _apply(events: list[dict], batches: list[list[int]]) -> None:
    ids = accept(*events)
    for batch in batches:
        events_apply(event_ids=[ids[i] for i in batch])


def _datasets() -> list[str]:
    rows = graph_read(lambda tx: records(tx, f"MATCH (d:{Label.DATASET}) RETURN d.nodeId AS id"))
    return sorted(r["id"] for r in rows)


EVENTS = alias_events()
ORDERS = {
    "path, catalog, then the symlink": [[0], [1], [2], [3], [4]],
    "the symlink first": [[4], [3], [2], [1], [0]],
    "the catalog name, the symlink, then the path": [[3], [2], [4], [0, 1]],
    "one batch": [[0, 1, 2, 3, 4]],
}


@pytest.mark.django_db
@pytest.mark.parametrize("batches", ORDERS.values(), ids=list(ORDERS))
def test_a_table_named_three_ways_is_one_dataset_whatever_the_order(graph, batches):  # type: ignore[no-untyped-def]
    _apply(EVENTS, batches)
    assert _datasets() == sorted([CANONICAL_ID, SUMMARY_ID])
    lineage = lineage_for_node(node_id=SUMMARY_ID, depth=4, direction="upstream", level="action")
    ids = {node["id"] for node in lineage["graph"]}
    # The seam is gone: the summary reaches back through the catalog-named read to the path writer.
    assert {"job:spark:orders.summarise", CANONICAL_ID, "job:spark:orders.load"} <= ids
    derives = graph_read(
        lambda tx: records(
            tx, f"MATCH (s:{Label.FIELD})-[:{Rel.DERIVES}]->(t:{Label.FIELD}) RETURN s.nodeId AS s, t.nodeId AS t"
        )
    )
    assert {(r["s"], r["t"]) for r in derives} == {
        (f"datasetField:{LOCATION[0]}:{LOCATION[1]}:id", f"{SUMMARY_ID.replace('dataset:', 'datasetField:')}:id"),
        (
            f"datasetField:{LOCATION[0]}:{LOCATION[1]}:total",
            f"{SUMMARY_ID.replace('dataset:', 'datasetField:')}:sum_total",
        ),
    }
    owners = graph_read(
        lambda tx: records(tx, f"MATCH (d:{Label.DATASET})-[:{Rel.OWNED_BY}]->(o) RETURN d.nodeId AS d, o.name AS o")
    )
    assert owners == [{"d": CANONICAL_ID, "o": "team:sales"}]
    tags = graph_read(
        lambda tx: records(tx, f"MATCH (d:{Label.DATASET})-[:{Rel.TAGGED}]->(t) RETURN d.nodeId AS d, t.key AS t")
    )
    assert tags == [{"d": CANONICAL_ID, "t": "domain:sales"}]


@pytest.mark.django_db
def test_every_order_gives_the_graph_of_one_batch(graph):  # type: ignore[no-untyped-def]
    from lineage_app.graph.writer import graph_wipe
    from lineage_app.ingest.models import LineageEvent

    dumps = []
    for batches in ORDERS.values():
        graph_wipe()
        LineageEvent.objects.all().delete()
        _apply(EVENTS, batches)
        dumps.append(graph_dump())
    assert all(dump == dumps[-1] for dump in dumps)


@pytest.mark.django_db
def test_aliases_keep_who_named_them_so(graph):  # type: ignore[no-untyped-def]
    _apply(EVENTS, [[i] for i in range(len(EVENTS))])
    rows = graph_read(
        lambda tx: records(
            tx,
            f"""
        MATCH (a:{Label.DATASET_ALIAS}) RETURN a.namespace AS namespace, a.name AS name,
               a.canonicalKey AS canonical, a.sourceJob AS job, a.sourceKind AS kind""",
        )
    )
    by_name = {(r["namespace"], r["name"]): r for r in rows}
    canonical = {r["canonical"] for r in rows if (r["namespace"], r["name"]) != ("s3://lake", "marts/order_summary")}
    assert len(canonical) == 1
    assert by_name[CATALOG]["job"] == "job:spark:orders.summarise"
    assert by_name[CATALOG]["kind"] == "dataset"  # named as a dataset before the symlink (earliest wins)
    assert by_name[("s3a://lake", "warehouse/orders/")]["job"] == "job:spark:orders.load"


# --- the projection made before the write transaction ---------------------------------------------


@pytest.mark.django_db
def test_rows_made_under_a_stale_guess_are_made_again_under_the_registry(graph, monkeypatch):  # type: ignore[no-untyped-def]
    """The projection runs before the write transaction, under the canonical names this process saw last. A guess
    the alias registry no longer agrees with (here: the catalog name taken for another location) is thrown away
    in the transaction, and nothing is written under it."""
    from lineage_app.graph import writer
    from lineage_app.graph.identity import identity_key

    elsewhere = ("s3://elsewhere", "orders")
    monkeypatch.setattr(writer, "_canonical_seen", {identity_key(*CATALOG): elsewhere})
    _apply(EVENTS, [[0, 1, 2, 3, 4]])
    assert _datasets() == sorted([CANONICAL_ID, SUMMARY_ID])
    assert writer._canonical_seen[identity_key(*CATALOG)] == LOCATION  # the registry's answer, for the next batch
    assert identity_key(*LOCATION) not in writer._canonical_seen  # a name that is its own canonical is not held


@pytest.mark.django_db
def test_a_batch_is_projected_once_when_the_guess_holds(graph, monkeypatch):  # type: ignore[no-untyped-def]
    from lineage_app.graph import writer

    calls = []

    def counted(plan, *, canonical):  # type: ignore[no-untyped-def]
        calls.append(dict(canonical))
        return writer_rows_resolve(plan, canonical=canonical)

    writer_rows_resolve = writer.rows_resolve
    monkeypatch.setattr(writer, "rows_resolve", counted)
    monkeypatch.setattr(writer, "_canonical_seen", {})
    _apply(EVENTS, [[4], [3], [2]])  # the symlink first: every later batch's guess is the registry's answer
    assert len(calls) == 3
    assert _datasets() == sorted([CANONICAL_ID, SUMMARY_ID])


class _Flipping(dict):  # type: ignore[type-arg]
    """A canonical mapping whose answer changes after its first lookup: another thread updating the guess while a
    batch is projected under it."""

    def __init__(self, first: tuple[str, str], then: tuple[str, str]) -> None:
        super().__init__()
        self.answers = [first, then]

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def test_rows_that_say_they_match_the_registry_are_its_rows_even_under_a_changing_guess():  # type: ignore[no-untyped-def]
    """`resolved_as` is exact however the guess behaved: a batch spelling one table two ways (here `s3a://…/` and
    `s3://…`) looks its normalised name up once, so rows made while the guess changed either match the registry's
    rows or say they do not."""
    from lineage_app.graph.events import EventRecord
    from lineage_app.graph.identity import identity_key
    from lineage_app.graph.projection import graph_writes_for, rows_resolve
    from lineage_app.ingest.validation import event_check

    def record(event: dict) -> EventRecord:
        checked = event_check(event)
        return EventRecord(content_hash=checked.content_hash, event_time=checked.event_time, payload=event)

    plan = graph_writes_for([record(e) for e in EVENTS[:2]] + [record(EVENTS[4])], [])
    registry = {identity_key(*LOCATION): LOCATION}
    for first, then in ((LOCATION, ("s3://elsewhere", "orders")), (("s3://elsewhere", "orders"), LOCATION)):
        guessed = rows_resolve(plan, canonical=_Flipping(first, then))
        if guessed.resolved_as(registry):
            assert guessed == rows_resolve(plan, canonical=registry)
