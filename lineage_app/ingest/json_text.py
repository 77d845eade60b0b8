"""Cheap, C-speed looks at JSON text: how deep it nests."""

from __future__ import annotations

from itertools import accumulate

# Bytes, not text: in UTF-8 every byte of a multi-byte character is 0x80 or above, so `"`, `\`
# and the brackets are found byte by byte, and `bytes.translate` / `bytes.replace` run at C speed.
_ALL_BUT_QUOTES_AND_BRACKETS = bytes(sorted(set(range(256)) - set(b'"[]{}')))
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # read as signed bytes: +1 opens a level, -1 closes one
_CHUNK = 16_384  # steps summed between two looks at `limit`: a hostile body stops after one chunk


def nesting_depth_bound(text: bytes, *, limit: int | None = None) -> int:
    """How deep JSON `text` (UTF-8) nests: exactly its depth when it is JSON, and for any text never
    less than a parser reading it descends to before it fails. Brackets inside strings do not count.

    Linear time on any input: a few C-speed passes keep only the brackets outside strings, then a
    running sum gives the depth. With `limit`, the sum stops soon after it passes `limit`, and the
    answer is then some depth above `limit`.
    """
    if b"\\" in text:
        # Escape pairs go first, as a parser pairs them (left to right): then every `"` left opens or
        # closes a string. Outside strings a `\` is an error where any parser stops, so how these
        # replacements read the rest cannot lower the depth a parser reached before it.
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = text.translate(None, _ALL_BUT_QUOTES_AND_BRACKETS)
    # `""` is an empty string, or a string's end next to the next one's start: dropping either keeps
    # every bracket inside or outside strings as it was, and leaves quotes only around brackets.
    kept = kept.replace(b'""', b"")
    if b'"' in kept:
        kept = b"".join(kept.split(b'"')[::2])  # an unterminated string runs to the end, as for a parser
    # A close followed by an open (siblings, `},{`) dips one level and climbs back: dropping it
    # changes no running sum outside it, so the deepest stays; in most JSON it leaves few steps.
    steps = memoryview(kept.translate(_STEP).replace(b"\xff\x01", b"")).cast("b")
    depth = deepest = 0
    for start in range(0, len(steps), _CHUNK):
        chunk = steps[start : start + _CHUNK]
        deepest = max(deepest, max(accumulate(chunk, initial=depth)))
        if limit is not None and deepest > limit:
            break
        depth += sum(chunk)
    return deepest
