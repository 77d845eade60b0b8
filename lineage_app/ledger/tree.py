"""The log's tree as stored: what an append adds, and which stored subtree roots a proof is made of (pure).

Each leaf row keeps its leaf hash and the roots of the complete subtrees it completes: leaf i
completes the subtree at level l (2^l leaves) for every l with 2^l dividing i + 1, so the root of
subtree (level, index) lives in leaf row (index + 1) * 2^level - 1. A tree's frontier is the roots of
the complete subtrees covering [0, size), largest first: all an append needs, and the tree's root.
A proof is a list of ranges (RFC 9162's PATH and PROOF); each range is a few stored subtree roots
folded together, so a proof reads O(log n) rows wherever the leaf is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lineage_protocol import HASH_SIZE, fold_right, node_hash, split_point, subtrees

Range = tuple[int, int]
NodeRef = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Frontier:
    """A tree of `size` leaves as an append sees it: the roots of [0, size)'s complete subtrees, largest first."""

    size: int
    roots: tuple[bytes, ...]

    @classmethod
    def unpack(cls, size: int, packed: bytes) -> Frontier:
        roots = tuple(packed[i : i + HASH_SIZE] for i in range(0, len(packed), HASH_SIZE))
        if len(roots) != size.bit_count():
            raise ValueError(f"a frontier of tree size {size} has {size.bit_count()} roots, not {len(roots)}")
        return cls(size, roots)

    def pack(self) -> bytes:
        return b"".join(self.roots)

    def root(self) -> bytes:
        return fold_right(self.roots)


def frontier_append(frontier: Frontier, leaves: Sequence[bytes]) -> tuple[Frontier, list[bytes]]:
    """The frontier after appending `leaves` (leaf hashes), and for each leaf the roots it completes, packed
    from level 1 up."""
    levels = [size_bit for size_bit in range(frontier.size.bit_length() - 1, -1, -1) if frontier.size >> size_bit & 1]
    stack = list(zip(levels, frontier.roots, strict=True))
    completed: list[bytes] = []
    for leaf in leaves:
        level, node, done = 0, leaf, []
        while stack and stack[-1][0] == level:
            node = node_hash(stack.pop()[1], node)
            level += 1
            done.append(node)
        stack.append((level, node))
        completed.append(b"".join(done))
    return Frontier(frontier.size + len(leaves), tuple(node for _, node in stack)), completed


def node_row(ref: NodeRef) -> int:
    """The leaf row that stores subtree `ref` = (level, index)."""
    level, index = ref
    return ((index + 1) << level) - 1


def inclusion_ranges(index: int, size: int) -> list[Range]:
    """The ranges whose MTHs make leaf `index`'s audit path in a tree of `size` leaves, deepest first (PATH)."""
    start, end, path = 0, size, []
    while end - start > 1:
        k = split_point(end - start)
        if index < start + k:
            path.append((start + k, end))
            end = start + k
        else:
            path.append((start, start + k))
            start += k
    return path[::-1]


def consistency_ranges(first: int, second: int) -> list[Range]:
    """The ranges whose MTHs make the consistency proof from size `first` to `second` (0 < first < second),
    deepest first (RFC 9162 PROOF and SUBPROOF)."""
    start, end, m, whole, path = 0, second, first, True, []
    while m != end - start:
        k = split_point(end - start)
        if m <= k:
            path.append((start + k, end))
            end = start + k
        else:
            path.append((start, start + k))
            start, m, whole = start + k, m - k, False
    if not whole:
        path.append((start, end))
    return path[::-1]


def ranges_refs(ranges: Sequence[Range]) -> set[NodeRef]:
    """Every stored subtree the `ranges` are made of."""
    return {ref for start, end in ranges for ref in subtrees(start, end)}


def ranges_hashes(ranges: Sequence[Range], nodes: Mapping[NodeRef, bytes]) -> list[bytes]:
    """Each range's MTH from the stored subtree roots `nodes` (`ranges_refs` says which)."""
    return [fold_right([nodes[ref] for ref in subtrees(start, end)]) for start, end in ranges]
