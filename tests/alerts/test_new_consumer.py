"""New downstream consumers: a job reading a dataset for the first time tells the dataset's owners, once, when the
`new_consumer` rule is on (it is off by default)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from lineage_app.alerts.models import Incident, Rule
from lineage_app.notify.models import Delivery
from tests.alerts.scenario import NS, bronze, history, routed, run, silver
from tests.apply import accept_and_apply
from tests.events import T0, dataset, new_run_id, run_event

pytestmark = pytest.mark.django_db


def audit(*inputs: dict[str, Any], at: Any = T0) -> list[dict[str, Any]]:
    """A run of a new job, `shop/audit`, reading `inputs`."""
    run_id = new_run_id()
    out = [dataset(NS, "audit/report")]
    return [
        run_event(
            kind,
            run_id=run_id,
            job="audit",
            namespace="shop",
            at=at + timedelta(minutes=i),
            inputs=[*inputs],
            outputs=out,
        )
        for i, kind in enumerate(("START", "COMPLETE"))
    ]


def test_a_job_reading_datasets_for_the_first_time_tells_their_owners_once(graph: Any) -> None:
    accept_and_apply(*history())
    Rule.objects.create(kind=Rule.Kind.NEW_CONSUMER, enabled=True)
    hooks = routed("team:ingest", "team:data-quality", "team:finance-analytics")

    accept_and_apply(*audit(bronze(), silver()))
    incident = Incident.objects.get()
    assert (incident.kind, incident.root) == (Rule.Kind.NEW_CONSUMER, "job:shop:audit")
    assert incident.title == f"New consumer: shop/audit now reads {NS}/bronze/orders, {NS}/silver/orders"
    assert incident.state == Incident.State.RESOLVED, "news, nothing to fix"
    assert incident.owners == ["team:data-quality", "team:ingest"], "the producer side: the datasets' owners"
    messages = {d.destination_id: d.message for d in Delivery.objects.all()}
    assert set(messages) == {hooks["team:ingest"].pk, hooks["team:data-quality"].pk}
    quality = messages[hooks["team:data-quality"].pk]
    assert quality["sections"][0] == ["Yours (team:data-quality)", [f"dataset:{NS}:silver/orders"]]
    assert "job:shop:audit" in quality["event"]["blastRadius"]["jobs"]

    accept_and_apply(*audit(bronze(), silver(), at=T0 + timedelta(hours=1)))
    accept_and_apply(*run("validate_orders", at=T0 + timedelta(hours=2)))
    assert Incident.objects.count() == 1 and Delivery.objects.count() == 2, "reads it made before are not news"


def test_the_rule_is_off_by_default_and_a_read_of_what_nobody_owns_tells_nobody(graph: Any) -> None:
    accept_and_apply(*history())
    accept_and_apply(*audit(silver()))
    assert not Incident.objects.exists(), "off until an admin switches it on"

    Rule.objects.create(kind=Rule.Kind.NEW_CONSUMER, enabled=True)
    accept_and_apply(*audit(dataset(NS, "raw/unowned")))
    assert not Incident.objects.exists()
    Rule.objects.filter(kind=Rule.Kind.NEW_CONSUMER).update(namespaces=["elsewhere"])
    accept_and_apply(*audit(bronze()))
    assert not Incident.objects.exists(), "out of the rule's scope"


def test_apply_looks_for_new_consumers_only_while_the_rule_is_on(graph: Any) -> None:
    """Finding them costs apply a graph read of the batch's input links: not paid for a rule that is off."""
    from lineage_app.changes import NewConsumer, changes_wanted

    assert not changes_wanted(NewConsumer), "the rule is off by default"
    rule = Rule.objects.create(kind=Rule.Kind.NEW_CONSUMER, enabled=True)
    assert changes_wanted(NewConsumer)
    rule.enabled = False
    rule.save()
    accept_and_apply(*history())
    accept_and_apply(*audit(bronze()))
    assert not Incident.objects.filter(kind=Rule.Kind.NEW_CONSUMER).exists()
