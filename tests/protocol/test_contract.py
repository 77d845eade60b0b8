"""The protocol's contract: fixed events have fixed canonical bytes, content hashes and signatures.

These values are pinned on purpose. If one changes, events that producers already signed stop
verifying, or the server's event log stops recognising a re-posted event as a duplicate: a change
to `lineage_protocol` that breaks one of these is a protocol change, not a refactor.
"""

from __future__ import annotations

import configparser
import subprocess
import sys
from copy import deepcopy

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.urls import reverse

import lineage_protocol
from lineage_app.ingest.validation import event_check
from lineage_protocol import (
    BATCH_PATH,
    EVENT_PATH,
    SIGNATURE_FACET,
    SignatureProblem,
    VerificationStatus,
    canonical_bytes,
    canonical_json,
    check_event,
    content_hash,
    key_id,
    sign_event,
)
from tests.conftest import ROOT

# A deterministic key (Ed25519 signatures are deterministic: same key and bytes, same signature).
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
KEY_ID = "ed25519:56475aa75463474c0285df5dbf2bcab7"

# Non-ASCII text, a float RFC 8785 writes with an exponent, 2**53 - 1, keys out of order.
EVENT = {
    "eventType": "COMPLETE",
    "eventTime": "2026-11-23T10:00:00.000001+01:00",
    "producer": "https://example.com/p",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    "run": {"runId": "0195a3b4-0000-7000-8000-000000000001", "facets": {}},
    "job": {"namespace": "sales", "name": "daily \u2018orders\u2019 \u00e9"},
    "inputs": [{"namespace": "s3://raw", "name": "orders/2026", "facets": {"n": 1.5e21, "z": 0.1, "i": 2**53 - 1}}],
    "outputs": [],
}
CANONICAL = (
    b'{"eventTime":"2026-11-23T10:00:00.000001+01:00","eventType":"COMPLETE","inputs":[{"facets":'
    b'{"i":9007199254740991,"n":1.5e+21,"z":0.1},"name":"orders/2026","namespace":"s3://raw"}],'
    b'"job":{"name":"daily \xe2\x80\x98orders\xe2\x80\x99 \xc3\xa9","namespace":"sales"},"outputs":[],'
    b'"producer":"https://example.com/p","run":{"facets":{},"runId":"0195a3b4-0000-7000-8000-000000000001"},'
    b'"schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}'
)
CONTENT_HASH = "c3d7c1f81e1c5ead147c60455c1bc7b70ac3dcd7d2213f7dd4c9e2c93dd966e5"
SIGNATURE = "-DX1Vy_pAKB2D-AtKz1nOT1jwgTVLyPQDkSZ0FanxCOQVIv1pL4ieY8yn6xyltr0kU4EJylkAgURwDFB9KgVBA"


def test_the_canonical_bytes_of_a_fixed_event_are_pinned() -> None:
    assert canonical_json(EVENT) == CANONICAL


def test_the_content_hash_of_a_fixed_event_is_pinned() -> None:
    assert content_hash(canonical_json(EVENT)) == CONTENT_HASH


def test_the_server_deduplicates_on_the_protocols_content_hash() -> None:
    assert event_check(deepcopy(EVENT)).content_hash == CONTENT_HASH


def test_the_key_id_of_a_fixed_key_is_pinned() -> None:
    assert key_id(KEY.public_key()) == KEY_ID


def test_the_signature_of_a_fixed_event_is_pinned_and_covers_the_event_without_its_facet() -> None:
    signed = sign_event(deepcopy(EVENT), KEY)
    facet = signed["run"]["facets"][SIGNATURE_FACET]
    assert (facet["algorithm"], facet["keyId"], facet["signature"]) == ("Ed25519", KEY_ID, SIGNATURE)
    assert canonical_bytes(signed) == CANONICAL


def test_a_pinned_signature_verifies_and_the_server_hashes_the_signed_event_as_sent() -> None:
    signed = sign_event(deepcopy(EVENT), KEY)
    assert check_event(signed, keys={KEY_ID: KEY.public_key()}).status is VerificationStatus.VERIFIED
    # The log's key is over the whole event as sent, facet included: a re-signed event is a new event.
    assert event_check(signed).content_hash == content_hash(canonical_json(signed)) != CONTENT_HASH


def test_an_altered_event_is_an_invalid_signature_of_the_mismatch_kind() -> None:
    signed = sign_event(deepcopy(EVENT), KEY)
    signed["job"]["name"] = "other"
    result = check_event(signed, keys={KEY_ID: KEY.public_key()})
    assert (result.status, result.problem) == (VerificationStatus.INVALID_SIGNATURE, SignatureProblem.MISMATCH)


def test_the_status_vocabulary_is_the_one_the_server_stores() -> None:
    assert [s.value for s in VerificationStatus] == [
        "VERIFIED",
        "UNSIGNED",
        "INVALID_SIGNATURE",
        "UNKNOWN_KEY",
        "REVOKED_KEY",
        "RETIRED_KEY",
        "NAMESPACE_NOT_ALLOWED",
    ]


def test_the_paths_producers_post_to_are_the_servers_routes() -> None:
    assert (reverse("lineage"), reverse("lineage-ingest-batch")) == (EVENT_PATH, BATCH_PATH)


@pytest.mark.parametrize("name", lineage_protocol.__all__)
def test_every_public_name_is_importable_from_the_package(name: str) -> None:
    assert getattr(lineage_protocol, name) is not None


def test_the_protocol_needs_neither_django_nor_pyspark_nor_the_relay_or_the_agent() -> None:
    probe = (
        "import sys, lineage_protocol; "
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'django', 'pyspark', 'rest_framework', 'neo4j', 'lineage_app', 'lineage_relay', 'spark_agent'}); "
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_the_import_contracts_put_every_package_in_its_place_with_the_protocol_at_the_bottom() -> None:
    """`.importlinter`: the producers' packages in layers (the agent, the relay, the protocol: the protocol imports
    neither), the server forbidden every one of them but the protocol; a new top-level package must be placed."""
    contracts = configparser.ConfigParser()
    contracts.read(ROOT / ".importlinter")
    roots = set(contracts["importlinter"]["root_packages"].split())
    layers = contracts["importlinter:contract:producers-import-downwards"]["layers"].split()
    server = contracts["importlinter:contract:server-imports-only-the-protocol"]
    producers = contracts["importlinter:contract:producers-never-import-the-server"]
    assert layers == ["spark_agent", "lineage_relay", "lineage_protocol"]
    assert roots == {"lineage_app", *layers}
    assert (server["source_modules"].split(), set(server["forbidden_modules"].split())) == (
        ["lineage_app"],
        roots - {"lineage_app", "lineage_protocol"},
    )
    assert (set(producers["source_modules"].split()), producers["forbidden_modules"].split()) == (
        set(layers),
        ["lineage_app"],
    )


# Version 2 of the facet: a chain position, signed with the rest of the event (docs/ledger.md).
STREAM = f"{KEY_ID}/spark:app-20261123-0001"
CHAIN = lineage_protocol.ChainLink(STREAM, 2, CONTENT_HASH)
SIGNATURE_V2 = "LsiC7B1w3rFEUOe3-UdY_ejd3bhEOVhgMkUUwyQ6QIvWpqo5mb0JDwaGITVl4i4mR02s5tRwuNvko57zUszFDQ"
SIGNED_HASH_V2 = "a9d637f5c1bb52b79056536641fb83c03e675b0eec541288e9b12e21a37624aa"


def test_a_chained_signature_of_a_fixed_event_is_pinned_and_covers_its_chain_position() -> None:
    signed = sign_event(deepcopy(EVENT), KEY, chain=CHAIN)
    facet = signed["run"]["facets"][SIGNATURE_FACET]
    assert (facet["version"], facet["stream"], facet["seq"], facet["prev"]) == (2, STREAM, 2, CONTENT_HASH)
    assert facet["signature"] == SIGNATURE_V2
    assert lineage_protocol.signed_hash(signed) == SIGNED_HASH_V2
    assert check_event(signed, keys={KEY_ID: KEY.public_key()}).status is VerificationStatus.VERIFIED
    assert lineage_protocol.read_signature(signed).chain == CHAIN


@pytest.mark.parametrize(("member", "value"), [("seq", 3), ("prev", None), ("stream", f"{KEY_ID}/other")])
def test_a_chain_position_changed_after_signing_does_not_verify(member: str, value: object) -> None:
    signed = sign_event(deepcopy(EVENT), KEY, chain=CHAIN)
    signed["run"]["facets"][SIGNATURE_FACET][member] = value
    assert check_event(signed, keys={KEY_ID: KEY.public_key()}).status is VerificationStatus.INVALID_SIGNATURE


def test_the_version_1_form_still_verifies_and_a_version_1_signature_cannot_be_relabelled_version_2() -> None:
    signed = sign_event(deepcopy(EVENT), KEY)
    assert "version" not in signed["run"]["facets"][SIGNATURE_FACET]
    assert check_event(signed, keys={KEY_ID: KEY.public_key()}).status is VerificationStatus.VERIFIED
    relabelled = deepcopy(signed)
    relabelled["run"]["facets"][SIGNATURE_FACET].update(version=2, stream=STREAM, seq=1, prev=None)
    assert check_event(relabelled, keys={KEY_ID: KEY.public_key()}).status is VerificationStatus.INVALID_SIGNATURE
