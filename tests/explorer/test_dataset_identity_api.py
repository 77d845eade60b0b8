"""Dataset identity in the read API: alias ids resolve, search finds aliases, detail lists them; near-miss."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from tests.apply import accept_and_apply
from tests.events import T0, dataset, run_event
from tests.graph.identity_events import CANONICAL_ID, CATALOG_ID, S3A_ID, SUMMARY_ID, alias_events

pytestmark = pytest.mark.django_db


@pytest.fixture
def aliased(graph: Any) -> None:
    accept_and_apply(*alias_events(), one_by_one=True)


def _get(client: APIClient, path: str, status: int = 200, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == status, response.content
    return response.json()


@pytest.mark.parametrize("alias", [CATALOG_ID, S3A_ID, "dataset:s3n://lake/:warehouse/orders"])
def test_an_alias_id_resolves_to_the_canonical_dataset(read_client, aliased, alias):  # type: ignore[no-untyped-def]
    detail = _get(read_client, "datasets/detail", nodeId=alias)
    assert detail["id"] == CANONICAL_ID
    lineage = _get(read_client, "lineage", nodeId=alias, depth=2, direction="downstream")
    assert lineage["nodeId"] == CANONICAL_ID
    assert SUMMARY_ID in {node["id"] for node in lineage["graph"]}


def test_dataset_detail_lists_aliases_with_who_named_them(read_client, aliased):  # type: ignore[no-untyped-def]
    detail = _get(read_client, "datasets/detail", nodeId=CANONICAL_ID)
    aliases = {(a["namespace"], a["name"]): a["source"] for a in detail["aliases"]}
    assert set(aliases) == {("hive://metastore", "sales.orders"), ("s3a://lake", "warehouse/orders/")}
    assert aliases[("hive://metastore", "sales.orders")]["job"] == "job:spark:orders.summarise"
    assert aliases[("s3a://lake", "warehouse/orders/")]["job"] == "job:spark:orders.load"
    assert aliases[("s3a://lake", "warehouse/orders/")]["kind"] == "dataset"


def test_search_finds_a_dataset_by_an_alias_name_once(read_client, aliased):  # type: ignore[no-untyped-def]
    hits = _get(read_client, "search", q="sales.orders", types="dataset")["results"]
    assert [hit["id"] for hit in hits] == [CANONICAL_ID]
    hits = _get(read_client, "search", q="orders", types="dataset")["results"]
    assert sorted(hit["id"] for hit in hits) == [CANONICAL_ID]


def test_an_unknown_alias_is_still_a_404(read_client, aliased):  # type: ignore[no-untyped-def]
    body = _get(read_client, "datasets/detail", status=404, nodeId="dataset:hive://metastore:sales.nope")
    assert body["path"] == "nodeId"


def test_near_miss_says_connected_datasets_are_connected_with_the_path_length(read_client, aliased):  # type: ignore[no-untyped-def]
    body = _get(read_client, "datasets/near-miss", a=S3A_ID, b=SUMMARY_ID)
    assert (body["connected"], body["pathLength"], body["direction"]) == (True, 2, "a to b")
    assert (body["a"], body["b"]) == (CANONICAL_ID, SUMMARY_ID)
    reverse = _get(read_client, "datasets/near-miss", a=SUMMARY_ID, b=CATALOG_ID)
    assert (reverse["connected"], reverse["direction"]) == (True, "b to a")
    same = _get(read_client, "datasets/near-miss", a=CATALOG_ID, b=CANONICAL_ID)
    assert (same["connected"], same["pathLength"], same["direction"]) == (True, 0, "same dataset")


def test_near_miss_finds_a_connection_beyond_the_lineage_node_budget(read_client, aliased, settings):  # type: ignore[no-untyped-def]
    settings.LINEAGE_MAX_NODES = 2  # the start and one job: a budgeted lineage graph stops short of the summary
    body = _get(read_client, "datasets/near-miss", a=S3A_ID, b=SUMMARY_ID)
    assert (body["connected"], body["pathLength"], body["direction"]) == (True, 2, "a to b")


def _unlinked() -> list[dict]:
    """Two seams the identity rules cannot close: the same name under two namespaces, and a job that
    read one table and wrote a similarly named copy that a second job then reads under that name."""
    day = T0 + timedelta(days=9)
    ids = [f"7a2c0b11-0000-4000-8000-00000000000{i}" for i in range(1, 4)]
    return [
        run_event(
            "COMPLETE",
            run_id=ids[0],
            job="a.load",
            at=day,
            outputs=[dataset("postgres://prod:5432", "public.customers")],
        ),
        run_event(
            "COMPLETE",
            run_id=ids[1],
            job="b.read",
            at=day,
            inputs=[dataset("postgres://replica:5432", "public.customers")],
        ),
        run_event(
            "COMPLETE",
            run_id=ids[2],
            job="c.copy",
            at=day,
            inputs=[dataset("s3://lake", "raw/invoices")],
            outputs=[dataset("s3://lake", "stage/invoices_v2")],
        ),
    ]


def test_near_miss_names_the_same_name_in_another_namespace(read_client, graph):  # type: ignore[no-untyped-def]
    accept_and_apply(*_unlinked(), one_by_one=True)
    body = _get(
        read_client,
        "datasets/near-miss",
        a="dataset:postgres://prod:5432:public.customers",
        b="dataset:postgres://replica:5432:public.customers",
    )
    assert (body["connected"], body["pathLength"]) == (False, None)
    assert [m["kind"] for m in body["nearMisses"]] == ["same_name_other_namespace"]
    assert "NAMESPACE_ALIASES" in body["nearMisses"][0]["message"]


def test_near_miss_names_a_job_that_wrote_a_similarly_named_dataset(read_client, graph):  # type: ignore[no-untyped-def]
    accept_and_apply(*_unlinked(), one_by_one=True)
    body = _get(
        read_client,
        "datasets/near-miss",
        a="dataset:s3://lake:raw/invoices",
        b="dataset:postgres://prod:5432:public.customers",
    )
    assert body["nearMisses"] == []
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id="7a2c0b11-0000-4000-8000-000000000009",
            job="d.report",
            at=T0 + timedelta(days=10),
            inputs=[dataset("s3://lake", "curated/invoices")],
        )
    )
    body = _get(
        read_client,
        "datasets/near-miss",
        a="dataset:s3://lake:stage/invoices_v2",
        b="dataset:s3://lake:curated/invoices",
    )
    assert body["connected"] is False
    kinds = [m["kind"] for m in body["nearMisses"]]
    assert kinds == ["similar_name_one_job_away"]
    assert body["nearMisses"][0]["via"] == ["job:spark:c.copy", "dataset:s3://lake:raw/invoices"]


def test_near_miss_names_an_alias_seen_elsewhere(read_client, aliased):  # type: ignore[no-untyped-def]
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id="7a2c0b11-0000-4000-8000-000000000008",
            job="e.other",
            at=T0 + timedelta(days=11),
            inputs=[dataset("hive://other-metastore", "sales.orders")],
        )
    )
    body = _get(read_client, "datasets/near-miss", a=CANONICAL_ID, b="dataset:hive://other-metastore:sales.orders")
    assert body["connected"] is False
    assert "alias_seen_elsewhere" in [m["kind"] for m in body["nearMisses"]]


@pytest.mark.parametrize(
    ("params", "path"),
    [
        ({"b": CANONICAL_ID}, "a"),
        ({"a": CANONICAL_ID}, "b"),
        ({"a": "", "b": CANONICAL_ID}, "a"),
        ({"a": "x" * 5000, "b": CANONICAL_ID}, "a"),
    ],
)
def test_near_miss_parameters_are_validated(read_client, aliased, params, path):  # type: ignore[no-untyped-def]
    body = _get(read_client, "datasets/near-miss", status=400, **params)
    assert body["path"] == path and body["error"] and body["message"]


@pytest.mark.parametrize(
    ("params", "path"),
    [
        ({"a": "dataset:nope:nope", "b": CANONICAL_ID}, "a"),
        ({"a": CANONICAL_ID, "b": "job:spark:orders.load"}, "b"),
    ],
)
def test_near_miss_of_an_unknown_dataset_is_a_404_naming_it(read_client, aliased, params, path):  # type: ignore[no-untyped-def]
    body = _get(read_client, "datasets/near-miss", status=404, **params)
    assert body["path"] == path


def test_near_miss_needs_the_read_scope(client, aliased):  # type: ignore[no-untyped-def]
    response = client.get(f"/api/v1/datasets/near-miss?{urlencode({'a': CANONICAL_ID, 'b': SUMMARY_ID})}")
    assert response.status_code in {401, 403}
