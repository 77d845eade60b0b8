"""When a job is due (pure): the cadence learned from when its runs completed, regular enough to expect the next
one or not; and a declared deadline (daily by a time of day, or every so often)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from itertools import pairwise
from statistics import median

MIN_INTERVALS = 4  # completions needed before a cadence is trusted: five runs
TOLERANCE = 0.2  # every interval within this fraction of the median one, or the job is irregular
MIN_GRACE = timedelta(minutes=5)


@dataclass(frozen=True)
class Cadence:
    every: timedelta
    last: datetime

    def due(self, *, grace_fraction: float) -> datetime:
        """When the next completion is overdue: the last one, plus the cadence, plus a grace."""
        return self.last + self.every + max(self.every * grace_fraction, MIN_GRACE)


def cadence_of(completions: Sequence[datetime]) -> Cadence | None:
    """The cadence of the latest completions (oldest first), or None when there are too few or they are
    irregular: a job that runs when it likes must never be reported late."""
    ends = sorted(completions)[-(MIN_INTERVALS * 3 + 1) :]
    intervals = [b - a for a, b in pairwise(ends)]
    if len(intervals) < MIN_INTERVALS:
        return None
    typical = timedelta(seconds=median(i.total_seconds() for i in intervals))
    if typical <= timedelta(0) or any(abs(i - typical) > typical * TOLERANCE for i in intervals):
        return None
    return Cadence(every=typical, last=ends[-1])


DAY = timedelta(days=1)


def declared_missed(
    *,
    now: datetime,
    last: datetime | None,
    declared_at: datetime,
    expected_by: time | None,
    every: timedelta | None,
    grace: timedelta,
) -> datetime | None:
    """The declared deadline a job has missed at `now` (its last completion `last`), or None when on time.

    Daily (`expected_by`, UTC): the latest such time of day whose grace has passed, and which passed after the
    deadline was declared; met by a completion after the day before's grace ran out (one within that grace was
    the day before's). Every (`every`): due that long after its last completion, or after it was declared if it
    has none since."""
    if expected_by is not None:
        deadline = datetime.combine(now.astimezone(UTC).date(), expected_by, tzinfo=UTC)
        while deadline + grace > now:
            deadline -= DAY
        on_time = last is not None and last > deadline - DAY + grace
        return None if on_time or deadline <= declared_at else deadline
    if every is not None:
        deadline = max(filter(None, (last, declared_at))) + every
        return deadline if now > deadline + grace else None
    return None
