"""Signing and verifying events: what tampering is detected and what, by design, is not."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_protocol import (
    ALGORITHM,
    DEFAULT_PRODUCER,
    SCHEMA_URL,
    SIGNATURE_FACET,
    CanonicalizationError,
    SignatureProblem,
    VerificationStatus,
    canonical_bytes,
    check_event,
    key_id,
    read_signature,
    sign_event,
    verify_event,
)


def reparse(event: dict[str, Any]) -> dict[str, Any]:
    """What a receiver sees: the event serialised (as an agent would) and parsed again."""
    return json.loads(json.dumps(event))


def test_a_signed_event_verifies_with_its_key(event: dict, private_key: Ed25519PrivateKey) -> None:
    signed = sign_event(event, private_key)
    assert verify_event(signed, private_key.public_key())
    assert verify_event(reparse(signed), private_key.public_key())


def test_the_facet_carries_producer_schema_algorithm_key_id_and_signature(
    event: dict, private_key: Ed25519PrivateKey
) -> None:
    signed = sign_event(event, private_key, producer="https://example.com/agent/1.2")
    facet = signed["run"]["facets"][SIGNATURE_FACET]
    assert set(facet) == {"_producer", "_schemaURL", "algorithm", "keyId", "signature"}
    assert facet["_producer"] == "https://example.com/agent/1.2"
    assert facet["_schemaURL"] == SCHEMA_URL
    assert facet["algorithm"] == ALGORITHM == "Ed25519"
    assert facet["keyId"] == key_id(private_key.public_key())
    assert len(facet["signature"]) == 86 and "=" not in facet["signature"]
    assert sign_event(event, private_key)["run"]["facets"][SIGNATURE_FACET]["_producer"] == (DEFAULT_PRODUCER)


def test_signing_returns_a_new_event_and_leaves_the_input_alone(event: dict, private_key: Ed25519PrivateKey) -> None:
    before = copy.deepcopy(event)
    signed = sign_event(event, private_key)
    assert event == before
    assert signed is not event and signed["run"] is not event["run"]
    assert {k: v for k, v in signed["run"]["facets"].items() if k != SIGNATURE_FACET} == (event["run"]["facets"])


def test_the_signature_covers_the_event_without_its_facet(event: dict, private_key: Ed25519PrivateKey) -> None:
    signed = sign_event(event, private_key)
    signature = read_signature(signed)
    assert signature is not None
    private_key.public_key().verify(signature.signature, canonical_bytes(event))
    assert canonical_bytes(signed) == canonical_bytes(event)


def test_an_event_without_run_facets_is_signed_with_empty_facets(event: dict, private_key: Ed25519PrivateKey) -> None:
    del event["run"]["facets"]
    signed = sign_event(event, private_key)
    assert "facets" not in event["run"]
    assert list(signed["run"]["facets"]) == [SIGNATURE_FACET]
    assert verify_event(reparse(signed), private_key.public_key())
    # The signed bytes include `"facets":{}`: dropping the emptied object breaks verification.
    stripped = reparse(signed)
    signature_facet = stripped["run"].pop("facets")[SIGNATURE_FACET]
    assert canonical_bytes(stripped) != canonical_bytes(signed)
    stripped["run"]["facets"] = {SIGNATURE_FACET: signature_facet}
    assert verify_event(stripped, private_key.public_key())


def test_resigning_replaces_the_old_signature(
    event: dict, private_key: Ed25519PrivateKey, other_key: Ed25519PrivateKey
) -> None:
    resigned = sign_event(sign_event(event, private_key), other_key)
    assert resigned["run"]["facets"][SIGNATURE_FACET]["keyId"] == key_id(other_key.public_key())
    assert verify_event(resigned, other_key.public_key())
    assert not verify_event(resigned, private_key.public_key())


def test_a_different_key_does_not_verify(
    event: dict, private_key: Ed25519PrivateKey, other_key: Ed25519PrivateKey
) -> None:
    signed = sign_event(event, private_key)
    assert not verify_event(signed, other_key.public_key())
    # Claiming the other key's id does not help either.
    signed["run"]["facets"][SIGNATURE_FACET]["keyId"] = key_id(other_key.public_key())
    assert not verify_event(signed, other_key.public_key())


def test_an_unsigned_event_does_not_verify(event: dict, private_key: Ed25519PrivateKey) -> None:
    assert read_signature(event) is None
    assert not verify_event(event, private_key.public_key())


TAMPERINGS = {
    "top-level field": lambda e: e.update(eventType="FAIL"),
    "event time": lambda e: e.update(eventTime="2025-03-14T09:26:53.590Z"),
    "run id": lambda e: e["run"].update(runId="0195a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5c"),
    "added top-level field": lambda e: e.update(extra=None),
    "nested facet value": lambda e: e["outputs"][0]["facets"]["schema"]["fields"][1].update(type="binary"),
    "column lineage source": lambda e: e["outputs"][0]["facets"]["columnLineage"]["fields"]["amount_eur"][
        "inputFields"
    ][0].update(field="customer_id"),
    "number value": lambda e: e["outputs"][0]["outputFacets"]["outputStatistics"].update(rowCount=120545),
    "integer to fraction": lambda e: e["outputs"][0]["outputFacets"]["outputStatistics"].update(fileCount=4.5),
    "number to string": lambda e: e["outputs"][0]["outputFacets"]["outputStatistics"].update(fileCount="4"),
    "whitespace inside a string": lambda e: e["job"].update(name="daily_orders.enrich "),
    "case inside a string": lambda e: e["job"].update(name="Daily_orders.enrich"),
    "array order": lambda e: e["inputs"].reverse(),
    "removed input": lambda e: e["inputs"].pop(),
    "other run facet": lambda e: e["run"]["facets"]["processing_engine"].update(version="3.5.2"),
    "added run facet": lambda e: e["run"]["facets"].update(
        nominalTime={"_producer": "p", "_schemaURL": "s", "nominalStartTime": "2025-03-14"}
    ),
    "object to null": lambda e: e["inputs"][0].update(inputFacets=None),
}


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
def test_tampering_with_any_value_is_detected(tampering: str, event: dict, private_key: Ed25519PrivateKey) -> None:
    received = reparse(sign_event(event, private_key))
    TAMPERINGS[tampering](received)
    assert not verify_event(received, private_key.public_key())
    assert not verify_event(reparse(received), private_key.public_key())


def test_a_changed_number_in_the_json_text_is_detected(event: dict, private_key: Ed25519PrivateKey) -> None:
    line = json.dumps(sign_event(event, private_key))
    assert '"rowCount": 120544' in line
    received = json.loads(line.replace('"rowCount": 120544', '"rowCount": 120544.5'))
    assert not verify_event(received, private_key.public_key())


# Not tampering, by design: JCS hashes the JSON *value*, so any spelling of the same value
# verifies. Signatures survive re-serialisation by any conforming JSON tool.
SAME_VALUE_SPELLINGS = {
    "keys re-ordered": lambda line: json.dumps(json.loads(line), sort_keys=True),
    "pretty-printed": lambda line: json.dumps(json.loads(line), indent=4),
    "compact separators": lambda line: json.dumps(json.loads(line), separators=(",", ":")),
    "non-ASCII escaped": lambda line: json.dumps(json.loads(line), ensure_ascii=True),
    "integer spelled as 120544.0": lambda line: line.replace("120544", "120544.0"),
    "integer spelled as 1.20544e5": lambda line: line.replace("120544", "1.20544e5"),
    "letter spelled as a unicode escape": lambda line: line.replace("curated", "\\u0063urated"),
    "slash spelled as an escape": lambda line: line.replace("s3://", "s3:\\/\\/"),
}


@pytest.mark.parametrize("spelling", sorted(SAME_VALUE_SPELLINGS))
def test_a_different_spelling_of_the_same_value_still_verifies(
    spelling: str, event: dict, private_key: Ed25519PrivateKey
) -> None:
    event["job"]["name"] = "daily_orders.enrich ü€"
    line = json.dumps(sign_event(event, private_key), ensure_ascii=False)
    respelled = SAME_VALUE_SPELLINGS[spelling](line)
    assert respelled != line
    assert verify_event(json.loads(respelled), private_key.public_key())


def test_the_signature_facet_itself_is_not_covered_by_the_signature(
    event: dict, private_key: Ed25519PrivateKey
) -> None:
    signed = reparse(sign_event(event, private_key))
    signed["run"]["facets"][SIGNATURE_FACET]["_producer"] = "https://example.com/someone-else"
    signed["run"]["facets"][SIGNATURE_FACET]["comment"] = "added later"
    assert verify_event(signed, private_key.public_key())


def test_an_event_that_jcs_cannot_represent_cannot_be_signed(event: dict, private_key: Ed25519PrivateKey) -> None:
    event["outputs"][0]["outputFacets"]["outputStatistics"]["size"] = 2**53
    with pytest.raises(CanonicalizationError):
        sign_event(event, private_key)


@pytest.mark.parametrize("value", [2**53, float("inf"), "\ud800"], ids=["big-int", "inf", "lone"])
def test_a_received_event_that_jcs_cannot_represent_does_not_verify(
    value: object, event: dict, private_key: Ed25519PrivateKey
) -> None:
    signed = sign_event(event, private_key)
    signed["job"]["name"] = value
    assert not verify_event(signed, private_key.public_key())
    result = check_event(signed, keys={key_id(private_key.public_key()): private_key.public_key()})
    assert (result.status, result.problem) == (VerificationStatus.INVALID_SIGNATURE, SignatureProblem.MISMATCH)
    assert "cannot be canonicalised" in result.detail


@pytest.mark.parametrize("bad", [{"eventType": "START"}, {"run": "r"}, {"run": {"runId": "r", "facets": []}}])
def test_only_events_with_a_run_object_and_facets_object_can_be_signed(
    bad: dict, private_key: Ed25519PrivateKey
) -> None:
    with pytest.raises(ValueError, match="run"):
        sign_event(bad, private_key)


def test_check_event_reports_each_status(
    event: dict, private_key: Ed25519PrivateKey, other_key: Ed25519PrivateKey
) -> None:
    public = private_key.public_key()
    keys = {key_id(public): public}
    signed = sign_event(event, private_key)
    assert check_event(signed, keys=keys).status is VerificationStatus.VERIFIED
    assert check_event(signed, keys=keys).key_id == key_id(public)
    assert check_event(event, keys=keys).status is VerificationStatus.UNSIGNED
    foreign = check_event(sign_event(event, other_key), keys=keys)
    assert foreign.status is VerificationStatus.UNKNOWN_KEY
    assert foreign.key_id == key_id(other_key.public_key())
    signed["eventType"] = "FAIL"
    altered = check_event(signed, keys=keys)
    assert (altered.status, altered.problem) == (VerificationStatus.INVALID_SIGNATURE, SignatureProblem.MISMATCH)
    signed["run"]["facets"][SIGNATURE_FACET]["algorithm"] = "RS256"
    malformed = check_event(signed, keys=keys)
    assert (malformed.status, malformed.problem) == (VerificationStatus.INVALID_SIGNATURE, SignatureProblem.MALFORMED)
    assert "RS256" in malformed.detail
