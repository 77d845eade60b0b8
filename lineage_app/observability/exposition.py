"""What a scrape answers: this process's (or, multi-process, every sibling's) metrics, plus event-log gauges."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

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


@dataclass(frozen=True, kw_only=True)
class EventLogGauges:
    """What a scrape reports of the event log, read at scrape time (`ingest.selectors.event_log_gauges`)."""

    by_status: Mapping[str, int]
    oldest_pending: datetime | None
    by_verification: Mapping[str, int]
    # Applied events whose run no worker has settled yet (`fold_pending`), and the last graph check.
    fold_pending: int = 0
    graph_check: GraphCheckGauges | None = None
    ledger: LedgerGauges | None = None
    log: LogGauges | None = None
    witness: WitnessGauges | None = None


@dataclass(frozen=True, kw_only=True)
class LedgerGauges:
    """What the ledger adds up to across streams (`ledger.selectors.ledger_gauges`, docs/ledger.md)."""

    open_gaps: int
    forks: int
    truncated_streams: int


@dataclass(frozen=True, kw_only=True)
class LogGauges:
    """The transparency log's size, latest checkpoint and newest check's findings (`ledger.proofs.log_gauges`)."""

    size: int
    checkpoint_size: int
    checkpoint_at: datetime | None
    mismatches: int


@dataclass(frozen=True, kw_only=True)
class WitnessGauges:
    """Checkpoints no witness has vouched for yet, and open witness alarms (`ledger.checkpoint_history`)."""

    unwitnessed_checkpoints: int
    alarms: int


@dataclass(frozen=True, kw_only=True)
class GraphCheckGauges:
    """The newest sampled check of the graph against the event log (`ingest.consistency.runs_check`)."""

    checked_at: datetime
    runs_checked: int
    runs_differing: int


class EventLogCollector(Collector):
    """Gauges of the event log, read when scraped, so they are right whichever process answers. The
    reading is passed in: this package sits below every app (they all count into it)."""

    def __init__(self, read: Callable[[], EventLogGauges]) -> None:
        self._read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        gauges = self._read()
        stored = GaugeMetricFamily("tributary_events_stored", "Events in the event log, by status.", labels=["status"])
        for status in ("pending", "applied", "failed", "quarantined"):
            stored.add_metric([status], gauges.by_status.get(status, 0))
        yield stored
        yield GaugeMetricFamily(
            "tributary_events_backlog",
            "Events stored but not yet applied (pending).",
            value=gauges.by_status.get("pending", 0),
        )
        oldest = gauges.oldest_pending
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
        for status, count in gauges.by_verification.items():
            verification.add_metric([status or "unchecked"], count)
        yield verification
        yield GaugeMetricFamily(
            "tributary_events_fold_pending",
            "Applied events whose run's node a worker has not yet re-folded with them (the sweeper settles them).",
            value=gauges.fold_pending,
        )
        ledger = gauges.ledger
        if ledger is not None:
            yield GaugeMetricFamily(
                "tributary_ledger_open_gaps",
                "Missing seq ranges below a stream's highest arrived event, across producers' streams (want 0).",
                value=ledger.open_gaps,
            )
            yield GaugeMetricFamily(
                "tributary_ledger_forks",
                "Seqs of producers' streams with two different events (want 0).",
                value=ledger.forks,
            )
            yield GaugeMetricFamily(
                "tributary_ledger_truncated_streams",
                "Streams whose newest heartbeat announces more than arrived (want 0).",
                value=ledger.truncated_streams,
            )
        if gauges.log is not None:
            yield from _log_gauges(gauges.log)
        if gauges.witness is not None:
            yield GaugeMetricFamily(
                "tributary_ledger_unwitnessed_checkpoints",
                "Checkpoints signed after the newest one a registered witness cosigned (all, if none was).",
                value=gauges.witness.unwitnessed_checkpoints,
            )
            yield GaugeMetricFamily(
                "tributary_ledger_witness_alarms",
                "Open alarms: a witness refused a checkpoint as a rollback, a fork or an unproven history (want 0).",
                value=gauges.witness.alarms,
            )
        check = gauges.graph_check
        if check is not None:
            yield GaugeMetricFamily(
                "tributary_graph_check_runs_checked",
                "Runs compared with their events' fold by the last graph check.",
                value=check.runs_checked,
            )
            yield GaugeMetricFamily(
                "tributary_graph_check_runs_differing",
                "Runs whose node differed from the fold of their logged events at the last graph check (want 0).",
                value=check.runs_differing,
            )
            yield GaugeMetricFamily(
                "tributary_graph_check_timestamp_seconds",
                "When the last graph check ran (Unix time).",
                value=check.checked_at.timestamp(),
            )


def _log_gauges(log: LogGauges) -> Iterator[GaugeMetricFamily]:
    yield GaugeMetricFamily(
        "tributary_ledger_log_size", "Leaves in the transparency log (accepted events).", value=log.size
    )
    yield GaugeMetricFamily(
        "tributary_ledger_checkpoint_size", "Tree size of the latest signed checkpoint.", value=log.checkpoint_size
    )
    yield GaugeMetricFamily(
        "tributary_ledger_checkpoint_age_seconds",
        "Seconds since the latest checkpoint was signed (-1: none yet); it grows while nothing is accepted.",
        value=(timezone.now() - log.checkpoint_at).total_seconds() if log.checkpoint_at else -1.0,
    )
    yield GaugeMetricFamily(
        "tributary_ledger_log_mismatches",
        "Leaves whose event the newest check found missing from the event log or changed (want 0).",
        value=log.mismatches,
    )


class OutboxCollector(Collector):
    """The notification outbox's deliveries by state (`notify.selectors.outbox_gauges`), read when scraped."""

    def __init__(self, read: Callable[[], Mapping[str, int]]) -> None:
        self._read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        deliveries = GaugeMetricFamily(
            "tributary_notify_deliveries",
            "Notification deliveries in the outbox, by state (dead: dead-lettered after NOTIFY_MAX_ATTEMPTS tries).",
            labels=["state"],
        )
        for state, count in self._read().items():
            deliveries.add_metric([state], count)
        yield deliveries


def metrics_exposition(
    *,
    event_log: Callable[[], EventLogGauges] | None = None,
    outbox: Callable[[], Mapping[str, int]] | None = None,
) -> bytes:
    """The Prometheus text of this server's processes, with the event-log gauges `event_log` reads and
    the outbox's `outbox` reads."""
    registries = [process_registry()]
    collectors: list[Collector] = []
    if event_log is not None:
        collectors.append(EventLogCollector(event_log))
    if outbox is not None:
        collectors.append(OutboxCollector(outbox))
    if collectors:
        gauges = CollectorRegistry(auto_describe=False)
        for collector in collectors:
            gauges.register(collector)
        registries.append(gauges)
    return b"".join(generate_latest(registry) for registry in registries)
