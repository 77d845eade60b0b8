"""The stored tree: appends in any batches give RFC 9162 roots; proofs from stored subtrees are PATH and PROOF."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_app.ledger.tree import (
    Frontier,
    consistency_ranges,
    frontier_append,
    inclusion_ranges,
    node_row,
    ranges_hashes,
    ranges_refs,
)
from lineage_protocol import HASH_SIZE, leaf_hash
from tests.protocol.merkle_reference import mth, path, proof


def _stored(data: list[bytes], batches: list[int]) -> tuple[Frontier, dict[tuple[int, int], bytes]]:
    """Append `data` in batches of the given sizes; every stored subtree root, read back as the store keeps it."""
    frontier, rows, at = Frontier(0, ()), {}, 0
    for size in [*batches, len(data)]:
        part = [leaf_hash(d) for d in data[at : at + size]]
        frontier, completes = frontier_append(Frontier.unpack(frontier.size, frontier.pack()), part)
        rows.update({at + i: (leaf, done) for i, (leaf, done) in enumerate(zip(part, completes, strict=True))})
        at += len(part)
        if at >= len(data):
            break
    nodes = {}
    for level in range(len(data).bit_length()):
        for index in range(len(data) >> level):
            leaf, done = rows[node_row((level, index))]
            nodes[(level, index)] = leaf if level == 0 else done[(level - 1) * HASH_SIZE : level * HASH_SIZE]
    return frontier, nodes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=4), min_size=1, max_size=80), st.lists(st.integers(1, 9), max_size=20))
def test_appending_in_any_batches_stores_every_subtree_root_and_the_root_of_rfc_9162(data, batches) -> None:  # type: ignore[no-untyped-def]
    frontier, nodes = _stored(data, batches)
    assert frontier.size == len(data)
    assert frontier.root() == mth(data)
    for (level, index), root in nodes.items():
        assert root == mth(data[index << level : (index + 1) << level])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=4), min_size=1, max_size=80), st.data())
def test_proofs_from_stored_subtrees_are_exactly_rfc_9162_path_and_proof(data, draw) -> None:  # type: ignore[no-untyped-def]
    _, nodes = _stored(data, [])
    n = len(data)
    m = draw.draw(st.integers(0, n - 1))
    ranges = inclusion_ranges(m, n)
    assert ranges_refs(ranges) <= set(nodes)
    assert ranges_hashes(ranges, nodes) == path(m, data)
    first = draw.draw(st.integers(1, n))
    if first < n:
        ranges = consistency_ranges(first, n)
        assert ranges_hashes(ranges, nodes) == proof(first, data)


def test_a_proof_in_a_million_leaf_tree_reads_a_few_dozen_stored_roots() -> None:
    size = 1_000_000
    assert max(len(ranges_refs(inclusion_ranges(m, size))) for m in (0, 1, 524_287, 999_999)) <= 40
    assert len(ranges_refs(consistency_ranges(333_333, size))) <= 60
