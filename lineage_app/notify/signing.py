"""The generic webhook's signature: HMAC-SHA256 over `<unix time>.<body>`, sent as
`X-Tributary-Signature: t=<unix time>,v1=<hex>` (docs/notifications.md has the receiver's recipe)."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-Tributary-Signature"
IDEMPOTENCY_HEADER = "Idempotency-Key"
DEFAULT_TOLERANCE_SECONDS = 300


def signature_header(*, secret: str, body: bytes, timestamp: int) -> str:
    digest = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def signature_valid(
    *,
    secret: str,
    header: str,
    body: bytes,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """Whether `header` signs `body` with `secret`, made within `tolerance_seconds` of `now` (replays fail)."""
    parts: dict[str, list[str]] = {}
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if sep:
            parts.setdefault(key, []).append(value)
    try:
        timestamp = int(parts["t"][0])
    except (KeyError, ValueError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance_seconds:
        return False
    expected = signature_header(secret=secret, body=body, timestamp=timestamp).partition(",v1=")[2]
    return any(hmac.compare_digest(expected, candidate) for candidate in parts.get("v1", []))
