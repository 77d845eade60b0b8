"""Rate limits as text: the `limits` notation (`12000/minute`, `200 per second`), or `unlimited`."""

from __future__ import annotations

from functools import lru_cache

import limits

UNLIMITED = "unlimited"


@lru_cache(maxsize=256)
def rate_limit_parse(text: str) -> limits.RateLimitItem | None:
    """The limit `text` names, or None for `unlimited`; `ValueError` for anything else, a rate below 1 included."""
    text = text.strip()
    if text == UNLIMITED:
        return None
    try:
        item = limits.parse(text)
    except ValueError:
        item = None
    if item is None or item.amount < 1:
        raise ValueError(f"expected a rate such as 12000/minute or 200/second, or {UNLIMITED} (got {text!r})")
    return item
