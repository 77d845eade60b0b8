"""Plan the read API's statements after the graph engine starts: a few reads of each kind the API answers most, from
nodes picked in the graph, through the selectors the API calls (so the engine plans and compiles the very statement
texts the API sends, parameters and all). Neo4j plans a statement the first time it sees its text and compiles it
once it has run a few times; after a restart both are gone (docs/scale.md)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from lineage_app.explorer.selectors.datasets import dataset_detail
from lineage_app.explorer.selectors.jobs_and_runs import job_detail, job_run_list
from lineage_app.explorer.selectors.lineage import column_lineage_for_node, lineage_for_node
from lineage_app.explorer.selectors.quality import dataset_quality
from lineage_app.explorer.selectors.search import SEARCH_TYPES, node_search
from lineage_app.graph.model import Label
from lineage_app.graph.node_ids import node_ref_id
from lineage_app.graph.warmup import warm_starts, warm_starts_light
from lineage_app.reports.exports import export_bytes
from lineage_app.reports.selectors import impact_report

logger = logging.getLogger(__name__)

# Each read runs this many times (a round runs each once, from the round's start): Neo4j compiles a statement's
# expressions once it has run it about ten times, so the API's first reads after the warm-up find them compiled.
WARM_ROUNDS = 12
WARM_BUDGET = 120.0  # seconds after which no further round starts
LINEAGE_DEPTHS = (2, 5, 10)  # the lineage page's default depth (2) and deeper ones
COLUMN_DEPTHS = (2, 10)
# Impact answers have no node budget: from a dataset near the sources, depth 10 (the impact page's default) reaches
# most of the graph (35,103 assets of the 100k synthetic graph; a first read of 25 s after a restart). Depth 3 runs
# the same statements (the walk's two-hop and one-hop reads, the details, owners and quality of what it reached), and
# it starts from datasets with few consumers (`warm_starts_light`), not from the hubs the other reads may start from.
IMPACT_DEPTH = 3
SEARCH_LIMIT = 20  # the search box's page
PAGE = 50  # a listing's page (the API's default `limit`)
BOTH = "both"


@dataclass
class ReadWarm:
    """One kind of read the warm-up ran: how many times, how many failed (and the first failure), the first and the
    last one's milliseconds (the first pays for planning), and the seconds of all; or why it was skipped."""

    name: str
    reads: int = 0
    failed: int = 0
    error: str | None = None
    first_ms: float | None = None
    last_ms: float | None = None
    seconds: float = 0.0
    skipped: str | None = None

    def line(self) -> str:
        if self.skipped:
            return f"{self.name}: skipped, {self.skipped}"
        text = f"{self.name}: {self.reads} reads in {self.seconds:.1f}s"
        if self.first_ms is not None and self.last_ms is not None:
            text += f", first {self.first_ms:.0f} ms, last {self.last_ms:.0f} ms"
        if self.failed:
            text += f"; {self.failed} failed ({self.error})"
        return text


@dataclass
class ReadsWarm:
    """What `graph_reads_warm` did: each kind of read, the rounds it completed, and whether its budget stopped it."""

    reads: list[ReadWarm] = field(default_factory=list)
    rounds: int = 0
    out_of_budget: bool = False
    seconds: float = 0.0


Read = Callable[[int], Any]  # one read, from the round's start


def _reads(*, rounds: int) -> list[tuple[str, Read | None, str]]:
    """Each kind of read: its name, the read (None: nothing in the graph to start it from), and why not."""
    datasets = warm_starts(label=Label.DATASET, n=rounds)
    light_datasets = warm_starts_light(n=rounds)  # impact has no node budget: never from the graph's hubs
    jobs = warm_starts(label=Label.JOB, n=rounds)
    fields = warm_starts(label=Label.FIELD, n=rounds)
    types = list(SEARCH_TYPES)
    max_depth = settings.LINEAGE_MAX_DEPTH

    def dataset_id(n: int) -> str:
        return node_ref_id((Label.DATASET, datasets[n % len(datasets)][0]))

    def job_id(n: int) -> str:
        return node_ref_id((Label.JOB, jobs[n % len(jobs)][0]))

    def field_id(n: int) -> str:
        return node_ref_id((Label.FIELD, fields[n % len(fields)][0]))

    def name(n: int) -> str:
        return str(datasets[n % len(datasets)][1])

    def lineage(depth: int) -> Read:
        return lambda n: lineage_for_node(node_id=dataset_id(n), depth=min(depth, max_depth), direction=BOTH)

    def column(depth: int) -> Read:
        return lambda n: column_lineage_for_node(node_id=field_id(n), depth=min(depth, max_depth), direction=BOTH)

    def impact(n: int) -> int:
        start = node_ref_id((Label.DATASET, light_datasets[n % len(light_datasets)][0]))
        report = impact_report(node_ids=[start], depth=min(IMPACT_DEPTH, max_depth))
        return sum(len(piece) for piece in export_bytes(report, "json"))  # streamed: its reads run as it is read

    def dataset_page(n: int) -> None:
        dataset_detail(node_id=dataset_id(n))
        dataset_quality(node_id=dataset_id(n), limit=PAGE, offset=0)

    def job_page(n: int) -> None:
        job_detail(node_id=job_id(n))
        job_run_list(node_id=job_id(n), limit=PAGE, offset=0)

    no_dataset = "no dataset in the graph that a job writes and another reads"
    reads: list[tuple[str, Read | None, str]] = [
        *((f"lineage depth {depth}", lineage(depth) if datasets else None, no_dataset) for depth in LINEAGE_DEPTHS),
        (
            "lineage of a job, depth 2",
            (lambda n: lineage_for_node(node_id=job_id(n), depth=2, direction=BOTH)) if jobs else None,
            "no job in the graph that reads and writes",
        ),
        *(
            (f"column lineage depth {depth}", column(depth) if fields else None, "no field derived from another")
            for depth in COLUMN_DEPTHS
        ),
        (f"impact depth {IMPACT_DEPTH}", impact if datasets else None, no_dataset),
        # A dataset's whole name runs every tier (exact, prefix, substring: it fills no page), its first half the
        # prefix tier up to a full page, a piece of its middle the substring tier.
        (
            "search, a whole name",
            (lambda n: node_search(q=name(n), types=types, limit=SEARCH_LIMIT)) if datasets else None,
            no_dataset,
        ),
        (
            "search, a name's start",
            (lambda n: node_search(q=name(n)[: max(len(name(n)) // 2, 1)], types=types, limit=SEARCH_LIMIT))
            if datasets
            else None,
            no_dataset,
        ),
        (
            "search, a piece of a name",
            (lambda n: node_search(q=name(n)[1:-1] or name(n), types=types, limit=SEARCH_LIMIT)) if datasets else None,
            no_dataset,
        ),
        ("dataset page", dataset_page if datasets else None, no_dataset),
        ("job page", job_page if jobs else None, "no job in the graph that reads and writes"),
    ]
    return reads


def graph_reads_warm(
    *, rounds: int = WARM_ROUNDS, budget: float = WARM_BUDGET, clock: Callable[[], float] = time.monotonic
) -> ReadsWarm:
    """Run each kind of read `rounds` times, a round at a time (each kind once a round, so that a budget that stops
    it early has warmed every kind), starting no round after `budget` seconds but the first. Never raises for a read
    that fails: it is counted, its first error kept; a round in which every read failed (the engine is gone) ends
    the warm-up. Picking the starts (`warm_starts`) raises if the engine does not answer."""
    began = clock()
    done = ReadsWarm()
    reads = _reads(rounds=rounds)
    for name, read, why in reads:
        done.reads.append(ReadWarm(name=name, skipped=None if read else why))
    for n in range(rounds):
        if n and clock() - began >= budget:
            done.out_of_budget = True
            break
        failed = 0
        for warm, (_, read, _) in zip(done.reads, reads, strict=True):
            if read is None:
                continue
            started = clock()
            try:
                read(n)
            except Exception as exc:  # a warm-up never fails its caller: the failure is counted and reported
                failed += 1
                warm.failed += 1
                warm.error = warm.error or f"{type(exc).__name__}: {exc}"
            ms = (clock() - started) * 1000
            warm.reads += 1
            warm.seconds += ms / 1000
            warm.first_ms = ms if warm.first_ms is None else warm.first_ms
            warm.last_ms = ms
        done.rounds = n + 1
        if failed and failed == sum(read is not None for _, read, _ in reads):
            logger.warning("read warm-up stopped: every read of round %d failed", n + 1)
            break
    done.seconds = clock() - began
    return done
