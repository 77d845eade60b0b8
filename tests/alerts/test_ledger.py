"""The ledger's gaps and forks as `verification` incidents: a gap still open past its grace, or a fork at once,
names the stream, its producer and the seqs; each is named once; the missing events arriving resolve it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from lineage_app.alerts.models import Incident, IncidentEvent, Rule
from lineage_app.alerts.overdue import ledger_check
from lineage_app.ingest.models import LineageEvent
from lineage_app.ledger.selectors import ledger_problems
from lineage_protocol import StreamChain
from tests.alerts.scenario import routed
from tests.apply import accept_and_apply
from tests.events import facet
from tests.ledger.chains import KEY, PRODUCER, contents, register

pytestmark = pytest.mark.django_db

INSTANCE = "spark:local-1:alerts"


def owned(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`events` with their jobs owned by team:ingest (a job `ownership` facet)."""
    for event in events:
        event["job"]["facets"]["ownership"] = facet(owners=[{"name": "team:ingest", "type": "MAINTAINER"}])
    return events


def signed(n: int, *, tag: str = "") -> tuple[StreamChain, list[dict[str, Any]]]:
    chain = StreamChain(KEY, INSTANCE)
    return chain, [chain.sign(event) for event in owned(contents(n, tag=tag))]


@pytest.fixture(autouse=True)
def registered() -> None:
    register()


def stream_name() -> str:
    event = LineageEvent.objects.exclude(verification="").order_by("id")[0]
    return str(event.payload["run"]["facets"]["tributary_signature"]["stream"])


def test_a_gap_open_past_its_grace_opens_one_incident_naming_it_and_filling_it_resolves_it(graph: Any) -> None:
    _, events = signed(6)
    accept_and_apply(*events[:2], *events[4:])  # seqs 3 and 4 withheld
    hook = routed("team:ingest")["team:ingest"]
    now = timezone.now()
    assert ledger_check(now=now) == 0, "within its grace: events of a chain may arrive out of order"
    assert not Incident.objects.exists()

    assert ledger_check(now=now + timedelta(minutes=31)) == 1
    assert ledger_check(now=now + timedelta(minutes=36)) == 0, "a gap is named once"
    incident = Incident.objects.get()
    assert (incident.kind, incident.root) == (Rule.Kind.VERIFICATION, f"stream:{stream_name()}")
    assert incident.title == f"Ledger gap in {PRODUCER}'s signed stream: seqs 3 to 4 missing"
    assert f"of producer {PRODUCER}" in incident.cause and incident.classification == "ledger_gap"
    assert incident.occurrences == 1
    # The jobs of the events on either side of the gap (seq 2: job_1, seq 5: job_4) are whose lineage it concerns.
    assert incident.blast_radius["jobs"] == ["job:spark:job_1", "job:spark:job_4"]
    assert incident.owners == ["team:ingest"] and hook.deliveries.count() == 1
    links = dict(hook.deliveries.get().message["links"])
    assert links["Trust"].endswith("/trust") and "Impact" not in links, "a stream is no node: its page is Trust"

    accept_and_apply(*events[2:4])
    assert ledger_check(now=now + timedelta(minutes=41)) == 0
    incident.refresh_from_db()
    assert incident.state == Incident.State.RESOLVED and "missing events arrived" in incident.resolved_by
    assert hook.deliveries.count() == 2, "its owners hear it is resolved"


def test_a_fork_opens_an_incident_at_once_and_a_later_gap_of_the_same_stream_adds_to_it(graph: Any) -> None:
    _, events = signed(3)
    other = StreamChain(KEY, INSTANCE)  # the same stream signing another history
    forged = [other.sign(event) for event in owned(contents(2, tag="other"))]
    accept_and_apply(*events, forged[1])
    now = timezone.now()
    assert ledger_check(now=now) == 2, "seq 2 holds two events, and the forged one names another seq 1"
    incident = Incident.objects.get()
    assert incident.classification == "ledger_fork"
    repeated = incident.timeline.filter(kind=IncidentEvent.Kind.REPEATED).values_list("text", flat=True)
    named = [incident.cause, *repeated]
    assert sorted(text.split(" in stream")[0] for text in named) == [
        "seq 1 forked: two different signed events claim it",
        "seq 2 forked: two different signed events claim it",
    ]
    assert f"of producer {PRODUCER}" in incident.cause

    later = StreamChain(KEY, INSTANCE)
    later_events = [later.sign(e) for e in owned(contents(6, tag="later"))]
    accept_and_apply(later_events[5])  # seqs 4 and 5 never came
    assert ledger_check(now=now + timedelta(minutes=31)) == 1
    incident.refresh_from_db()
    assert Incident.objects.count() == 1 and incident.occurrences == 3
    assert incident.timeline.filter(text__startswith="seqs 4 to 5 missing").exists()
    assert ledger_check(now=now + timedelta(minutes=40)) == 0
    incident.refresh_from_db()
    assert incident.state == Incident.State.OPEN, "a fork never heals: it is resolved by hand"


def test_the_rule_switched_off_or_scoped_to_another_namespace_opens_nothing(graph: Any) -> None:
    _, events = signed(3)
    accept_and_apply(events[0], events[2])
    later = timezone.now() + timedelta(hours=1)
    Rule.objects.create(kind=Rule.Kind.VERIFICATION, enabled=False)
    assert ledger_check(now=later) == 0
    Rule.objects.filter(kind=Rule.Kind.VERIFICATION).update(enabled=True, namespaces=["elsewhere"])
    assert ledger_check(now=later) == 0
    assert not Incident.objects.exists()
    Rule.objects.filter(kind=Rule.Kind.VERIFICATION).update(namespaces=["spark"])
    assert ledger_check(now=later) == 1


def test_problems_out_of_the_rule_s_scope_cost_the_check_no_query_each(graph: Any) -> None:
    _, events = signed(7)
    Rule.objects.create(kind=Rule.Kind.VERIFICATION, namespaces=["elsewhere"])
    later = timezone.now() + timedelta(hours=1)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert ledger_check(now=later) == 0
        return len(captured)

    accept_and_apply(events[0], events[2])  # seq 2 missing
    one = queries()
    accept_and_apply(events[4], events[6])  # seqs 4 and 6 too
    assert queries() == one, "never named (out of scope), so read again each check: in one query for all"


def test_the_problems_the_check_reads_are_the_newest_so_old_ones_never_named_cannot_hide_new_ones(graph: Any) -> None:
    # Gaps out of the rule's scope are never named and never close: read oldest first, a thousand of them
    # would hide every later gap of any stream from the check for good.
    _, events = signed(5)
    accept_and_apply(events[0], events[2])  # seq 2 missing
    accept_and_apply(events[4])  # then seq 4
    listed = ledger_problems(gaps_noticed_before=timezone.now() + timedelta(hours=1), limit=1)
    assert [(p.kind, p.first) for p in listed] == [("gap", 4)]
