"""RFC 9162 hashing and proof checks: known vectors, every proof of random trees, and no forged proof accepted."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_protocol import (
    EMPTY_ROOT,
    ProofError,
    event_leaf_hash,
    hashes_from_text,
    leaf_data,
    leaf_hash,
    root_of,
    verify_consistency,
    verify_inclusion,
)
from tests.protocol.merkle_reference import CT_LEAVES, CT_ROOTS, leaf, mth, node, path, proof

entries = st.lists(st.binary(max_size=8), min_size=1, max_size=70)


def _flip(value: bytes, bit: int) -> bytes:
    changed = bytearray(value)
    changed[bit // 8 % len(value)] ^= 1 << (bit % 8)
    return bytes(changed)


def test_the_roots_of_certificate_transparencys_test_leaves_are_the_published_ones() -> None:
    for size, expected in enumerate(CT_ROOTS, start=1):
        assert root_of([leaf_hash(e) for e in CT_LEAVES[:size]]).hex() == expected
        assert mth(CT_LEAVES[:size]).hex() == expected


def test_the_empty_tree_and_the_empty_leaf_hash_as_rfc_6962_says() -> None:
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert leaf_hash(b"").hex() == "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
    assert root_of([]) == EMPTY_ROOT


def test_a_hand_built_audit_path_of_the_first_leaf_of_eight_verifies() -> None:
    l = [leaf(e) for e in CT_LEAVES]  # noqa: E741
    hand = [l[1], node(l[2], l[3]), node(node(l[4], l[5]), node(l[6], l[7]))]
    assert hand == path(0, CT_LEAVES)
    verify_inclusion(index=0, size=8, leaf=l[0], path=hand, root=bytes.fromhex(CT_ROOTS[7]))


def test_a_hand_built_consistency_proof_from_six_to_eight_leaves_verifies() -> None:
    l = [leaf(e) for e in CT_LEAVES]  # noqa: E741
    hand = [node(l[4], l[5]), node(l[6], l[7]), node(node(l[0], l[1]), node(l[2], l[3]))]
    assert hand == proof(6, CT_LEAVES)
    verify_consistency(
        first=6, second=8, first_root=bytes.fromhex(CT_ROOTS[5]), second_root=bytes.fromhex(CT_ROOTS[7]), path=hand
    )


def test_every_inclusion_and_consistency_proof_of_the_ct_test_trees_verifies() -> None:
    for n in range(1, 9):
        root = bytes.fromhex(CT_ROOTS[n - 1])
        for m in range(n):
            verify_inclusion(index=m, size=n, leaf=leaf(CT_LEAVES[m]), path=path(m, CT_LEAVES[:n]), root=root)
        for m in range(1, n + 1):
            verify_consistency(
                first=m,
                second=n,
                first_root=bytes.fromhex(CT_ROOTS[m - 1]),
                second_root=root,
                path=proof(m, CT_LEAVES[:n]),
            )


@settings(max_examples=60, deadline=None)
@given(entries)
def test_every_inclusion_proof_of_every_leaf_of_a_random_tree_verifies(data: list[bytes]) -> None:
    root = mth(data)
    assert root_of([leaf_hash(e) for e in data]) == root
    for m in range(len(data)):
        verify_inclusion(index=m, size=len(data), leaf=leaf(data[m]), path=path(m, data), root=root)


@settings(max_examples=60, deadline=None)
@given(entries, st.data())
def test_consistency_between_any_two_sizes_of_a_random_tree_verifies(data: list[bytes], draw: st.DataObject) -> None:
    second = draw.draw(st.integers(1, len(data)))
    first = draw.draw(st.integers(0, second))
    prefix = data[:second]
    verify_consistency(
        first=first,
        second=second,
        first_root=mth(prefix[:first]),
        second_root=mth(prefix),
        path=proof(first, prefix) if 0 < first < second else [],
    )


@settings(max_examples=100, deadline=None)
@given(entries, st.data())
def test_any_flipped_bit_in_an_inclusion_proof_its_root_or_its_leaf_fails(
    data: list[bytes], draw: st.DataObject
) -> None:
    m = draw.draw(st.integers(0, len(data) - 1))
    good = {"leaf": leaf(data[m]), "path": path(m, data), "root": mth(data)}
    target = draw.draw(st.sampled_from(["leaf", "root", "path"] if good["path"] else ["leaf", "root"]))
    bit = draw.draw(st.integers(0, 255))
    if target == "path":
        at = draw.draw(st.integers(0, len(good["path"]) - 1))
        good["path"] = [_flip(h, bit) if i == at else h for i, h in enumerate(good["path"])]
    else:
        good[target] = _flip(good[target], bit)
    with pytest.raises(ProofError):
        verify_inclusion(index=m, size=len(data), leaf=good["leaf"], path=good["path"], root=good["root"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=8), min_size=2, max_size=70), st.data())
def test_any_flipped_bit_in_a_consistency_proof_or_either_root_fails(data: list[bytes], draw: st.DataObject) -> None:
    second = draw.draw(st.integers(2, len(data)))
    first = draw.draw(st.integers(1, second - 1))
    parts = {"first": mth(data[:first]), "second": mth(data[:second]), "path": proof(first, data[:second])}
    target = draw.draw(st.sampled_from(["first", "second", "path"]))
    bit = draw.draw(st.integers(0, 255))
    if target == "path":
        at = draw.draw(st.integers(0, len(parts["path"]) - 1))
        parts["path"] = [_flip(h, bit) if i == at else h for i, h in enumerate(parts["path"])]
    else:
        parts[target] = _flip(parts[target], bit)
    with pytest.raises(ProofError):
        verify_consistency(
            first=first, second=second, first_root=parts["first"], second_root=parts["second"], path=parts["path"]
        )


def test_a_proof_for_another_index_or_size_fails() -> None:
    root = mth(CT_LEAVES)
    with pytest.raises(ProofError):
        verify_inclusion(index=1, size=8, leaf=leaf(CT_LEAVES[0]), path=path(0, CT_LEAVES), root=root)
    with pytest.raises(ProofError):
        verify_inclusion(index=0, size=4, leaf=leaf(CT_LEAVES[0]), path=path(0, CT_LEAVES), root=root)
    with pytest.raises(ProofError):
        verify_inclusion(index=8, size=8, leaf=leaf(CT_LEAVES[0]), path=[], root=root)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.integers(), st.booleans(), st.none(), st.text()),
    st.one_of(st.integers(), st.booleans(), st.none()),
    st.one_of(st.binary(max_size=40), st.text(max_size=5), st.none()),
    st.one_of(
        st.lists(st.one_of(st.binary(min_size=30, max_size=34), st.text(max_size=3)), max_size=70),
        st.integers(),
        st.none(),
    ),
    st.binary(min_size=31, max_size=33),
)
def test_a_malformed_inclusion_proof_is_rejected_with_proof_error_only(index, size, leaf_value, hashes, root) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ProofError):
        verify_inclusion(index=index, size=size, leaf=leaf_value, path=hashes, root=root)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=50), lambda c: st.lists(c, max_size=4))
)
def test_parsing_a_proofs_hashes_rejects_anything_but_base64_hashes_with_proof_error(value: object) -> None:
    try:
        parsed = hashes_from_text(value)
    except ProofError:
        return
    assert all(len(h) == 32 for h in parsed)
    assert [base64.b64encode(h).decode() for h in parsed] == value


def test_a_leaf_binds_the_content_hash_to_the_acceptance_instant_in_utc_microseconds() -> None:
    content = "ab" * 32
    accepted = datetime(2026, 11, 28, 1, 2, 3, 4, tzinfo=UTC)
    assert leaf_data(content_hash=content, accepted_at=accepted) == (
        b"tributary-leaf/v1\n" + content.encode() + b"\n2026-11-28T01:02:03.000004Z\n"
    )
    same_instant = accepted.astimezone(timezone(timedelta(hours=2)))
    assert event_leaf_hash(content_hash=content, accepted_at=same_instant) == leaf_hash(
        leaf_data(content_hash=content, accepted_at=accepted)
    )
    with pytest.raises(ValueError, match="64 lowercase hex"):
        leaf_data(content_hash="AB" * 32, accepted_at=accepted)
