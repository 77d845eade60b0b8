"""The ledger's stream state: contiguous, gap (closing itself when filled), fork, truncated; unchained events."""

from __future__ import annotations

import json
from copy import deepcopy
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from lineage_app.graph.driver import graph_read, records
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.validation import event_check
from lineage_app.ingest.verification import events_verify
from lineage_protocol import SIGNATURE_FACET, StreamChain, sign_event
from tests.apply import accept_and_apply
from tests.events import new_run_id, run_event
from tests.ledger.chains import KEY, contents, record, register, signed_stream, states

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def registered() -> None:
    register()


def only(found: dict) -> dict:
    assert len(found) == 1, found
    return next(iter(found.values()))


def test_a_complete_stream_is_contiguous_up_to_its_last_seq() -> None:
    _, events = signed_stream(5)
    record(events)
    assert only(states()) == {
        "state": "contiguous",
        "high": 5,
        "contiguousTo": 5,
        "gaps": [],
        "forks": [],
        "truncated": None,
    }


def test_a_missing_event_is_a_gap_with_its_seq_range_that_closes_itself_when_it_arrives() -> None:
    _, events = signed_stream(7)
    record(events[:2] + events[5:])
    stream = only(states())
    assert (stream["state"], stream["gaps"], stream["contiguousTo"]) == ("gap", [(3, 5)], 2)
    record([events[3]])
    assert only(states())["gaps"] == [(3, 3), (5, 5)]
    record([events[2], events[4]])
    assert only(states())["state"] == "contiguous"


def test_two_events_at_one_seq_are_a_fork_and_both_are_kept_as_evidence() -> None:
    _, events = signed_stream(3)
    other = StreamChain(KEY, "test:1")  # the same stream signing another history
    forged = [other.sign(event) for event in contents(2, tag="other")]
    record(events + forged[1:])
    stream = only(states())
    hashes = {event_check(e).content_hash for e in (events[1], forged[1])}
    assert stream["state"] == "fork"
    # seq 2 holds two events; seq 1 is forked too, since the forged seq 2 names another seq 1 as `prev`
    # (only the one that arrived is listed: the other is known by its hash alone).
    assert stream["forks"] == [(1, (event_check(events[0]).content_hash,)), (2, tuple(sorted(hashes)))]
    assert LineageEvent.objects.count() == 4


def test_a_heartbeat_announcing_more_than_arrived_shows_the_stream_truncated() -> None:
    chain, events = signed_stream(6)
    heartbeat = chain.heartbeat()
    record([*events[:4], heartbeat])
    stream = only(states())
    assert (stream["state"], stream["truncated"], stream["gaps"]) == ("truncated", (5, 6), [])
    record(events[4:])
    assert only(states())["state"] == "contiguous"


def test_a_heartbeat_whose_head_is_another_event_is_a_fork() -> None:
    _, events = signed_stream(3)
    other = StreamChain(KEY, "test:1")
    for event in contents(3, tag="other"):
        other.sign(event)
    record([*events, other.heartbeat()])
    assert only(states())["forks"][0][0] == 3


def test_a_chain_position_altered_after_signing_is_not_counted_and_leaves_its_gap() -> None:
    _, events = signed_stream(3)
    tampered = deepcopy(events[1])
    tampered["run"]["facets"][SIGNATURE_FACET]["seq"] = 9
    record([events[0], tampered, events[2]])
    stream = only(states())
    assert (stream["high"], stream["gaps"]) == (3, [(2, 2)])
    assert LineageEvent.objects.get(content_hash=event_check(tampered).content_hash).verification == "INVALID_SIGNATURE"


def test_unsigned_and_version_1_events_are_labelled_unchained_and_never_refused(read_client: APIClient) -> None:
    unsigned = run_event("START", run_id=new_run_id())
    version_1 = sign_event(run_event("START", run_id=new_run_id()), KEY)
    record([unsigned, version_1])
    assert LineageEvent.objects.filter(status=LineageEvent.Status.PENDING).count() == 2
    answer = read_client.get("/api/v1/ledger/streams").json()
    assert answer["results"] == []
    assert sorted((row["producer"], row["state"], row["events"]) for row in answer["unchained"]) == [
        ("edge-7", "unchained", 1),
        ("https://example.com/tests/tributary", "unchained", 1),
    ]


def test_the_api_answers_a_producers_streams_with_their_gaps_as_seq_ranges(read_client: APIClient) -> None:
    _, events = signed_stream(5)
    record(events[:1] + events[3:])
    answer = read_client.get("/api/v1/ledger/streams", {"producer": "edge-7"})
    assert answer.status_code == 200
    (stream,) = answer.json()["results"]
    assert stream["state"] == "gap"
    assert [{k: gap[k] for k in ("from", "to")} for gap in stream["gaps"]] == [{"from": 2, "to": 3}]
    assert stream["gaps"][0]["openSince"] == "2026-01-05T08:00:00.000000Z"
    assert read_client.get("/api/v1/ledger/streams", {"producer": "nobody"}).json()["results"] == []


def test_a_bad_limit_is_a_400_naming_the_parameter(read_client: APIClient) -> None:
    answer = read_client.get("/api/v1/ledger/streams", {"limit": "0"})
    assert answer.status_code == 400
    assert "limit" in json.dumps(answer.json())


def test_metrics_gauge_open_gaps_forks_and_truncated_streams(client) -> None:  # type: ignore[no-untyped-def]
    chain, events = signed_stream(6)
    record([events[0], events[2], chain.heartbeat()])
    text = client.get("/metrics").content.decode()
    assert "tributary_ledger_open_gaps 1.0" in text
    assert "tributary_ledger_forks 0.0" in text
    assert "tributary_ledger_truncated_streams 1.0" in text


def test_a_heartbeat_is_applied_without_becoming_a_job_in_lineage(graph: object) -> None:
    chain, events = signed_stream(1)
    accept_and_apply(events[0], chain.heartbeat())
    assert set(LineageEvent.objects.values_list("kind", "status")) == {("run", "applied"), ("heartbeat", "applied")}
    jobs = graph_read(lambda tx: records(tx, "MATCH (j:Job) RETURN j.name AS name"))
    assert [job["name"] for job in jobs] == ["job_0"]


def test_a_heartbeat_travels_through_a_file_and_import_events_like_any_event(tmp_path) -> None:  # type: ignore[no-untyped-def]
    chain, events = signed_stream(4)
    path = tmp_path / "carried.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [*events[:2], chain.heartbeat()]))
    call_command("import_events", str(path), stdout=StringIO(), stderr=StringIO())
    assert set(LineageEvent.objects.values_list("kind", flat=True)) == {"run", "heartbeat"}
    events_verify(events=list(LineageEvent.objects.all()))
    stream = only(states())
    assert (stream["state"], stream["truncated"]) == ("truncated", (3, 4))
