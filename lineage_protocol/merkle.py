"""The transparency log's Merkle tree (RFC 9162 section 2.1): hashing, roots of ranges, and checking proofs.

Everything here is what a verifier needs with no server: the leaf and node hashes, the Merkle Tree
Hash (MTH) of a list of leaf hashes, the aligned complete subtrees a range splits into, and the
verification algorithms of RFC 9162 sections 2.1.3.2 (inclusion) and 2.1.4.2 (consistency). A proof
that does not verify, or is malformed, raises `ProofError` and nothing else.

A Tributary leaf is the acceptance record of one event (`leaf_data`): the event's content hash and the
instant the server committed it, so a proof shows both that the event is in the log and when it was
accepted.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime

HASH_SIZE = 32
LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
# MTH({}) = SHA-256() (RFC 9162 section 2.1.1).
EMPTY_ROOT = hashlib.sha256(b"").digest()
LEAF_VERSION = b"tributary-leaf/v1"
# A proof has at most one hash per level of a tree of 2^64 leaves (two more for a consistency proof).
MAX_PROOF_HASHES = 66
_CONTENT_HASH_RE = re.compile(r"[0-9a-f]{64}")


class ProofError(ValueError):
    """A proof, root or leaf that is malformed or does not verify."""


def leaf_hash(data: bytes) -> bytes:
    """SHA-256(0x00 || data)."""
    return hashlib.sha256(LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right)."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def accepted_text(accepted_at: datetime) -> str:
    """The acceptance instant as a leaf spells it: UTC, microseconds, `Z` (`2026-11-28T01:02:03.000004Z`)."""
    if accepted_at.tzinfo is None:
        raise ValueError("the acceptance instant must be timezone-aware")
    return accepted_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _leaves_data(content_hashes: Sequence[str], accepted_at: datetime) -> list[bytes]:
    accepted = accepted_text(accepted_at).encode("ascii")
    for content_hash in content_hashes:
        if not _CONTENT_HASH_RE.fullmatch(content_hash):
            raise ValueError(f"content hash must be 64 lowercase hex digits (got {content_hash!r})")
    return [b"\n".join([LEAF_VERSION, h.encode("ascii"), accepted, b""]) for h in content_hashes]


def leaf_data(*, content_hash: str, accepted_at: datetime) -> bytes:
    """The bytes one log leaf hashes: `tributary-leaf/v1 LF <content hash> LF <accepted at> LF` (ASCII)."""
    return _leaves_data([content_hash], accepted_at)[0]


def event_leaf_hash(*, content_hash: str, accepted_at: datetime) -> bytes:
    """The leaf hash of an event's acceptance record."""
    return leaf_hash(leaf_data(content_hash=content_hash, accepted_at=accepted_at))


def event_leaf_hashes(*, content_hashes: Sequence[str], accepted_at: datetime) -> list[bytes]:
    """The leaf hashes of events accepted together (one commit): the instant is formatted once."""
    return [leaf_hash(data) for data in _leaves_data(content_hashes, accepted_at)]


def split_point(size: int) -> int:
    """k, the largest power of two smaller than `size` (> 1): where RFC 9162 splits a tree of `size` leaves."""
    return 1 << ((size - 1).bit_length() - 1)


def subtrees(start: int, end: int) -> list[tuple[int, int]]:
    """The complete subtrees `(level, index)` that range [start, end) of a tree splits into, left to right.

    A subtree at `level` holds leaves [index * 2^level, (index + 1) * 2^level). For every range a proof
    names (the right part of a split), the sizes only shrink left to right, so the range's MTH is the
    fold of these roots from the right (`fold_right`)."""
    found = []
    while start < end:
        level = (start & -start).bit_length() - 1 if start else (end - start).bit_length() - 1
        while start + (1 << level) > end:
            level -= 1
        found.append((level, start >> level))
        start += 1 << level
    return found


def fold_right(roots: Sequence[bytes]) -> bytes:
    """The MTH of a range from the roots of its complete subtrees, largest first (`subtrees`)."""
    if not roots:
        return EMPTY_ROOT
    value = roots[-1]
    for root in reversed(roots[:-1]):
        value = node_hash(root, value)
    return value


def root_of(leaves: Sequence[bytes]) -> bytes:
    """MTH of `leaves` (leaf hashes), bottom up: a level's odd last node moves up unchanged, which
    builds exactly RFC 9162's left-heavy split at the largest power of two."""
    if not leaves:
        return EMPTY_ROOT
    level = list(leaves)
    while len(level) > 1:
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def hash_from_text(value: object, what: str = "hash") -> bytes:
    """A hash as the log's API writes it (standard base64 of 32 bytes); `ProofError` if it is anything else."""
    if not isinstance(value, str) or len(value) != 44:
        raise ProofError(f"{what} must be the base64 of {HASH_SIZE} bytes")
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ProofError(f"{what} must be the base64 of {HASH_SIZE} bytes") from None
    if len(decoded) != HASH_SIZE or base64.b64encode(decoded).decode("ascii") != value:
        raise ProofError(f"{what} must be the base64 of {HASH_SIZE} bytes")
    return decoded


def hashes_from_text(values: object, what: str = "proof") -> list[bytes]:
    """A proof's hashes as the log's API writes them (a list of base64 strings)."""
    if not isinstance(values, list) or len(values) > MAX_PROOF_HASHES:
        raise ProofError(f"{what} must be a list of at most {MAX_PROOF_HASHES} base64 hashes")
    return [hash_from_text(value, f"each hash of {what}") for value in values]


def _checked(value: object, what: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != HASH_SIZE:
        raise ProofError(f"{what} must be {HASH_SIZE} bytes")
    return value


def _checked_path(path: Sequence[bytes], what: str) -> list[bytes]:
    if not isinstance(path, list | tuple):
        raise ProofError(f"{what} must be a list of hashes")
    if len(path) > MAX_PROOF_HASHES:
        raise ProofError(f"{what} has {len(path)} hashes; no tree needs more than {MAX_PROOF_HASHES}")
    return [_checked(p, f"each hash of {what}") for p in path]


def _checked_size(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
        raise ProofError(f"{what} must be an integer from 0 to 2^64 - 1")
    return value


def _shift_until_odd(fn: int, sn: int) -> tuple[int, int]:
    while not fn & 1 and fn:
        fn, sn = fn >> 1, sn >> 1
    return fn, sn


def inclusion_root(*, index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> bytes:
    """The root that `path` proves leaf `index` (hash `leaf`) is in, in a tree of `size` leaves (RFC 9162 2.1.3.2)."""
    index, size = _checked_size(index, "leaf index"), _checked_size(size, "tree size")
    if index >= size:
        raise ProofError(f"leaf index {index} is not below tree size {size}")
    fn, sn, root = index, size - 1, _checked(leaf, "leaf hash")
    for p in _checked_path(path, "inclusion path"):
        if sn == 0:
            raise ProofError("inclusion path is longer than the tree is deep")
        if fn & 1 or fn == sn:
            root = node_hash(p, root)
            fn, sn = _shift_until_odd(fn, sn)
        else:
            root = node_hash(root, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("inclusion path is shorter than the tree is deep")
    return root


def verify_inclusion(*, index: int, size: int, leaf: bytes, path: Sequence[bytes], root: bytes) -> None:
    """Check that leaf `index` of a tree of `size` leaves with root `root` hashes to `leaf`; `ProofError` if not."""
    if inclusion_root(index=index, size=size, leaf=leaf, path=path) != _checked(root, "root hash"):
        raise ProofError(f"inclusion proof of leaf {index} does not lead to the root of tree size {size}")


def consistency_roots(*, first: int, second: int, first_root: bytes, path: Sequence[bytes]) -> tuple[bytes, bytes]:
    """The two roots a consistency proof between sizes 0 < first < second leads to (RFC 9162 2.1.4.2)."""
    proof = _checked_path(path, "consistency path")
    if not proof:
        raise ProofError("consistency path is empty")
    if first & (first - 1) == 0:  # a power of two: the first tree is a subtree the proof leaves out
        proof = [_checked(first_root, "first root"), *proof]
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            raise ProofError("consistency path is longer than the tree is deep")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            fn, sn = _shift_until_odd(fn, sn)
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("consistency path is shorter than the tree is deep")
    return fr, sr


def verify_consistency(
    *, first: int, second: int, first_root: bytes, second_root: bytes, path: Sequence[bytes]
) -> None:
    """Check that the tree of `second` leaves (root `second_root`) extends the one of `first` (root `first_root`)."""
    first, second = _checked_size(first, "first tree size"), _checked_size(second, "second tree size")
    first_root, second_root = _checked(first_root, "first root"), _checked(second_root, "second root")
    if first > second:
        raise ProofError(f"first tree size {first} is larger than second tree size {second}")
    if first == 0 or first == second:
        # Every tree extends the empty one, and a tree itself: the proof is empty (RFC 9162 2.1.4.1).
        if path:
            raise ProofError("a consistency proof from an empty or equal tree must be empty")
        if first == second and first_root != second_root:
            raise ProofError(f"two different roots for tree size {first}")
        if first == 0 and first_root != EMPTY_ROOT:
            raise ProofError("the root of the empty tree is SHA-256 of nothing")
        return
    fr, sr = consistency_roots(first=first, second=second, first_root=first_root, path=path)
    if fr != first_root:
        raise ProofError(f"consistency proof does not lead to the root of tree size {first}")
    if sr != second_root:
        raise ProofError(f"consistency proof does not lead to the root of tree size {second}")
