"""Ledger reads: each stream's state (contiguous, gap, fork, truncated) with its ranges, unchained producers, gauges."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Max, Q

from lineage_app.instants import utc_text
from lineage_app.ledger.models import Fork, Gap, Link, Stream, Unchained
from lineage_app.observability.exposition import LedgerGauges
from lineage_protocol import stream_state

UNCHAINED = "unchained"
# What one answer lists of a stream's gaps and forks at most (the counts are always whole).
SHOWN = 100
# Gaps and forks `ledger_problems` reads at most, of each (the gauges should say 0 of both).
PROBLEMS_LISTED = 1000


def ledger_streams(*, producer: str | None, limit: int) -> dict[str, Any]:
    """Streams (of `producer`, or all), newest first, with their state, gaps, forks and truncation;
    and the producers whose events came unchained."""
    streams = Stream.objects.all()
    unchained = Unchained.objects.all()
    if producer:
        streams, unchained = streams.filter(producer=producer), unchained.filter(producer=producer)
    streams = streams.annotate(
        gap_count=Count("gaps", distinct=True), fork_count=Count("forks", distinct=True)
    ).order_by("producer", "-first_seen", "stream")
    count = streams.count()
    rows = list(streams[:limit])
    gaps = _gaps([s for s in rows if s.gap_count])
    forks = _forks([s for s in rows if s.fork_count])
    results = []
    for s in rows:
        state = stream_state(forks=s.fork_count, gaps=s.gap_count, high=s.high, announced=s.announced)
        first_gap = gaps[s.pk][0]["from"] if gaps[s.pk] else None
        results.append(
            {
                "producer": s.producer,
                "stream": s.stream,
                "keyId": s.key_id,
                "state": state,
                "high": s.high,
                "contiguousTo": first_gap - 1 if first_gap is not None else s.high,
                "gapCount": s.gap_count,
                "gaps": gaps[s.pk],
                "forkCount": s.fork_count,
                "forks": forks[s.pk],
                "truncated": (
                    {"from": s.high + 1, "to": s.announced, "announcedAt": _text(s.announced_at)}
                    if s.announced > s.high
                    else None
                ),
                "heartbeat": {"seq": s.announced, "at": _text(s.announced_at)} if s.announced_at else None,
                "follows": s.follows or None,
                "firstSeen": utc_text(s.first_seen),
                "lastSeen": utc_text(s.last_seen),
            }
        )
    return {
        "count": count,
        "results": results,
        "unchained": [
            {
                "producer": row["producer"],
                "state": UNCHAINED,
                "events": row["events"],
                "lastEventTime": utc_text(row["last"]),
            }
            for row in unchained.values("producer")
            .annotate(events=Count("id"), last=Max("event_time"))
            .order_by("producer")[:limit]
        ],
    }


def _gaps(streams: list[Stream]) -> dict[int, list[dict[str, Any]]]:
    """The first `SHOWN` gaps of each stream, each with when it was noticed and since when it is open
    (the eventTime of the last event before it, when that arrived)."""
    found: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for s in streams:
        for gap in Gap.objects.filter(stream=s).order_by("from_seq")[:SHOWN]:
            before = Link.objects.filter(stream=s, seq=gap.from_seq - 1).order_by("event_time").first()
            found[s.pk].append(
                {
                    "from": gap.from_seq,
                    "to": gap.to_seq,
                    "noticedAt": utc_text(gap.noticed_at),
                    "openSince": _text(before.event_time if before else None),
                }
            )
    return found


def _forks(streams: list[Stream]) -> dict[int, list[dict[str, Any]]]:
    """The first `SHOWN` forked seqs of each stream with the events there (the evidence, by content hash)."""
    found: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for s in streams:
        for fork in Fork.objects.filter(stream=s).order_by("seq")[:SHOWN]:
            events = list(Link.objects.filter(stream=s, seq=fork.seq).values_list("content_hash", flat=True))
            found[s.pk].append({"seq": fork.seq, "events": sorted(events), "noticedAt": utc_text(fork.noticed_at)})
    return found


@dataclass(frozen=True, kw_only=True)
class LedgerProblem:
    """An open gap (seqs `first`..`last` missing) or a forked seq (`first` == `last`) of a stream; `around` are
    the seqs whose events show it: those beside a gap, those at and after a forked seq (`ledger_evidence`)."""

    stream: str
    producer: str
    kind: str  # "gap" or "fork"
    first: int
    last: int
    noticed_at: datetime
    around: tuple[int, int]


def ledger_problems(*, gaps_noticed_before: datetime, limit: int = PROBLEMS_LISTED) -> list[LedgerProblem]:
    """Every fork, and the open gaps noticed before `gaps_noticed_before`, newest first, at most `limit` of each
    (newest, so that old ones a reader never clears, such as those out of an alert rule's scope, hide no new one)."""
    gaps = Gap.objects.filter(noticed_at__lte=gaps_noticed_before).select_related("stream")
    forks = Fork.objects.select_related("stream")
    return [
        *(
            _problem(g.stream, "gap", g.from_seq, g.to_seq, g.noticed_at, (g.from_seq - 1, g.to_seq + 1))
            for g in gaps.order_by("-noticed_at", "-id")[:limit]
        ),
        *(
            _problem(f.stream, "fork", f.seq, f.seq, f.noticed_at, (f.seq, f.seq + 1))
            for f in forks.order_by("-noticed_at", "-id")[:limit]
        ),
    ]


def _problem(
    stream: Stream, kind: str, first: int, last: int, noticed_at: datetime, around: tuple[int, int]
) -> LedgerProblem:
    return LedgerProblem(
        stream=stream.stream,
        producer=stream.producer,
        kind=kind,
        first=first,
        last=last,
        noticed_at=noticed_at,
        around=around,
    )


def ledger_evidence(*, problems: Sequence[LedgerProblem]) -> dict[LedgerProblem, list[str]]:
    """The content hashes of the events that show each of `problems` (those at its `around` seqs), in one query."""
    wanted = {(problem.stream, seq) for problem in problems for seq in problem.around}
    found: dict[tuple[str, int], list[str]] = defaultdict(list)
    if wanted:
        links = Link.objects.filter(stream__stream__in={s for s, _ in wanted}, seq__in={q for _, q in wanted})
        rows = links.order_by("seq", "content_hash").values_list("stream__stream", "seq", "content_hash")
        for stream, seq, content_hash in rows:
            found[(stream, seq)].append(content_hash)
    return {p: [h for seq in p.around for h in found.get((p.stream, seq), [])] for p in problems}


def streams_troubled(*, streams: list[str]) -> set[str]:
    """Those of `streams` with an open gap or a fork."""
    troubled = Stream.objects.filter(stream__in=streams).filter(Q(gaps__isnull=False) | Q(forks__isnull=False))
    return set(troubled.values_list("stream", flat=True).distinct())


def _text(moment: datetime | None) -> str | None:
    return utc_text(moment) if moment is not None else None


def ledger_gauges() -> LedgerGauges:
    """What `/metrics` reports: open gaps, forked seqs, streams whose heartbeat lies beyond what arrived."""
    return LedgerGauges(
        open_gaps=Gap.objects.count(),
        forks=Fork.objects.count(),
        truncated_streams=Stream.objects.filter(Q(announced__gt=F("high"))).count(),
    )
