"""Missed deadlines: a job with a regular cadence learned from its completions is late once due plus a grace;
one on time is not, nor is one that runs irregularly; completing again resolves it. A declared deadline (daily
by a time, or every so often) overrides the learned cadence."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from lineage_app.alerts.cadence import cadence_of, declared_missed
from lineage_app.alerts.models import Deadline, Incident, Rule
from lineage_app.alerts.overdue import deadlines_check
from tests.alerts.scenario import routed, run
from tests.apply import accept_and_apply
from tests.events import T0

pytestmark = pytest.mark.django_db

HOURLY = [T0 + timedelta(hours=h) for h in range(6)]  # runs start on the hour, complete two minutes later
IRREGULAR = [T0 + timedelta(minutes=m) for m in (0, 60, 240, 260, 400, 420)]


def runs_at(starts: list[datetime]) -> None:
    for start in starts:
        accept_and_apply(*run("ingest_orders", at=start))


def test_a_regular_job_is_late_only_after_its_cadence_and_grace() -> None:
    cadence = cadence_of([s + timedelta(minutes=2) for s in HOURLY])
    assert cadence is not None and cadence.every == timedelta(hours=1)
    assert cadence.due(grace_fraction=0.25) == HOURLY[-1] + timedelta(hours=1, minutes=17)
    assert cadence_of(IRREGULAR) is None, "an irregular job has no deadline"
    assert cadence_of(HOURLY[:4]) is None, "three intervals are too few to trust"


def test_a_late_job_opens_one_incident_and_completing_resolves_it(graph) -> None:  # type: ignore[no-untyped-def]
    runs_at(HOURLY)
    hooks = routed("team:ingest")
    last_end = HOURLY[-1] + timedelta(minutes=2)
    assert deadlines_check(now=last_end + timedelta(hours=1, minutes=10)) == 0, "on time: within the grace"
    assert not Incident.objects.exists()

    assert deadlines_check(now=last_end + timedelta(hours=1, minutes=20)) == 1
    assert deadlines_check(now=last_end + timedelta(hours=1, minutes=25)) == 1
    incident = Incident.objects.get()
    assert incident.kind == Rule.Kind.DEADLINE_MISSED and incident.root == "job:shop:ingest_orders"
    assert "runs every 1:00:00" in incident.cause
    assert incident.occurrences == 2, "checked again while late: the same incident"
    assert "team:ingest" in incident.owners
    assert hooks["team:ingest"].deliveries.count() == 1

    accept_and_apply(*run("ingest_orders", at=HOURLY[-1] + timedelta(hours=1, minutes=30)))
    incident.refresh_from_db()
    assert incident.state == Incident.State.RESOLVED


def test_an_irregular_job_is_never_late(graph) -> None:  # type: ignore[no-untyped-def]
    runs_at(IRREGULAR)
    assert deadlines_check(now=IRREGULAR[-1] + timedelta(days=2)) == 0
    assert not Incident.objects.exists()


def test_a_declared_daily_deadline_is_missed_only_once_its_time_passes_without_a_completion_since_the_last() -> None:
    by_nine = {"expected_by": time(9, 0), "every": None, "grace": timedelta(minutes=10)}
    last = datetime(2026, 1, 5, 8, 2, tzinfo=UTC)
    declared_at = datetime(2026, 1, 1, tzinfo=UTC)

    def missed(now: datetime, last: datetime | None = last) -> datetime | None:
        return declared_missed(now=now, last=last, declared_at=declared_at, **by_nine)  # type: ignore[arg-type]

    assert missed(datetime(2026, 1, 6, 9, 5, tzinfo=UTC)) is None, "within its grace"
    assert missed(datetime(2026, 1, 6, 9, 11, tzinfo=UTC)) == datetime(2026, 1, 6, 9, 0, tzinfo=UTC)
    assert missed(datetime(2026, 1, 5, 23, 0, tzinfo=UTC)) is None, "completed before the day's deadline"
    assert missed(datetime(2026, 1, 6, 9, 11, tzinfo=UTC), last=None) is not None, "never completed"


def test_a_declared_deadline_overrides_the_learned_cadence(graph) -> None:  # type: ignore[no-untyped-def]
    runs_at(HOURLY)  # learned: hourly, late 1 h 17 min after the last completion
    last_end = HOURLY[-1] + timedelta(minutes=2)
    Deadline.objects.create(job_namespace="shop", job_name="ingest_orders", every_minutes=180, grace_minutes=5)
    Deadline.objects.update(created_at=T0 - timedelta(days=1))  # declared before these runs
    assert deadlines_check(now=last_end + timedelta(hours=2)) == 0, "declared every 3 hours: on time"
    assert deadlines_check(now=last_end + timedelta(hours=3, minutes=6)) == 1
    incident = Incident.objects.get()
    assert incident.cause.startswith("declared deadline: expected every 180 min; last completed")

    Deadline.objects.all().delete()
    Deadline.objects.create(job_namespace="shop", job_name="nightly_export", expected_by=time(6, 30))
    assert deadlines_check(now=last_end + timedelta(hours=3, minutes=10)) == 2, "a job never run is late too"
    assert Incident.objects.filter(root="job:shop:nightly_export", cause__contains="no completion on record").exists()
