"""Run ids: UUIDv7 (time-ordered, as OpenLineage recommends)."""

from __future__ import annotations

import secrets
import time
import uuid


def new_run_id() -> str:
    """A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, version 7, variant, 74 random bits."""
    millis = time.time_ns() // 1_000_000
    value = (millis & (2**48 - 1)) << 80 | secrets.randbits(80)
    value = (value & ~(0xF << 76)) | (0x7 << 76)  # version
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    return str(uuid.UUID(int=value))
