"""Server-side verification: each status, key rotation and revocation, policies, quarantine and re-verify."""

from __future__ import annotations

import copy
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.utils import timezone

from lineage_app.graph.traversal import run_find
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply, events_reverify
from lineage_app.signatures.models import ProducerKey, SignaturePolicy
from lineage_protocol import VerificationStatus, generate_private_key, public_key_pem, sign_event
from tests.apply import accept, as_json
from tests.events import PRODUCER, T0, new_run_id, run_event
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

V = VerificationStatus
DATASET_EVENT_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent"


@pytest.fixture
def key() -> Ed25519PrivateKey:
    return generate_private_key()


def register(private_key: Ed25519PrivateKey, **fields: Any) -> ProducerKey:
    fields.setdefault("producer", "spark-etl")
    return ProducerKey.objects.create(public_key=public_key_pem(private_key.public_key()), **fields)


def policy(namespace: str, mode: str) -> None:
    SignaturePolicy.objects.update_or_create(namespace=namespace, defaults={"mode": mode})


def signed(private_key: Ed25519PrivateKey, **kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("run_id", new_run_id())
    return sign_event(run_event(kwargs.pop("event_type", "COMPLETE"), **kwargs), private_key)


def ingest(*events: dict[str, Any], received_at: Any = None) -> list[LineageEvent]:
    """Store (received at `received_at`, when given) and apply `events` as the worker would; the rows
    afterwards, in the order given."""
    ids = accept(*events, raw=as_json)
    if received_at is not None:
        LineageEvent.objects.filter(id__in=ids).update(received_at=received_at)
    events_apply(event_ids=ids)
    rows = LineageEvent.objects.in_bulk(ids)
    return [rows[i] for i in ids]


def in_graph(event: LineageEvent) -> bool:
    return run_find(run_id=event.run_id) is not None


def test_an_event_signed_by_a_registered_key_is_verified_and_applied(graph, key):  # type: ignore[no-untyped-def]
    register(key)
    [row] = ingest(signed(key))
    assert (row.verification, row.status) == (V.VERIFIED, "applied")
    assert in_graph(row)


def test_an_unsigned_event_is_recorded_unsigned_and_applied_under_the_default_warn_policy(graph):  # type: ignore[no-untyped-def]
    [row] = ingest(run_event("COMPLETE", run_id=new_run_id()))
    assert (row.verification, row.status) == (V.UNSIGNED, "applied")
    assert in_graph(row)


def test_a_malformed_signature_facet_is_an_invalid_signature(graph, key):  # type: ignore[no-untyped-def]
    register(key)
    event = signed(key)
    event["run"]["facets"]["tributary_signature"]["signature"] += "="
    [row] = ingest(event)
    assert row.verification == V.INVALID_SIGNATURE


def test_an_event_signed_by_an_unregistered_key_is_unknown_key(graph, key):  # type: ignore[no-untyped-def]
    [row] = ingest(signed(key))
    assert row.verification == V.UNKNOWN_KEY


def test_two_active_keys_of_one_producer_both_verify_during_rotation(graph):  # type: ignore[no-untyped-def]
    old, new = generate_private_key(), generate_private_key()
    register(old)
    register(new)
    rows = ingest(signed(old), signed(new))
    assert [r.verification for r in rows] == [V.VERIFIED, V.VERIFIED]


def test_a_retired_key_verifies_events_from_before_its_retirement_and_not_after(graph, key):  # type: ignore[no-untyped-def]
    register(key, retired_at=T0 + timedelta(hours=1))
    before, at, after = ingest(
        signed(key, at=T0 + timedelta(minutes=59)),
        signed(key, at=T0 + timedelta(hours=1)),
        signed(key, at=T0 + timedelta(hours=2)),
    )
    assert [before.verification, at.verification, after.verification] == [V.VERIFIED, V.RETIRED_KEY, V.RETIRED_KEY]


def test_a_revoked_key_fails_every_event_received_after_revocation_whatever_its_event_time(graph, key):  # type: ignore[no-untyped-def]
    revoked_at = timezone.now() - timedelta(hours=1)
    register(key, revoked_at=revoked_at)
    [received_before] = ingest(signed(key, at=T0), received_at=revoked_at - timedelta(minutes=1))
    [received_after] = ingest(signed(key, at=T0))  # backdated eventTime, received now
    assert received_before.verification == V.VERIFIED
    assert received_after.verification == V.REVOKED_KEY


def test_a_key_is_unknown_for_events_from_before_it_became_active(graph, key):  # type: ignore[no-untyped-def]
    register(key, active_from=T0 + timedelta(days=1))
    early, late = ingest(signed(key, at=T0), signed(key, at=T0 + timedelta(days=2)))
    assert (early.verification, late.verification) == (V.UNKNOWN_KEY, V.VERIFIED)


def test_a_key_may_only_sign_for_the_namespaces_it_is_allowed(graph, key):  # type: ignore[no-untyped-def]
    register(key, allowed_namespaces="spark://etl\nspark://finance\n")
    allowed, other = ingest(signed(key, namespace="spark://finance"), signed(key, namespace="spark://marketing"))
    assert (allowed.verification, other.verification) == (V.VERIFIED, V.NAMESPACE_NOT_ALLOWED)


def test_policy_off_and_warn_apply_whatever_the_status_and_record_it(graph, key):  # type: ignore[no-untyped-def]
    policy("quiet", "off")
    policy("loud", "warn")
    off, warn = ingest(signed(key, namespace="quiet"), signed(key, namespace="loud"))
    assert [(r.verification, r.status) for r in (off, warn)] == [(V.UNKNOWN_KEY, "applied")] * 2
    assert in_graph(off) and in_graph(warn)


def test_enforce_quarantines_an_unverified_event_and_the_graph_has_no_trace_of_it(graph, key):  # type: ignore[no-untyped-def]
    policy("spark", "enforce")
    [row] = ingest(signed(key))
    assert (row.verification, row.status) == (V.UNKNOWN_KEY, "quarantined")
    assert "UNKNOWN_KEY" in row.status_reason and "enforce" in row.status_reason
    assert graph_dump() == []


def test_enforce_applies_verified_events(graph, key):  # type: ignore[no-untyped-def]
    policy("spark", "enforce")
    register(key)
    [row] = ingest(signed(key))
    assert (row.verification, row.status) == (V.VERIFIED, "applied")


def test_the_default_policy_comes_from_the_setting(graph, key, settings):  # type: ignore[no-untyped-def]
    settings.SIGNATURE_POLICY_DEFAULT = "enforce"
    [row] = ingest(run_event("COMPLETE", run_id=new_run_id()))
    assert (row.verification, row.status) == (V.UNSIGNED, "quarantined")


def test_a_dataset_event_is_judged_by_the_policy_of_its_dataset_namespace(graph):  # type: ignore[no-untyped-def]
    policy("warehouse", "enforce")
    event = {
        "eventTime": "2026-01-05T08:00:00Z",
        "producer": PRODUCER,
        "schemaURL": DATASET_EVENT_SCHEMA,
        "dataset": {"namespace": "warehouse", "name": "orders", "facets": {}},
    }
    [row] = ingest(event)
    assert (row.verification, row.status) == (V.UNSIGNED, "quarantined")


def test_re_verifying_after_the_key_is_registered_applies_the_quarantined_event(graph, key):  # type: ignore[no-untyped-def]
    policy("spark", "enforce")
    [row] = ingest(signed(key))
    assert not in_graph(row)
    assert events_reverify(event_ids=[row.id]) == 0  # still no key: back to quarantine
    row.refresh_from_db()
    assert row.status == "quarantined"
    register(key)
    assert events_reverify(event_ids=[row.id]) == 1
    row.refresh_from_db()
    assert (row.verification, row.status, row.status_reason) == (V.VERIFIED, "applied", "")
    assert in_graph(row)


def test_the_admin_action_re_verifies_and_applies_quarantined_events(graph, key, admin_client):  # type: ignore[no-untyped-def]
    policy("spark", "enforce")
    [row] = ingest(signed(key))
    register(key)
    response = admin_client.post(
        "/admin/ingest/lineageevent/", {"action": "reverify", "_selected_action": [row.id]}, follow=True
    )
    assert "1 applied, 0 still held" in response.content.decode()
    row.refresh_from_db()
    assert row.status == "applied"


def test_the_admin_rejects_a_public_key_that_is_not_ed25519_pem_with_a_clear_error(admin_client):  # type: ignore[no-untyped-def]
    response = admin_client.post(
        "/admin/signatures/producerkey/add/", {"producer": "spark-etl", "public_key": "ssh-ed25519 AAAA nope"}
    )
    assert response.status_code == 200
    assert "Ed25519 public key in PEM form" in response.content.decode()
    assert not ProducerKey.objects.exists()


def test_the_key_id_is_computed_from_the_pem(key):  # type: ignore[no-untyped-def]
    from lineage_protocol import key_id

    assert register(key).key_id == key_id(key.public_key())


def test_a_re_sent_identical_signed_event_is_a_duplicate_stored_and_applied_once(graph, key, ingest_client):  # type: ignore[no-untyped-def]
    register(key)
    event = signed(key)
    first = ingest_client.post("/api/v1/lineage", event, format="json")
    second = ingest_client.post("/api/v1/lineage", event, format="json")
    assert first.status_code in (200, 201) and second.status_code in (200, 201)
    ids = list(LineageEvent.objects.values_list("id", flat=True))
    assert len(ids) == 1
    assert events_apply(event_ids=ids * 2) == 1
    assert events_apply(event_ids=ids) == 0


def test_a_modified_copy_of_a_signed_event_fails_and_is_quarantined_under_enforce(graph, key):  # type: ignore[no-untyped-def]
    register(key)
    policy("spark", "enforce")
    original = signed(key, event_type="START")
    tampered = copy.deepcopy(original)
    tampered["eventType"] = "FAIL"
    kept, forged = ingest(original, tampered)
    assert (kept.verification, kept.status) == (V.VERIFIED, "applied")
    assert (forged.verification, forged.status) == (V.INVALID_SIGNATURE, "quarantined")
    assert run_find(run_id=kept.run_id)["run"]["state"] != "FAILED"


def test_verify_events_reports_counts_per_status_and_the_failing_events(graph, key):  # type: ignore[no-untyped-def]
    register(key)
    good, _unsigned, unknown = ingest(
        signed(key), run_event("COMPLETE", run_id=new_run_id()), signed(generate_private_key(), namespace="other")
    )
    ProducerKey.objects.update(revoked_at=timezone.now() - timedelta(days=1))  # good's key, revoked before receipt
    out = StringIO()
    call_command("verify_events", stdout=out)
    report = out.getvalue()
    assert "verified 3 event(s)" in report
    assert "REVOKED_KEY            1" in report and "UNSIGNED               1" in report
    assert "UNKNOWN_KEY            1" in report and "VERIFIED " not in report
    assert f"{good.id}\t{good.run_id}\tspark:etl.daily\tREVOKED_KEY (stored: VERIFIED)" in report
    assert f"{unknown.id}\t{unknown.run_id}\tother:etl.daily\tUNKNOWN_KEY\t" in report
    assert LineageEvent.objects.get(id=good.id).verification == V.VERIFIED  # the report changes nothing

    out = StringIO()
    call_command("verify_events", "--namespace", "other", "--since", "2000-01-01T00:00:00Z", stdout=out)
    assert "verified 1 event(s)" in out.getvalue()


def test_verify_events_rejects_a_since_without_time_zone(db):  # type: ignore[no-untyped-def]
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="time zone"):
        call_command("verify_events", "--since", "2026-01-01T00:00:00", stdout=StringIO())


def test_the_run_api_shows_the_worst_status_and_each_event(graph, key, read_client):  # type: ignore[no-untyped-def]
    register(key)
    run_id = new_run_id()
    start, complete = ingest(
        signed(key, run_id=run_id, event_type="START"),
        run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=5)),
    )
    body = read_client.get(f"/api/v1/jobs/runs/{run_id}").json()
    assert body["verification"] == "UNSIGNED"
    # Each event also says where the ledger holds it: no chain (a version 1 signature, an unsigned event), the
    # log's leaf, and no checkpoint covering it yet.
    ledger = {"chain": None, "inclusion": {"checkpoint": None, "witnessed": False}}
    assert body["events"] == [
        {
            "id": start.id,
            "eventType": "START",
            "eventTime": "2026-01-05T08:00:00.000000Z",
            "verification": "VERIFIED",
            "status": "applied",
            "contentHash": start.content_hash,
            **ledger,
            "inclusion": {**ledger["inclusion"], "leafIndex": 0},
        },
        {
            "id": complete.id,
            "eventType": "COMPLETE",
            "eventTime": "2026-01-05T08:05:00.000000Z",
            "verification": "UNSIGNED",
            "status": "applied",
            "contentHash": complete.content_hash,
            **ledger,
            "inclusion": {**ledger["inclusion"], "leafIndex": 1},
        },
    ]


def test_a_run_is_verified_only_when_every_event_is(graph, key, read_client):  # type: ignore[no-untyped-def]
    register(key)
    run_id = new_run_id()
    ingest(signed(key, run_id=run_id, event_type="START"), signed(key, run_id=run_id, at=T0 + timedelta(minutes=5)))
    assert read_client.get(f"/api/v1/jobs/runs/{run_id}").json()["verification"] == "VERIFIED"
