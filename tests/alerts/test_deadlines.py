"""Missed deadlines: a job with a regular cadence learned from its completions is late once due plus a grace;
one on time is not, nor is one that runs irregularly; completing again resolves it. A declared deadline (daily
by a time, or every so often) overrides the learned cadence."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, timezone

import pytest
from django.test import override_settings

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


def test_a_completion_within_yesterday_s_grace_does_not_count_for_today() -> None:
    # Due by 06:00 with 15 minutes' grace; it usually completes at 06:05, within the grace.
    grace, by_six = timedelta(minutes=15), time(6, 0)
    yesterday = datetime(2026, 1, 5, 6, 5, tzinfo=UTC)
    now = datetime(2026, 1, 6, 6, 20, tzinfo=UTC)  # today's run never came
    missed = declared_missed(
        now=now,
        last=yesterday,
        declared_at=datetime(2026, 1, 1, tzinfo=UTC),
        expected_by=by_six,
        every=None,
        grace=grace,
    )
    assert missed == datetime(2026, 1, 6, 6, 0, tzinfo=UTC), "yesterday's run is yesterday's, not today's"


def test_a_daily_deadline_that_passed_before_it_was_declared_is_not_missed() -> None:
    declared_at = datetime(2026, 1, 6, 10, 0, tzinfo=UTC)  # declared after that day's 06:00
    kwargs = {"last": None, "declared_at": declared_at, "expected_by": time(6, 0), "every": None, "grace": timedelta(0)}
    assert declared_missed(now=datetime(2026, 1, 6, 10, 5, tzinfo=UTC), **kwargs) is None  # type: ignore[arg-type]
    tomorrow = datetime(2026, 1, 7, 6, 0, tzinfo=UTC)
    assert declared_missed(now=tomorrow + timedelta(minutes=5), **kwargs) == tomorrow  # type: ignore[arg-type]


def test_a_daily_deadline_is_a_utc_time_whatever_the_zone_of_now() -> None:
    # 20:00 in New York on 5 January is 01:00 UTC on the 6th: the 00:30 UTC deadline just passed is the 6th's.
    new_york = timezone(timedelta(hours=-5))
    now = datetime(2026, 1, 5, 20, 0, tzinfo=new_york)
    last = datetime(2026, 1, 5, 0, 20, tzinfo=UTC)  # completed for the 5th's deadline, not yet for the 6th's
    missed = declared_missed(
        now=now,
        last=last,
        declared_at=datetime(2026, 1, 1, tzinfo=UTC),
        expected_by=time(0, 30),
        every=None,
        grace=timedelta(0),
    )
    assert missed == datetime(2026, 1, 6, 0, 30, tzinfo=UTC)


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
    Deadline.objects.update(created_at=T0 - timedelta(days=1))  # before the 06:30 it misses
    assert deadlines_check(now=last_end + timedelta(hours=3, minutes=10)) == 2, "a job never run is late too"
    assert Incident.objects.filter(root="job:shop:nightly_export", cause__contains="no completion on record").exists()


def test_a_job_on_time_again_by_its_deadline_resolves_its_incident_at_the_next_check(graph) -> None:  # type: ignore[no-untyped-def]
    # The incident would otherwise wait for the next completion: after a deadline was relaxed, or when the job
    # completed while the check that found it late was opening the incident (apply resolved nothing yet).
    runs_at(HOURLY)
    last_end = HOURLY[-1] + timedelta(minutes=2)
    Deadline.objects.create(job_namespace="shop", job_name="ingest_orders", every_minutes=60)
    Deadline.objects.update(created_at=T0 - timedelta(days=1))
    assert deadlines_check(now=last_end + timedelta(minutes=90)) == 1
    Deadline.objects.update(every_minutes=180)  # relaxed: the job is on time
    assert deadlines_check(now=last_end + timedelta(minutes=95)) == 0
    incident = Incident.objects.get()
    assert incident.state == Incident.State.RESOLVED and "on time" in incident.resolved_by


def test_a_job_whose_cadence_can_no_longer_be_learned_keeps_its_incident(graph) -> None:  # type: ignore[no-untyped-def]
    runs_at(HOURLY)
    last_end = HOURLY[-1] + timedelta(minutes=2)
    assert deadlines_check(now=last_end + timedelta(hours=2)) == 1
    with override_settings(ALERTS_CADENCE_DAYS=0.1):  # too few completions left to learn from: not on time
        assert deadlines_check(now=last_end + timedelta(hours=2, minutes=5)) == 0
    assert Incident.objects.get().state == Incident.State.OPEN
