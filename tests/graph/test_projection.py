"""What each kind of event puts in the graph: runs, lineage, schema versions, columns, owners, tags."""

from __future__ import annotations

from datetime import timedelta

import pytest

from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.explorer.selectors.lineage import lineage_for_node
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import Moment
from lineage_app.instants import utc_text
from tests.apply import accept_and_apply
from tests.events import PRODUCER, T0, dataset, facet, new_run_id, run_event, run_lifecycle

pytestmark = pytest.mark.django_db


def query(cypher: str, **params: object) -> list[dict]:
    return graph_read(lambda tx: records(tx, cypher, **params))


def test_a_failed_run_keeps_its_error_message_and_stack_trace(graph):  # type: ignore[no-untyped-def]
    events = run_lifecycle(fail=True)
    accept_and_apply(*events)
    run = run_for_id(run_id=events[0]["run"]["runId"])
    assert run["state"] == "FAILED"
    assert run["errorMessage"] == "boom"
    assert run["stackTrace"].endswith("ValueError: boom")
    assert run["outputs"] == ["dataset:file:///data:clean/orders"]


def test_column_lineage_becomes_derives_edges_with_the_transformation(graph):  # type: ignore[no-untyped-def]
    accept_and_apply(*run_lifecycle())
    rows = query(
        "MATCH (s:Field)-[e:DERIVES]->(t:Field) RETURN s.nodeId AS source, t.nodeId AS target, "
        "e.job AS job, e.transformation AS type, e.subtype AS subtype ORDER BY source"
    )
    assert rows == [
        {
            "source": "datasetField:file:///data:raw/orders:amount",
            "target": "datasetField:file:///data:clean/orders:amount_eur",
            "job": "job:spark:etl.daily",
            "type": "DIRECT",
            "subtype": "IDENTITY",
        },
        {
            "source": "datasetField:file:///data:raw/orders:id",
            "target": "datasetField:file:///data:clean/orders:id",
            "job": "job:spark:etl.daily",
            "type": "DIRECT",
            "subtype": "IDENTITY",
        },
    ]


def test_indirect_whole_dataset_dependencies_reach_every_output_field(graph):  # type: ignore[no-untyped-def]
    target = dataset("db", "sales.by_country", fields=[("country", "string"), ("total", "double")])
    target["facets"]["columnLineage"] = facet(
        fields={"country": {"inputFields": []}, "total": {"inputFields": []}},
        dataset=[
            {
                "namespace": "db",
                "name": "sales.raw",
                "field": "status",
                "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
            }
        ],
    )
    accept_and_apply(run_event("COMPLETE", run_id=new_run_id(), outputs=[target]))
    rows = query(
        "MATCH (s:Field)-[e:DERIVES]->(t:Field) RETURN s.name AS s, t.name AS t, e.indirect AS indirect, "
        "e.subtype AS subtype ORDER BY t"
    )
    assert rows == [
        {"s": "status", "t": "country", "indirect": True, "subtype": "FILTER"},
        {"s": "status", "t": "total", "indirect": True, "subtype": "FILTER"},
    ]


def test_a_schema_change_adds_a_version_and_keeps_the_history(graph):  # type: ignore[no-untyped-def]
    narrow = dataset("db", "orders", fields=[("id", "bigint"), ("amount", "int")])
    wide = dataset("db", "orders", fields=[("id", "bigint"), ("amount", "double"), ("country", "string")])
    accept_and_apply(
        run_event("COMPLETE", run_id=new_run_id(), at=T0, outputs=[narrow]),
        run_event("COMPLETE", run_id=new_run_id(), at=T0 + timedelta(days=1), outputs=[wide]),
    )
    versions = query(
        "MATCH (d:Dataset {name: 'orders'})-[:HAS_VERSION]->(v) RETURN v.fieldNames AS names ORDER BY v.firstSeen"
    )
    assert [v["names"] for v in versions] == [["id", "amount"], ["id", "amount", "country"]]
    fields = query(
        "MATCH (:Dataset {name: 'orders'})-[:HAS_FIELD]->(f) RETURN f.name AS name, f.type AS type ORDER BY name"
    )
    assert fields == [
        {"name": "amount", "type": "double"},
        {"name": "country", "type": "string"},
        {"name": "id", "type": "bigint"},
    ]
    current = query("MATCH (d:Dataset {name: 'orders'}) RETURN d.versionCount AS n, d.fieldCount AS f")
    assert current == [{"n": 2, "f": 3}]


def test_reverting_a_schema_makes_the_old_version_current_again(graph):  # type: ignore[no-untyped-def]
    a = dataset("db", "t", fields=[("x", "int")])
    b = dataset("db", "t", fields=[("x", "int"), ("y", "int")])
    accept_and_apply(
        *(
            run_event("COMPLETE", run_id=new_run_id(), at=T0 + timedelta(hours=i), outputs=[schema])
            for i, schema in enumerate([a, b, a])
        )
    )
    rows = query(
        "MATCH (d:Dataset {name: 't'})-[:HAS_FIELD]->(f) RETURN f.name AS name, f.current AS current ORDER BY name"
    )
    assert rows == [{"name": "x", "current": True}, {"name": "y", "current": False}]


def test_ownership_facets_become_owned_by_edges(graph):  # type: ignore[no-untyped-def]
    owned = dataset("db", "customers", fields=[("id", "bigint")], owners=["team:crm", "user:ana"])
    accept_and_apply(run_event("COMPLETE", run_id=new_run_id(), outputs=[owned]))
    rows = query(
        "MATCH (:Dataset {name: 'customers'})-[e:OWNED_BY]->(o:Owner) "
        "RETURN o.name AS name, o.kind AS kind, e.role AS role, e.source AS source ORDER BY name"
    )
    assert rows == [
        {"name": "team:crm", "kind": "team", "role": "MAINTAINER", "source": "event"},
        {"name": "user:ana", "kind": "person", "role": "MAINTAINER", "source": "event"},
    ]


def test_tags_facets_become_tag_nodes_of_datasets_jobs_and_runs_once_each(graph):  # type: ignore[no-untyped-def]
    def tags(*texts: str) -> dict:
        pairs = [text.partition(":") for text in texts]
        return facet(tags=[{"key": k, "value": v, "source": "DBT"} for k, _, v in pairs])

    tagged = dataset("db", "customers")
    tagged["facets"]["tags"] = tags("pii:true", "certified:", "pii:true")  # an empty value: the key alone
    run_id = new_run_id()
    events = [
        run_event(
            state, run_id=run_id, at=T0 + timedelta(minutes=i), outputs=[tagged], run_facets={"tags": tags("env:prod")}
        )
        for i, state in enumerate(("START", "COMPLETE"))
    ]
    for event in events:
        event["job"]["facets"] = {"tags": tags("domain:crm")}
    accept_and_apply(*events)
    rows = query(
        "MATCH (t:Tag) OPTIONAL MATCH (n)-[:TAGGED]->(t) "
        "RETURN t.key AS tag, coalesce(n.name, n.runId) AS node ORDER BY tag"
    )
    assert rows == [
        {"tag": "certified", "node": "customers"},
        {"tag": "domain:crm", "node": "etl.daily"},
        {"tag": "env:prod", "node": run_id},
        {"tag": "pii:true", "node": "customers"},
    ]


def test_dataset_and_job_events_add_static_metadata_and_lineage(graph):  # type: ignore[no-untyped-def]
    base = {
        "eventTime": "2026-01-05T08:00:00Z",
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
    }
    accept_and_apply(
        {**base, "dataset": dataset("db", "ref.countries", fields=[("code", "string")])},
        {
            **base,
            "job": {"namespace": "airflow", "name": "load_countries"},
            "inputs": [{"namespace": "db", "name": "ref.countries"}],
            "outputs": [{"namespace": "db", "name": "dim.country"}],
        },
    )
    lineage = lineage_for_node(node_id="dataset:db:ref.countries", depth=2, direction="downstream", level="action")
    assert [n["id"] for n in lineage["graph"]] == [
        "dataset:db:dim.country",
        "dataset:db:ref.countries",
        "job:airflow:load_countries",
    ]
    assert query("MATCH (d:Dataset {name: 'ref.countries'}) RETURN d.fieldCount AS f") == [{"f": 1}]


def test_a_child_run_points_at_its_parent(graph):  # type: ignore[no-untyped-def]
    parent_id, child_id = new_run_id(), new_run_id()
    parent = {"parent": facet(run={"runId": parent_id}, job={"namespace": "spark", "name": "app"})}
    accept_and_apply(
        run_event("START", run_id=parent_id, job="app"),
        run_event("COMPLETE", run_id=child_id, job="app.write", run_facets=parent),
    )
    assert run_for_id(run_id=parent_id)["children"] == [child_id]
    assert run_for_id(run_id=child_id)["parentRunId"] == parent_id


def test_lineage_as_of_a_time_leaves_out_later_edges(graph):  # type: ignore[no-untyped-def]
    early = run_event(
        "COMPLETE", run_id=new_run_id(), job="a", at=T0, inputs=[dataset("db", "src")], outputs=[dataset("db", "mid")]
    )
    late = run_event(
        "COMPLETE",
        run_id=new_run_id(),
        job="b",
        at=T0 + timedelta(days=3),
        inputs=[dataset("db", "mid")],
        outputs=[dataset("db", "late")],
    )
    accept_and_apply(early, late)
    now = lineage_for_node(node_id="dataset:db:src", depth=4, direction="downstream", level="action")
    before = lineage_for_node(
        node_id="dataset:db:src",
        depth=4,
        direction="downstream",
        moment=Moment(at=utc_text(T0 + timedelta(days=1))),
        level="action",
    )
    assert "dataset:db:late" in {n["id"] for n in now["graph"]}
    assert "dataset:db:late" not in {n["id"] for n in before["graph"]}


def latest_runs() -> dict[str, tuple[str, str, str]]:
    """What each job and dataset node keeps about its latest run: (runId, state, time)."""
    rows = query(
        "MATCH (n) WHERE n:Job OR n:Dataset RETURN n.nodeId AS id, n.latestRunId AS run, "
        "n.latestRunState AS state, n.latestRunTime AS at"
    )
    return {row["id"]: (row["run"], row["state"], row["at"]) for row in rows if row["run"] is not None}


def test_jobs_and_the_datasets_they_wrote_keep_their_latest_run(graph):  # type: ignore[no-untyped-def]
    older, newer = new_run_id(), new_run_id()
    target = dataset("db", "daily")
    # The newer run arrives first: the older one, applied later, must not take its place.
    accept_and_apply(run_event("START", run_id=newer, at=T0 + timedelta(days=1), outputs=[target]))
    accept_and_apply(
        run_event("START", run_id=older, at=T0, outputs=[target]),
        run_event("COMPLETE", run_id=older, at=T0 + timedelta(hours=1)),
    )
    newer_state = ("RUNNING", utc_text(T0 + timedelta(days=1)))
    assert latest_runs() == {"job:spark:etl.daily": (newer, *newer_state), "dataset:db:daily": (newer, *newer_state)}
    # The newer run's FAIL names no outputs: the dataset it wrote still learns the run failed.
    accept_and_apply(run_event("FAIL", run_id=newer, at=T0 + timedelta(days=1, hours=1)))
    failed = (newer, "FAILED", utc_text(T0 + timedelta(days=1, hours=1)))
    assert latest_runs() == {"job:spark:etl.daily": failed, "dataset:db:daily": failed}


def test_a_parent_run_known_only_by_reference_is_its_jobs_latest_run_until_one_has_events(graph):  # type: ignore[no-untyped-def]
    parent = new_run_id()
    parent_facet = {"parent": facet(run={"runId": parent}, job={"namespace": "spark", "name": "nightly"})}
    accept_and_apply(run_event("START", run_id=new_run_id(), job="nightly.step", run_facets=parent_facet))
    assert latest_runs()["job:spark:nightly"] == (parent, "NEW", None)
    accept_and_apply(run_event("COMPLETE", run_id=parent, job="nightly", at=T0 + timedelta(hours=2)))
    assert latest_runs()["job:spark:nightly"] == (parent, "COMPLETED", utc_text(T0 + timedelta(hours=2)))
