"""Apply's change records become incidents: one per root cause, repeats folded in, routed to every owner once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from lineage_app.alerts.models import Incident, IncidentEvent, Rule
from lineage_app.alerts.services import incident_resolve
from lineage_app.notify.models import Delivery
from tests.alerts.scenario import BRONZE, NS, bronze, history, routed, run
from tests.apply import accept_and_apply
from tests.events import T0, dataset, facet, new_run_id, run_event

pytestmark = pytest.mark.django_db


def test_a_failure_upstream_and_its_downstream_failures_make_one_incident(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    hooks = routed("team:ingest", "team:data-quality", "team:finance-analytics")
    accept_and_apply(*run("ingest_orders", fail=True, at=T0))
    accept_and_apply(*run("validate_orders", fail=True, at=T0 + timedelta(minutes=5)))
    accept_and_apply(*run("revenue", fail=True, at=T0 + timedelta(minutes=10)))

    incident = Incident.objects.get()
    assert incident.kind == Rule.Kind.RUN_FAILED
    assert incident.root == "job:shop:ingest_orders"
    assert incident.classification == "permission"
    assert "PermissionError" in incident.cause
    assert incident.owners == ["team:data-quality", "team:finance-analytics", "team:ingest"]
    blast = incident.blast_radius
    assert "dataset:file:///lake:gold/revenue" in blast["datasets"]
    assert {"job:shop:validate_orders", "job:shop:revenue"} <= set(blast["jobs"])
    attached = incident.timeline.filter(kind=IncidentEvent.Kind.ATTACHED).values_list("text", flat=True)
    assert len(attached) == 2 and any("validate_orders" in text for text in attached)
    # One message per owner's destination, each listing what of theirs is affected, and no more for the attached.
    deliveries = {d.destination_id: d for d in Delivery.objects.all()}
    assert set(deliveries) == {hook.pk for hook in hooks.values()}
    finance = deliveries[hooks["team:finance-analytics"].pk].message
    assert finance["sections"][0] == ["Yours (team:finance-analytics)", ["dataset:file:///lake:gold/revenue"]]
    assert finance["event"]["incident"]["classification"] == "permission"
    assert dict(finance["facts"])["Signatures"] == "UNSIGNED 2"


def test_a_repeat_within_the_window_adds_no_message_and_a_repeat_after_resolve_opens_a_new_incident(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    routed("team:ingest")
    accept_and_apply(*run("ingest_orders", fail=True, at=T0))
    first = Incident.objects.get()
    assert Delivery.objects.count() == 1
    accept_and_apply(*run("ingest_orders", fail=True, at=T0 + timedelta(hours=1)))
    first.refresh_from_db()
    assert first.occurrences == 2 and Incident.objects.count() == 1
    assert Delivery.objects.count() == 1, "a repeat inside the window adds no message"

    incident_resolve(incident=first, actor="alice")
    assert Delivery.objects.count() == 2, "its owners hear it is resolved"
    accept_and_apply(*run("ingest_orders", fail=True, at=T0 + timedelta(hours=2)))
    assert Incident.objects.count() == 2
    second = Incident.objects.exclude(pk=first.pk).get()
    assert second.state == Incident.State.OPEN and second.occurrences == 1
    assert Delivery.objects.count() == 3


def test_a_repeat_after_the_window_reminds_the_owners_on_the_same_incident(graph, settings) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    routed("team:ingest")
    accept_and_apply(*run("ingest_orders", fail=True, at=T0))
    incident = Incident.objects.get()
    Incident.objects.filter(pk=incident.pk).update(last_seen_at=timezone.now() - timedelta(hours=7))
    accept_and_apply(*run("ingest_orders", fail=True, at=T0 + timedelta(hours=7)))
    assert Incident.objects.count() == 1
    assert [d.message["title"].startswith("Still open") for d in Delivery.objects.order_by("id")] == [False, True]


def test_the_job_completing_again_resolves_its_incident(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    routed("team:ingest")
    accept_and_apply(*run("ingest_orders", fail=True, at=T0))
    accept_and_apply(*run("ingest_orders", at=T0 + timedelta(minutes=30)))
    incident = Incident.objects.get()
    assert incident.state == Incident.State.RESOLVED
    assert incident.resolved_by.startswith("recovered")
    assert Delivery.objects.order_by("id").last().message["title"].startswith("Resolved")  # type: ignore[union-attr]


def test_a_switched_off_rule_opens_nothing_and_a_namespace_scope_is_kept(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    Rule.objects.create(kind=Rule.Kind.RUN_FAILED, enabled=False)
    accept_and_apply(*run("ingest_orders", fail=True, at=T0))
    assert not Incident.objects.exists()
    Rule.objects.filter(kind=Rule.Kind.RUN_FAILED).update(enabled=True, namespaces=["elsewhere"])
    accept_and_apply(*run("ingest_orders", fail=True, at=T0 + timedelta(hours=1)))
    assert not Incident.objects.exists()
    Rule.objects.filter(kind=Rule.Kind.RUN_FAILED).update(namespaces=["shop"], owners=["team:finance-analytics"])
    accept_and_apply(*run("ingest_orders", fail=True, at=T0 + timedelta(hours=2)))
    assert Incident.objects.count() == 1, "an owner scope covers a root whose blast radius that owner is in"


def test_a_breaking_schema_change_names_the_downstream_fields_affected(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    hooks = routed("team:data-quality", "team:finance-analytics")
    changed = [("order_id", "string"), ("country", "string")]  # amount removed, order_id retyped
    accept_and_apply(*run("ingest_orders", at=T0, output=bronze(changed)))

    incident = Incident.objects.get()
    assert incident.kind == Rule.Kind.SCHEMA_BREAKING
    assert incident.root == "dataset:file:///lake:bronze/orders"
    assert incident.cause == "removed: amount; retyped: order_id"
    fields = incident.blast_radius["columns"]
    assert "datasetField:file:///lake:silver/orders:amount_eur" in fields
    assert "datasetField:file:///lake:silver/orders:order_id" in fields
    assert "datasetField:file:///lake:gold/revenue:revenue" in fields
    assert not any(":country" in field for field in fields), "an unchanged column is not in the blast radius"
    message = Delivery.objects.get(destination=hooks["team:finance-analytics"]).message
    assert ["Downstream fields affected", fields] in message["sections"]


def test_a_renamed_column_is_a_breaking_change_that_says_it_was_renamed(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    routed("team:finance-analytics")
    renamed = [("order_id", "bigint"), ("amount_usd", "double"), ("country", "string")]
    accept_and_apply(*run("ingest_orders", at=T0, output=bronze(renamed)))

    incident = Incident.objects.get()
    assert incident.kind == Rule.Kind.SCHEMA_BREAKING
    assert incident.cause == "renamed: amount → amount_usd"
    fields = incident.blast_radius["columns"]
    assert "datasetField:file:///lake:silver/orders:amount_eur" in fields
    assert "datasetField:file:///lake:gold/revenue:revenue" in fields
    assert not any(":order_id" in field for field in fields), "a column that kept its name breaks nothing"


def test_an_added_column_is_no_breaking_change(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    accept_and_apply(*run("ingest_orders", at=T0, output=bronze([*BRONZE, ("note", "string")])))
    assert not Incident.objects.exists()


def test_a_data_quality_failure_reaches_the_owners_downstream_of_the_dataset_it_tested(graph) -> None:  # type: ignore[no-untyped-def]
    """As the example's validate_orders: its checks of bronze/orders fail, then it fails writing a dataset no one
    reads; everyone downstream of bronze/orders hears, as does the owner of what it writes."""
    accept_and_apply(*history())
    hooks = routed("team:finance-analytics", "team:quality-checks")
    tested = bronze()
    tested["facets"]["dataQualityAssertions"] = facet(
        assertions=[{"assertion": "non_negative", "success": False, "column": "amount"}]
    )
    checked = dataset(NS, "quality/orders_checked", owners=["team:quality-checks"])
    run_id = new_run_id()
    accept_and_apply(
        run_event(
            "START", run_id=run_id, job="check_orders", namespace="shop", at=T0, inputs=[tested], outputs=[checked]
        ),
        run_event(
            "FAIL", run_id=run_id, job="check_orders", namespace="shop", at=T0 + timedelta(minutes=1), inputs=[tested]
        ),
    )
    incident = Incident.objects.get()
    assert incident.classification == "data_quality"
    assert {"team:finance-analytics", "team:quality-checks", "team:data-quality"} <= set(incident.owners)
    assert Delivery.objects.filter(destination__in=hooks.values()).count() == 2


def test_a_spark_action_failing_and_its_application_failing_make_one_incident(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    routed("team:data-quality")
    app_run, action_run = new_run_id(), new_run_id()
    parent = {"parent": facet(run={"runId": app_run}, job={"namespace": "shop", "name": "validate_orders"})}
    error = {"errorMessage": facet(message="negative amount", programmingLanguage="java")}
    accept_and_apply(
        run_event("START", run_id=action_run, job="validate_orders.write", namespace="shop", at=T0, run_facets=parent),
        run_event(
            "FAIL",
            run_id=action_run,
            job="validate_orders.write",
            namespace="shop",
            at=T0 + timedelta(minutes=1),
            run_facets={**parent, **error},
        ),
    )
    accept_and_apply(*run("validate_orders", fail=True, at=T0, run_id=app_run))
    incident = Incident.objects.get()
    assert incident.root == "job:shop:validate_orders" and incident.occurrences == 2
    assert Delivery.objects.count() == 1


def test_two_workers_applying_the_same_failure_at_once_open_one_incident_and_tell_it_once(graph, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A second worker takes the same pending events while the first is between its graph write and marking
    them applied (both tasks fill their batch with every pending event): only the one that marks them tells."""
    from lineage_app import changes
    from lineage_app.ingest.services import events_apply
    from tests.apply import accept

    accept_and_apply(*history())
    routed("team:ingest")
    failure = accept(*run("ingest_orders", fail=True, at=T0))
    monkeypatch.setattr(changes, "_consumers", dict(changes._consumers))
    second_worker: list[int] = []

    def apply_again_from_another_worker(records: object) -> None:
        if not second_worker:  # the first worker has written the graph and not yet marked the events
            second_worker.append(0)
            second_worker[0] = events_apply(event_ids=failure)

    changes.consumer_register(
        name="second-worker", consumer=apply_again_from_another_worker, kinds=[changes.EventsApplied], required=True
    )
    events_apply(event_ids=failure)

    assert second_worker == [2], "the second worker did not apply the events"
    incident = Incident.objects.get()
    assert incident.occurrences == 1
    assert Delivery.objects.count() == 1
