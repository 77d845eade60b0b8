"""Instants as text: fixed-width UTC ISO 8601 with microseconds, as the graph stores them and the API writes them."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_text(moment: datetime) -> str:
    """Fixed-width UTC text, so string order is time order in both graph engines."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
