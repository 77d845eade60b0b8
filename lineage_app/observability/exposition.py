"""What a scrape answers: this process's (or, multi-process, every sibling's) metrics, plus event-log gauges."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from django.apps import apps
from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def metrics_dir() -> Path | None:
    """The directory processes of one server share their metrics through, if this process has one."""
    value = os.environ.get(MULTIPROC_DIR_VARIABLE)
    return Path(value) if value else None


def metrics_dir_clear(*, directory: Path) -> None:
    """Forget the values of processes that ran before this server started (a restarted container keeps its files)."""
    for stale in directory.glob("*.db"):
        stale.unlink()


def process_registry() -> CollectorRegistry:
    """The metrics counted by this server's processes: added up from the shared directory, or this process's own."""
    directory = metrics_dir()
    if directory is None:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(directory))
    return registry


class EventLogCollector(Collector):
    """Gauges read from the event log at scrape time, so they are right whichever process answers.

    The observability package sits below every app (they all count into it), so it finds the event
    log through the app registry instead of importing `ingest`.
    """

    def collect(self) -> Iterator[GaugeMetricFamily]:
        events = apps.get_model("ingest", "LineageEvent").objects
        stored = GaugeMetricFamily("tributary_events_stored", "Events in the event log, by status.", labels=["status"])
        by_status = dict(events.order_by().values_list("status").annotate(n=Count("id")))
        for status in ("pending", "applied", "failed", "quarantined"):
            stored.add_metric([status], by_status.get(status, 0))
        yield stored
        yield GaugeMetricFamily(
            "tributary_events_backlog",
            "Events stored but not yet applied (pending).",
            value=by_status.get("pending", 0),
        )
        oldest = events.filter(status="pending").aggregate(oldest=Min("received_at"))["oldest"]
        yield GaugeMetricFamily(
            "tributary_events_oldest_pending_age_seconds",
            "Age of the oldest pending event (since it was received); 0 when none waits.",
            value=(timezone.now() - oldest).total_seconds() if oldest else 0.0,
        )
        verification = GaugeMetricFamily(
            "tributary_events_verification",
            "Events in the event log, by signature verification status (`unchecked`: not verified yet).",
            labels=["status"],
        )
        for status, count in events.order_by().values_list("verification").annotate(n=Count("id")):
            verification.add_metric([status or "unchecked"], count)
        yield verification


_event_log = CollectorRegistry(auto_describe=False)
_event_log.register(EventLogCollector())


def metrics_exposition(*, event_log: bool) -> bytes:
    """The Prometheus text of this server's processes, with the event-log gauges when `event_log`."""
    registries = [process_registry(), *([_event_log] if event_log else [])]
    return b"".join(generate_latest(registry) for registry in registries)
