"""A naive, recursive reading of RFC 9162 section 2.1 (MTH, PATH, PROOF), independent of the code under test."""

from __future__ import annotations

import hashlib


def leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(entries: list[bytes]) -> bytes:
    """MTH(D[n]) over the entries' data (not their hashes)."""
    n = len(entries)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return leaf(entries[0])
    k = _k(n)
    return node(mth(entries[:k]), mth(entries[k:]))


def path(m: int, entries: list[bytes]) -> list[bytes]:
    """PATH(m, D[n])."""
    n = len(entries)
    if n == 1:
        return []
    k = _k(n)
    if m < k:
        return [*path(m, entries[:k]), mth(entries[k:])]
    return [*path(m - k, entries[k:]), mth(entries[:k])]


def proof(m: int, entries: list[bytes]) -> list[bytes]:
    """PROOF(m, D[n]) = SUBPROOF(m, D[n], true)."""
    return _subproof(m, entries, True)


def _subproof(m: int, entries: list[bytes], whole: bool) -> list[bytes]:
    n = len(entries)
    if m == n:
        return [] if whole else [mth(entries)]
    k = _k(n)
    if m <= k:
        return [*_subproof(m, entries[:k], whole), mth(entries[k:])]
    return [*_subproof(m - k, entries[k:], False), mth(entries[:k])]


# Certificate Transparency's test leaves and the roots of their first 1..8 (as published with RFC 6962's
# reference implementation; `mth` above gives the same).
CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    bytes(range(0x50, 0x58)),
    bytes(range(0x60, 0x70)),
]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
