"""A large impact report is streamed a chunk at a time; root cause lists the likely culprit first."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from lineage_app.graph import impact
from lineage_app.graph.driver import graph_write
from lineage_app.graph.model import Label, Rel
from tests.explorer.known_graph import AGGREGATE, CLEAN, EXPORT, EXPORT_JOB, LOAD, MART, RAW, RUN_D, build_known_graph

pytestmark = pytest.mark.django_db

WIDE = 5000
CREATE_FAN_OUT = f"""
CREATE (:{Label.DATASET} {{key: 'big' + $sep + 'source', nodeId: 'dataset:big:source', namespace: 'big',
        name: 'source', firstSeen: '2026-01-01T00:00:00.000000Z'}})
CREATE (:{Label.JOB} {{key: 'big' + $sep + 'fan', nodeId: 'job:big:fan', namespace: 'big', name: 'fan',
        firstSeen: '2026-01-01T00:00:00.000000Z'}})
"""
LINK_FAN_OUT = f"""
MATCH (s:{Label.DATASET} {{key: 'big' + $sep + 'source'}}), (j:{Label.JOB} {{key: 'big' + $sep + 'fan'}})
CREATE (s)-[:{Rel.INPUT_TO} {{firstSeen: '2026-01-01T00:00:00.000000Z'}}]->(j)
"""
CREATE_OUTPUTS = f"""
UNWIND $names AS name
MATCH (j:{Label.JOB} {{key: 'big' + $sep + 'fan'}})
CREATE (j)-[:{Rel.OUTPUTS} {{firstSeen: '2026-01-01T00:00:00.000000Z'}}]->
       (:{Label.DATASET} {{key: 'big' + $sep + name, nodeId: 'dataset:big:' + name, namespace: 'big', name: name,
         firstSeen: '2026-01-01T00:00:00.000000Z'}})
"""


@pytest.fixture
def wide(graph: Any) -> None:
    graph_write(lambda tx: tx.run(CREATE_FAN_OUT, sep="\x1f").consume())
    graph_write(lambda tx: tx.run(LINK_FAN_OUT, sep="\x1f").consume())
    names = [f"out{n:05d}" for n in range(WIDE)]
    for start in range(0, WIDE, 1000):
        batch = names[start : start + 1000]
        graph_write(lambda tx, batch=batch: tx.run(CREATE_OUTPUTS, names=batch, sep="\x1f").consume())


def test_a_large_report_is_streamed_reading_details_one_chunk_at_a_time(
    wide: None, read_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(impact, "CHUNK", 500)
    calls: list[int] = []
    details = impact.impact_details

    def counting(*, refs: Any) -> Any:
        refs = list(refs)
        calls.append(len(refs))
        return details(refs=refs)

    monkeypatch.setattr(impact, "impact_details", counting)
    response = read_client.get("/api/v1/impact", {"nodeId": "dataset:big:source"})
    assert response.status_code == 200 and response.streaming
    pieces = iter(response.streaming_content)
    first = next(pieces)
    assert first.startswith(b'{"nodeIds":["dataset:big:source"]')
    assert calls == []  # the header goes out before any asset is read
    received = [first, next(pieces)]
    assert calls == [500]  # the first assets go out after one chunk, not after all of them
    received.extend(pieces)
    assert len(received) > 10
    assert calls == [500] * 10 + [1]  # 5,001 assets: the job and its 5,000 outputs, chunk by chunk
    body = json.loads(b"".join(received))
    assert body["summary"]["total"] == WIDE + 1 == len(body["assets"])
    assert body["summary"]["byDepth"] == {"1": 1, "2": WIDE}
    assert body["assets"][-1]["path"] == ["dataset:big:source", "job:big:fan", "dataset:big:out04999"]


def test_a_large_csv_report_is_streamed_too(wide: None, read_client: APIClient) -> None:
    response = read_client.get("/api/v1/impact/report", {"nodeId": "dataset:big:source", "format": "csv"})
    assert response.streaming
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == WIDE + 2


# ---- root cause ----


def root_cause(client: APIClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/v1/root-cause", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_root_cause_puts_the_most_recent_failure_or_schema_change_first(graph: Any, read_client: APIClient) -> None:
    build_known_graph()
    body = root_cause(read_client, nodeId=EXPORT)
    order = [(r["id"], r["lastEvent"]["kind"] if r["lastEvent"] else None) for r in body["results"]]
    assert order == [
        (EXPORT_JOB, "failure"),  # aborted on day 4
        (AGGREGATE, "failure"),  # failed on day 3
        (CLEAN, "schema_change"),  # new schema on day 2
        (MART, None),
        (LOAD, None),
        (RAW, None),  # nothing happened: nearest first
    ]
    aggregate = body["results"][1]
    assert aggregate["lastEvent"] == {
        "kind": "failure",
        "at": "2026-01-08T08:10:00.000000Z",
        "runId": RUN_D,
        "state": "FAILED",
        "message": "boom",
    }
    assert aggregate["path"] == [AGGREGATE, MART, EXPORT_JOB, EXPORT]
    change = body["results"][2]["lastEvent"]
    assert (change["added"], change["removed"], change["retyped"]) == (["country"], [], ["amount_eur"])
    assert change["at"] == "2026-01-07T08:00:00.000000Z"


def test_root_cause_stops_at_depth_and_answers_bad_ids_with_4xx(graph: Any, read_client: APIClient) -> None:
    build_known_graph()
    assert [r["id"] for r in root_cause(read_client, nodeId=MART, depth=2)["results"]] == [AGGREGATE, CLEAN]
    assert read_client.get("/api/v1/root-cause", {"nodeId": "dataset:db:nope"}).status_code == 404
    assert read_client.get("/api/v1/root-cause", {"nodeId": AGGREGATE}).status_code == 404  # datasets only
    assert read_client.get("/api/v1/root-cause", {"nodeId": MART, "depth": 500}).status_code == 400
