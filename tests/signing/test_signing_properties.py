"""Property-based: sign -> verify round-trips for any JSON payload; any single change breaks it."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lineage_protocol import SIGNATURE_FACET, sign_event, verify_event

MAX_SAFE_INTEGER = 2**53 - 1

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-MAX_SAFE_INTEGER, max_value=MAX_SAFE_INTEGER)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=24,
)
objects = st.dictionaries(st.text(max_size=6), values, max_size=4)


@st.composite
def run_events(draw: st.DrawFn) -> dict[str, Any]:
    """An OpenLineage-shaped run event with arbitrary facets and arbitrary extra fields."""
    facet_names = st.text(max_size=10).filter(lambda name: name != SIGNATURE_FACET)
    run: dict[str, Any] = {"runId": draw(st.uuids()).hex}
    if draw(st.booleans()):
        run["facets"] = draw(st.dictionaries(facet_names, objects, max_size=3))
    event: dict[str, Any] = draw(objects)
    event.update(
        eventType=draw(st.sampled_from(["START", "RUNNING", "COMPLETE", "FAIL", "ABORT"])),
        eventTime=draw(st.datetimes()).isoformat() + "Z",
        run=run,
        job={"namespace": draw(st.text(max_size=10)), "name": draw(st.text(max_size=20))},
        inputs=draw(st.lists(objects, max_size=3)),
        outputs=draw(st.lists(objects, max_size=3)),
    )
    return event


def spellings(event: dict[str, Any]) -> Iterator[str]:
    """Ways a JSON tool may serialise the same event."""
    yield json.dumps(event)
    yield json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    yield json.dumps(event, sort_keys=True, indent=2)


def slots(node: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key-or-index) pair in `node`, depth first."""
    for key, value in node.items() if isinstance(node, dict) else enumerate(node):
        yield node, key
        if isinstance(value, dict | list):
            yield from slots(value)


def signed_slots(event: dict[str, Any]) -> list[tuple[Any, Any]]:
    """The slots the signature covers: all but the signature facet and what is inside it."""
    facets = event["run"]["facets"]
    facet = facets[SIGNATURE_FACET]
    return [
        (container, key)
        for container, key in slots(event)
        if container is not facet and (container is not facets or key != SIGNATURE_FACET)
    ]


@settings(deadline=None, max_examples=150)
@given(event=run_events())
def test_any_signed_event_verifies_however_it_is_serialised(
    event: dict[str, Any], private_key: Ed25519PrivateKey
) -> None:
    signed = sign_event(event, private_key)
    assert verify_event(signed, private_key.public_key())
    for line in spellings(signed):
        assert verify_event(json.loads(line), private_key.public_key())


@settings(deadline=None, max_examples=150)
@given(event=run_events(), data=st.data())
def test_changing_any_single_value_breaks_verification(
    event: dict[str, Any], data: st.DataObject, private_key: Ed25519PrivateKey
) -> None:
    received = json.loads(json.dumps(sign_event(event, private_key)))
    tampered = copy.deepcopy(received)
    scalars = [
        (container, key) for container, key in signed_slots(tampered) if not isinstance(container[key], dict | list)
    ]
    container, key = data.draw(st.sampled_from(scalars))
    replacement = data.draw(leaves)
    assume(rfc8785.dumps(replacement) != rfc8785.dumps(container[key]))
    container[key] = replacement
    assert not verify_event(tampered, private_key.public_key())


@settings(deadline=None, max_examples=150)
@given(event=run_events(), data=st.data())
def test_renaming_any_single_key_breaks_verification(
    event: dict[str, Any], data: st.DataObject, private_key: Ed25519PrivateKey
) -> None:
    received = json.loads(json.dumps(sign_event(event, private_key)))
    members = [(obj, key) for obj, key in signed_slots(received) if isinstance(obj, dict)]
    obj, old = data.draw(st.sampled_from(members))
    new = data.draw(st.text(max_size=6).filter(lambda name: name not in obj))
    obj[new] = obj.pop(old)
    assert not verify_event(received, private_key.public_key())
