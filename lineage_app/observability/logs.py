"""Structured logs: the fields of the request (or task) being served, and a formatter writing one JSON line a record."""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any

# The fields of the request or task this thread is serving; every record logged meanwhile carries the
# identifying ones (`request_id`, `task_id`), and the closing line carries them all.
_context: ContextVar[dict[str, Any] | None] = ContextVar("tributary_log_context", default=None)
IDENTIFYING = ("request_id", "task_id")


def log_context_open(**fields: Any) -> Token[dict[str, Any] | None]:
    """Start the context of one request or task; pass the token to `log_context_close` when it ends."""
    return _context.set(dict(fields))


def log_context_close(token: Token[dict[str, Any] | None]) -> dict[str, Any]:
    """End a context; returns the fields gathered in it."""
    fields = _context.get() or {}
    _context.reset(token)
    return fields


def log_fields_add(**fields: Any) -> None:
    """Add fields (say, the event ids a request stored) to the closing line of the current request or task."""
    current = _context.get()
    if current is not None:
        current.update(fields)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, pid, message, the context's ids, the record's `fields`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,
            "message": record.getMessage(),
        }
        context = _context.get() or {}
        line.update({key: context[key] for key in IDENTIFYING if key in context})
        line.update(getattr(record, "fields", None) or {})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)
