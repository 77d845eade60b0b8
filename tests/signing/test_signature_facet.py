"""The `tributary_signature` facet: key ids, malformed facets, and its JSON Schema."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

import lineage_protocol
from lineage_protocol import (
    SCHEMA_URL,
    SIGNATURE_FACET,
    Signature,
    SignatureFormatError,
    canonical_bytes,
    key_id,
    load_private_key,
    load_public_key,
    private_key_pem,
    public_key_pem,
    read_signature,
    sign_event,
    verify_event,
)

OPENLINEAGE_SPEC = Path(__file__).resolve().parents[2] / "lineage_app/ingest/openlineage_spec/OpenLineage.json"
FACET_SCHEMA = Path(lineage_protocol.__file__).parent / "schemas" / "TributarySignatureRunFacet.json"


def test_key_id_is_a_truncated_sha256_of_the_raw_public_key(private_key: Ed25519PrivateKey) -> None:
    raw = private_key.public_key().public_bytes_raw()
    assert len(raw) == 32
    expected = "ed25519:" + hashlib.sha256(raw).hexdigest()[:32]
    assert key_id(private_key.public_key()) == expected


# RFC 8032 section 7.1, TEST 1: a published key pair, so key ids and signatures can be pinned.
RFC8032_TEST1 = Ed25519PrivateKey.from_private_bytes(
    bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
)


def test_key_id_of_the_rfc8032_test_key_1() -> None:
    key = RFC8032_TEST1.public_key()
    assert key.public_bytes_raw().hex() == ("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    # SHA-256 of that key is 21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9.
    assert key_id(key) == "ed25519:21fe31dfa154a261626bf854046fd227"


def test_a_known_event_signed_with_a_known_key_gives_the_documented_signature() -> None:
    # The example of docs/signing.md; Ed25519 is deterministic, so this pins the whole format.
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2025-03-14T09:26:53.589Z",
        "producer": "https://github.com/tributary/tributary/tree/0.1.0/spark_agent",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "0195a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"},
        "job": {"namespace": "spark://etl", "name": "daily_orders.enrich"},
        "inputs": [{"namespace": "s3://lake", "name": "raw/orders"}],
        "outputs": [{"namespace": "s3://lake", "name": "curated/orders_enriched"}],
    }
    signed = sign_event(event, RFC8032_TEST1)
    assert canonical_bytes(signed) == (
        b'{"eventTime":"2025-03-14T09:26:53.589Z","eventType":"COMPLETE",'
        b'"inputs":[{"name":"raw/orders","namespace":"s3://lake"}],'
        b'"job":{"name":"daily_orders.enrich","namespace":"spark://etl"},'
        b'"outputs":[{"name":"curated/orders_enriched","namespace":"s3://lake"}],'
        b'"producer":"https://github.com/tributary/tributary/tree/0.1.0/spark_agent",'
        b'"run":{"facets":{},"runId":"0195a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"},'
        b'"schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}'
    )
    assert signed["run"]["facets"][SIGNATURE_FACET] == {
        "_producer": "https://github.com/tributary/tributary/tree/0.1.0/spark_agent",
        "_schemaURL": SCHEMA_URL,
        "algorithm": "Ed25519",
        "keyId": "ed25519:21fe31dfa154a261626bf854046fd227",
        "signature": ("pr4aDx272PFxH77hXpdzNu39wN2fJDTGqKnEoSYvxXRX1J6C4flTi0Wp51H8eAUzvBnaH7N1QYbYQU1YtXcCAA"),
    }


def test_read_signature_returns_the_decoded_signature(event: dict, private_key: Ed25519PrivateKey) -> None:
    signed = sign_event(event, private_key)
    signature = read_signature(signed)
    assert isinstance(signature, Signature)
    assert signature.algorithm == "Ed25519"
    assert signature.key_id == key_id(private_key.public_key())
    assert len(signature.signature) == 64
    encoded = signed["run"]["facets"][SIGNATURE_FACET]["signature"]
    assert base64.urlsafe_b64encode(signature.signature).rstrip(b"=").decode() == encoded


def _flip_last_bits(value: str) -> str:
    # The last of 86 characters carries 2 bits; setting a padding bit decodes to the same bytes.
    return value[:-1] + ("B" if value[-1] == "A" else chr(ord(value[-1]) + 1))


MALFORMATIONS: dict[str, Any] = {
    "not an object": lambda f: "signed",
    "algorithm missing": lambda f: {k: v for k, v in f.items() if k != "algorithm"},
    "keyId missing": lambda f: {k: v for k, v in f.items() if k != "keyId"},
    "signature missing": lambda f: {k: v for k, v in f.items() if k != "signature"},
    "_producer missing": lambda f: {k: v for k, v in f.items() if k != "_producer"},
    "_schemaURL missing": lambda f: {k: v for k, v in f.items() if k != "_schemaURL"},
    "algorithm wrong": lambda f: {**f, "algorithm": "ES256"},
    "algorithm lowercase": lambda f: {**f, "algorithm": "ed25519"},
    "algorithm not a string": lambda f: {**f, "algorithm": None},
    "keyId without prefix": lambda f: {**f, "keyId": f["keyId"][len("ed25519:") :]},
    "keyId uppercase": lambda f: {**f, "keyId": f["keyId"].upper().replace("ED25519", "ed25519")},
    "keyId too short": lambda f: {**f, "keyId": f["keyId"][:-2]},
    "signature not a string": lambda f: {**f, "signature": 12},
    "signature padded": lambda f: {**f, "signature": f["signature"] + "=="},
    "signature standard alphabet": lambda f: {**f, "signature": "+/" + f["signature"][2:]},
    "signature with a stray character": lambda f: {**f, "signature": f["signature"] + "!"},
    "signature with whitespace": lambda f: {
        **f,
        "signature": f["signature"][:40] + " " + f["signature"][40:],
    },
    "signature truncated": lambda f: {**f, "signature": f["signature"][:-3]},
    "signature too long": lambda f: {**f, "signature": f["signature"] + "AAAA"},
    "signature impossible length": lambda f: {**f, "signature": f["signature"][:-1]},
    "signature non-canonical trailing bits": lambda f: {
        **f,
        "signature": _flip_last_bits(f["signature"]),
    },
}


@pytest.mark.parametrize("malformation", sorted(MALFORMATIONS))
def test_a_malformed_facet_is_rejected_clearly(malformation: str, event: dict, private_key: Ed25519PrivateKey) -> None:
    signed = sign_event(event, private_key)
    facets = signed["run"]["facets"]
    facets[SIGNATURE_FACET] = MALFORMATIONS[malformation](facets[SIGNATURE_FACET])
    with pytest.raises(SignatureFormatError) as raised:
        read_signature(signed)
    assert str(raised.value)
    assert not verify_event(signed, private_key.public_key())


def test_unknown_extra_fields_in_the_facet_are_allowed(event: dict, private_key: Ed25519PrivateKey) -> None:
    signed = sign_event(event, private_key)
    signed["run"]["facets"][SIGNATURE_FACET]["note"] = "ok"
    assert read_signature(signed) is not None


@pytest.mark.parametrize("event", [{}, {"run": None}, {"run": {"runId": "r"}}, {"run": {"facets": "x"}}])
def test_events_without_a_facets_object_have_no_signature(event: dict) -> None:
    assert read_signature(event) is None


def test_keys_round_trip_through_pem(tmp_path: Path, private_key: Ed25519PrivateKey) -> None:
    key_file = tmp_path / "agent.key"
    key_file.write_text(private_key_pem(private_key))
    assert load_private_key(key_file).private_bytes_raw() == private_key.private_bytes_raw()
    assert load_private_key(str(key_file)).private_bytes_raw() == private_key.private_bytes_raw()
    pem = public_key_pem(private_key.public_key())
    assert pem.startswith("-----BEGIN PUBLIC KEY-----")
    pub_file = tmp_path / "agent.pub.pem"
    pub_file.write_text(pem)
    raw = private_key.public_key().public_bytes_raw()
    for source in (pem, pem.encode(), pub_file, str(pub_file)):
        assert load_public_key(source).public_bytes_raw() == raw


def test_loading_a_non_ed25519_key_fails_clearly(tmp_path: Path) -> None:
    other = ec.generate_private_key(ec.SECP256R1())
    key_file = tmp_path / "ec.key"
    key_file.write_bytes(
        other.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(ValueError, match="not an Ed25519 private key"):
        load_private_key(key_file)
    public = other.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(ValueError, match="not an Ed25519 public key"):
        load_public_key(public)


@pytest.fixture(scope="module")
def openlineage_schema() -> dict[str, Any]:
    return json.loads(OPENLINEAGE_SPEC.read_text())


@pytest.fixture(scope="module")
def facet_schema() -> dict[str, Any]:
    return json.loads(FACET_SCHEMA.read_text())


def test_the_facet_schema_is_a_valid_draft_2020_12_schema_at_the_facet_url(
    facet_schema: dict[str, Any],
) -> None:
    Draft202012Validator.check_schema(facet_schema)
    assert facet_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert facet_schema["$id"] == SCHEMA_URL
    assert SCHEMA_URL.endswith("/TributarySignatureRunFacet.json")


def test_a_signed_event_is_still_a_valid_openlineage_2_0_2_event(
    event: dict,
    private_key: Ed25519PrivateKey,
    openlineage_schema: dict[str, Any],
    facet_schema: dict[str, Any],
) -> None:
    signed = json.loads(json.dumps(sign_event(event, private_key)))
    Draft202012Validator(openlineage_schema).validate(signed)
    registry = Registry().with_resources(
        [
            (openlineage_schema["$id"], Resource.from_contents(openlineage_schema)),
            (facet_schema["$id"], Resource.from_contents(facet_schema)),
        ]
    )
    Draft202012Validator(facet_schema, registry=registry).validate(signed["run"]["facets"])


def test_the_facet_schema_rejects_what_read_signature_rejects(
    event: dict, private_key: Ed25519PrivateKey, openlineage_schema: dict, facet_schema: dict
) -> None:
    registry = Registry().with_resources(
        [
            (openlineage_schema["$id"], Resource.from_contents(openlineage_schema)),
            (facet_schema["$id"], Resource.from_contents(facet_schema)),
        ]
    )
    validator = Draft202012Validator(facet_schema, registry=registry)
    facet = sign_event(event, private_key)["run"]["facets"][SIGNATURE_FACET]
    for malformation in sorted(MALFORMATIONS):
        broken = {SIGNATURE_FACET: MALFORMATIONS[malformation](facet)}
        assert not validator.is_valid(broken), malformation
