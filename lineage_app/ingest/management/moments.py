"""How the event log's commands read a time option: ISO 8601 with a time zone, or a clear error."""

from __future__ import annotations

from datetime import datetime

from django.core.management.base import CommandError
from django.utils.dateparse import parse_datetime


def option_moment(option: str, text: str | None) -> datetime | None:
    """The aware datetime `--option` names (`None` when it was not given), or `CommandError` saying why not."""
    if text is None:
        return None
    moment = parse_datetime(text)
    if moment is None:
        raise CommandError(f"--{option}: not an ISO 8601 date-time: {text!r}")
    if moment.tzinfo is None:
        raise CommandError(f"--{option}: give a time zone (for example {text}Z or {text}+00:00)")
    return moment
