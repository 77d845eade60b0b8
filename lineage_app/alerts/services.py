"""Alerts' writes: apply's change records into incidents (one per root cause) and their messages into
notify's outbox; acknowledge and resolve; rules, routes and subscriptions.

The graph is read (blast radius, owners) before an incident's transaction; the incident, its timeline
and its outbox rows are then written in one transaction, and notify delivers after it commits. Nothing
here waits on a destination.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import time, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from lineage_app.alerts.compose import incident_message
from lineage_app.alerts.models import Deadline, Incident, IncidentAsset, IncidentEvent, Route, Rule, Subscription
from lineage_app.alerts.selectors import (
    OPEN_STATES,
    Blast,
    blast_radius,
    delivery_key_prefix,
    incident_covering,
    incident_open_for,
    routes_for,
    rules_by_kind,
    run_verification,
)
from lineage_app.changes import (
    ChangeRecord,
    DatasetDropped,
    NewConsumer,
    RunEnded,
    SchemaChanged,
    VerificationProblem,
)
from lineage_app.graph.model import Label, NodeType, RunState, natural_key
from lineage_app.graph.node_ids import node_id
from lineage_app.graph.schema_fields import SchemaChange
from lineage_app.graph.traversal import NodeRef
from lineage_app.notify.models import Destination
from lineage_app.notify.services import enqueue
from lineage_app.observability.metrics import INCIDENTS_OPENED
from lineage_app.ownership.models import Owner

ALERT_RECORDS = (RunEnded, SchemaChanged, NewConsumer, DatasetDropped, VerificationProblem)
FAILED = frozenset({RunState.FAILED.value, RunState.ABORTED.value})


class AlertsInvalid(ValueError):
    """Bad input to an alerts write: `field` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def alerts_want(kind: type) -> bool:
    """Whether alerts reads records of `kind` now: finding new consumers costs apply a graph read, done only
    while the `new_consumer` rule (off by default) is on."""
    return kind is not NewConsumer or rules_by_kind()[Rule.Kind.NEW_CONSUMER].enabled


def alerts_consume(records: Sequence[ChangeRecord]) -> None:
    """The consumer of applied batches' change records: each enabled rule's records become incidents."""
    rules = {kind: rule for kind, rule in rules_by_kind().items() if rule.enabled}
    if not rules:
        return
    ended = sorted((r for r in records if isinstance(r, RunEnded)), key=lambda r: r.ended_at or "")
    completed = [r for r in ended if r.state == RunState.COMPLETED]
    if completed and Rule.Kind.RECOVERED in rules:
        _recoveries(completed)
    consumers = [r for r in records if isinstance(r, NewConsumer)]
    if consumers and Rule.Kind.NEW_CONSUMER in rules:
        _new_consumers(consumers, rules[Rule.Kind.NEW_CONSUMER])
    for record in records:
        if isinstance(record, RunEnded) and record.state in FAILED and Rule.Kind.RUN_FAILED in rules:
            _run_failed(record, rules[Rule.Kind.RUN_FAILED])
        elif isinstance(record, SchemaChanged) and record.breaking and Rule.Kind.SCHEMA_BREAKING in rules:
            _schema_breaking(record, rules[Rule.Kind.SCHEMA_BREAKING])
        elif isinstance(record, DatasetDropped) and Rule.Kind.DATASET_DROPPED in rules:
            _dataset_dropped(record, rules[Rule.Kind.DATASET_DROPPED])
        elif isinstance(record, VerificationProblem) and Rule.Kind.VERIFICATION in rules:
            _verification_problem(record, rules[Rule.Kind.VERIFICATION])


# ---- the triggers ----


def rule_covers(rule: Rule, namespace: str, blast: Blast) -> bool:
    """Whether the rule covers a root in `namespace` whose blast radius is `blast` (owners scope on any owner in it)."""
    if rule.namespaces and namespace not in rule.namespaces:
        return False
    return not rule.owners or bool(set(rule.owners) & set(blast.owned))


def downstream_depth() -> int:
    """Hops downstream whose assets' owners hear of an incident (`ALERTS_DOWNSTREAM_DEPTH`)."""
    return int(settings.ALERTS_DOWNSTREAM_DEPTH)


def _run_failed(record: RunEnded, rule: Rule) -> None:
    if rule.namespaces and record.job_namespace not in rule.namespaces:
        return
    # A child run's failure (a Spark action's, a DAG's task's) is its parent's: one incident for the two.
    namespace, name = record.parent_job or (record.job_namespace, record.job_name)
    job = node_id(NodeType.JOB, namespace, name)
    if incident_repeat(Rule.Kind.RUN_FAILED, job, run_id=record.run_id):
        return
    covering = incident_covering(node_id=job, kind=Rule.Kind.RUN_FAILED)
    if covering is not None:
        with transaction.atomic():
            IncidentAsset.objects.get_or_create(incident=covering, node_id=job)
            _timeline(
                covering,
                IncidentEvent.Kind.ATTACHED,
                f"{job} {record.state.lower()} downstream of the root: {record.failure_cause or 'no cause given'}",
                data={"job": job, "runId": record.run_id, "classification": record.failure_class},
            )
            Incident.objects.filter(pk=covering.pk).update(last_seen_at=timezone.now())
        return
    roots: list[NodeRef] = [(Label.JOB, natural_key(namespace, name))]
    roots += [(Label.JOB, natural_key(record.job_namespace, record.job_name))] if record.parent_job else []
    roots += [(Label.DATASET, natural_key(ns, dataset)) for ns, dataset in record.tested]
    blast = blast_radius(roots=roots, depth=downstream_depth())
    if not rule_covers(rule, record.job_namespace, blast):
        return
    verb = "was aborted" if record.state == RunState.ABORTED else "failed"
    incident_open(
        kind=Rule.Kind.RUN_FAILED,
        root=job,
        title=f"{namespace}/{name} {verb}",
        cause=record.failure_cause or "",
        classification=record.failure_class or "",
        run_id=record.run_id,
        blast=blast,
    )


def _schema_breaking(record: SchemaChanged, rule: Rule) -> None:
    dataset = node_id(NodeType.DATASET, record.namespace, record.name)
    if incident_repeat(Rule.Kind.SCHEMA_BREAKING, dataset, run_id=record.run_id or ""):
        return
    key = natural_key(record.namespace, record.name)
    changed = [(Label.FIELD, natural_key(record.namespace, record.name, f)) for f in (*record.removed, *record.retyped)]
    blast = blast_radius(roots=[(Label.DATASET, key)], depth=downstream_depth(), fields=changed)
    if not blast.consumers or not rule_covers(rule, record.namespace, blast):
        return  # nobody reads it now: not breaking anything
    # What breaks a consumer: the fields added are no one's problem.
    breaking = SchemaChange(added=[], removed=[*record.removed], retyped=[*record.retyped], renamed=[*record.renamed])
    incident_open(
        kind=Rule.Kind.SCHEMA_BREAKING,
        root=dataset,
        title=f"Breaking schema change on {record.namespace}/{record.name}",
        cause=breaking.summary(),
        classification="schema",
        run_id=record.run_id or "",
        blast=blast,
    )


def _new_consumers(records: list[NewConsumer], rule: Rule) -> None:
    """One notice per job that started reading datasets, to the owners of those datasets (the producer side):
    news, not a problem, so it opens resolved and nothing repeats it (the job's later reads are known edges)."""
    by_job: dict[tuple[str, str], list[NewConsumer]] = defaultdict(list)
    for record in records:
        if not rule.namespaces or record.namespace in rule.namespaces:
            by_job[(record.job_namespace, record.job_name)].append(record)
    for (namespace, name), read in sorted(by_job.items()):
        roots: list[NodeRef] = [(Label.DATASET, natural_key(r.namespace, r.name)) for r in read]
        blast = blast_radius(roots=roots, depth=0)
        if not blast.owned or (rule.owners and not set(rule.owners) & set(blast.owned)):
            continue  # nobody owns what it reads: nobody to tell
        job = node_id(NodeType.JOB, namespace, name)
        blast.jobs.append(job)
        names = ", ".join(f"{r.namespace}/{r.name}" for r in read)
        incident_open(
            kind=Rule.Kind.NEW_CONSUMER,
            root=job,
            title=f"New consumer: {namespace}/{name} now reads {names}",
            cause=f"{namespace}/{name} read {names} for the first time",
            classification="new_consumer",
            run_id="",
            blast=blast,
            notice=True,
        )


def _dataset_dropped(record: DatasetDropped, rule: Rule) -> None:
    dataset = node_id(NodeType.DATASET, record.namespace, record.name)
    if incident_repeat(Rule.Kind.DATASET_DROPPED, dataset, run_id=record.run_id or ""):
        return
    blast = blast_radius(roots=[(Label.DATASET, natural_key(record.namespace, record.name))], depth=downstream_depth())
    if not blast.consumers or not rule_covers(rule, record.namespace, blast):
        return
    incident_open(
        kind=Rule.Kind.DATASET_DROPPED,
        root=dataset,
        title=f"{record.namespace}/{record.name} was dropped",
        cause="lifecycleStateChange: DROP",
        classification="dropped",
        run_id=record.run_id or "",
        blast=blast,
    )


def _verification_problem(record: VerificationProblem, rule: Rule) -> None:
    if not record.job_namespace:
        return
    job = node_id(NodeType.JOB, record.job_namespace, record.job_name)
    if incident_repeat(Rule.Kind.VERIFICATION, job, run_id=record.run_id):
        return
    blast = blast_radius(roots=[(Label.JOB, natural_key(record.job_namespace, record.job_name))], depth=0)
    if not rule_covers(rule, record.job_namespace, blast):
        return
    held = "quarantined" if record.quarantined else "applied unverified"
    incident_open(
        kind=Rule.Kind.VERIFICATION,
        root=job,
        title=f"Signature problem on {record.job_namespace}/{record.job_name}: {record.status}",
        cause=f"event {record.event_id} {held}" + (f": {record.reason}" if record.reason else ""),
        classification=record.status,
        run_id=record.run_id,
        blast=blast,
    )


def _recoveries(completed: list[RunEnded]) -> None:
    """A job that completes again resolves its open failure or deadline incident, and its owners hear so."""
    jobs = {node_id(NodeType.JOB, r.job_namespace, r.job_name): r for r in completed}
    kinds = [Rule.Kind.RUN_FAILED, Rule.Kind.DEADLINE_MISSED]
    for incident in Incident.objects.filter(kind__in=kinds, state__in=OPEN_STATES, root__in=list(jobs)):
        run = jobs[incident.root]
        incident_resolve(incident=incident, actor="", reason=f"recovered: run {run.run_id} completed")


# ---- incidents ----


def incident_repeat(kind: str, root: str, *, run_id: str, text: str = "") -> bool:
    """A repeat of an open incident's cause: within the window it only updates the incident; after it, the
    incident's owners are reminded. Either way no new incident; False when none is open. `text` says on the
    timeline what came again (by default, the run)."""
    incident = incident_open_for(kind=kind, root=root)
    if incident is None:
        return False
    now = timezone.now()
    quiet = incident.last_seen_at >= now - timedelta(hours=settings.ALERTS_REPEAT_WINDOW_HOURS)
    with transaction.atomic():
        incident.occurrences += 1
        incident.last_seen_at = now
        incident.save(update_fields=["occurrences", "last_seen_at"])
        _timeline(incident, IncidentEvent.Kind.REPEATED, text or f"again (run {run_id})", data={"runId": run_id})
        if not quiet:
            _notify(incident, _owned_from_assets(incident), phase="reminder")
    return True


def incident_open(
    *,
    kind: str,
    root: str,
    title: str,
    cause: str,
    classification: str,
    run_id: str,
    blast: Blast,
    notice: bool = False,
) -> Incident:
    """Open an incident of `kind` on `root` and tell the owners in `blast`, in one transaction; a `notice`
    (news, nothing to fix) is resolved as it opens, and its owners hear of it once."""
    now = timezone.now()
    resolved = {"state": Incident.State.RESOLVED, "resolved_at": now, "resolved_by": "notice"} if notice else {}
    with transaction.atomic():
        incident = Incident.objects.create(
            kind=kind,
            root=root,
            title=title,
            cause=cause,
            classification=classification,
            run_id=run_id,
            blast_radius=blast.as_json(),
            verification=run_verification(run_ids=[run_id]) if run_id else {},
            owners=sorted(blast.owned),
            opened_at=now,
            last_seen_at=now,
            **resolved,
        )
        IncidentAsset.objects.bulk_create(
            [IncidentAsset(incident=incident, node_id=n) for n in dict.fromkeys([root, *blast.node_ids()])],
            ignore_conflicts=True,
        )
        _timeline(incident, IncidentEvent.Kind.OPENED, cause or title, data={"owned": blast.owned})
        _notify(incident, blast.owned, phase="opened")
    INCIDENTS_OPENED.labels(kind=kind).inc()
    return incident


def _owned_from_assets(incident: Incident) -> dict[str, list[str]]:
    """Who was told what when the incident opened (its `opened` timeline entry)."""
    opened = incident.timeline.filter(kind=IncidentEvent.Kind.OPENED).first()
    return dict(opened.data.get("owned", {})) if opened else {}


def _notify(incident: Incident, owned: dict[str, list[str]], *, phase: str) -> None:
    """One message per destination, listing what of the owners routed there is affected; into the outbox
    (in the caller's transaction) and onto the timeline, owners with no route included."""
    by_destination: dict[int, dict[str, list[str]]] = defaultdict(dict)
    destinations: dict[int, Destination] = {}
    for route in routes_for(owners=list(owned)):
        by_destination[route.destination_id][route.owner.name] = owned[route.owner.name]
        destinations[route.destination_id] = route.destination
    told = incident.timeline.filter(kind=IncidentEvent.Kind.NOTIFIED).count()
    sent: list[dict[str, Any]] = []
    for destination_id, yours in sorted(by_destination.items()):
        destination = destinations[destination_id]
        key = f"{delivery_key_prefix(incident)}{told + 1}-{phase}:dest-{destination_id}"
        enqueue(
            destination=destination,
            message=incident_message(incident=incident, yours=yours, phase=phase),
            idempotency_key=key,
        )
        sent.append({"destination": destination_id, "name": destination.name, "owners": sorted(yours), "key": key})
    unrouted = sorted(set(owned) - {o for yours in by_destination.values() for o in yours})
    text = ", ".join(f"{s['name']} ({', '.join(s['owners'])})" for s in sent) or "no destination routed"
    _timeline(
        incident,
        IncidentEvent.Kind.NOTIFIED,
        f"{phase}: {text}" + (f"; no route for {', '.join(unrouted)}" if unrouted else ""),
        data={"phase": phase, "deliveries": sent, "unrouted": unrouted},
    )


def _timeline(incident: Incident, kind: str, text: str, *, actor: str = "", data: dict[str, Any] | None = None) -> None:
    IncidentEvent.objects.create(
        incident=incident, at=timezone.now(), kind=kind, text=text, actor=actor, data=data or {}
    )


def incident_acknowledge(*, incident: Incident, actor: str) -> Incident:
    if incident.state != Incident.State.OPEN:
        raise AlertsInvalid(
            "state", f"incident #{incident.pk} is {incident.state}: only an open one can be acknowledged"
        )
    with transaction.atomic():
        incident.state = Incident.State.ACKNOWLEDGED
        incident.acknowledged_at = timezone.now()
        incident.acknowledged_by = actor
        incident.save(update_fields=["state", "acknowledged_at", "acknowledged_by"])
        _timeline(incident, IncidentEvent.Kind.ACKNOWLEDGED, f"acknowledged by {actor}", actor=actor)
    return incident


def incident_resolve(*, incident: Incident, actor: str, reason: str = "") -> Incident:
    """Resolve `incident` (by `actor`, or by itself when it recovered) and tell its owners."""
    if incident.state == Incident.State.RESOLVED:
        raise AlertsInvalid("state", f"incident #{incident.pk} is resolved already")
    with transaction.atomic():
        incident.state = Incident.State.RESOLVED
        incident.resolved_at = timezone.now()
        incident.resolved_by = actor or reason
        incident.save(update_fields=["state", "resolved_at", "resolved_by"])
        _timeline(incident, IncidentEvent.Kind.RESOLVED, reason or f"resolved by {actor}", actor=actor)
        _notify(incident, _owned_from_assets(incident), phase="resolved")
    return incident


# ---- rules, routes, subscriptions ----


def rule_update(*, rule: Rule, enabled: bool | None, namespaces: list[str] | None, owners: list[str] | None) -> Rule:
    if owners is not None:
        unknown = sorted(set(owners) - set(Owner.objects.filter(name__in=owners).values_list("name", flat=True)))
        if unknown:
            raise AlertsInvalid("owners", f"unknown owner(s): {', '.join(unknown)}")
        rule.owners = sorted(set(owners))
    if namespaces is not None:
        rule.namespaces = sorted(set(namespaces))
    if enabled is not None:
        rule.enabled = enabled
    rule.save()
    return rule


def deadline_declare(
    *, namespace: str, name: str, expected_by: time | None, every_minutes: int | None, grace_minutes: int
) -> Deadline:
    """Declare (or replace) a job's deadline: daily by `expected_by` (UTC) or every `every_minutes`, one of them."""
    if (expected_by is None) == (every_minutes is None):
        raise AlertsInvalid("expectedBy", "give one of expectedBy (HH:MM, UTC, daily) or everyMinutes")
    if expected_by is not None and grace_minutes >= 24 * 60:
        # A day's completions count from the day before's grace on: a grace of a day or more leaves no window.
        raise AlertsInvalid("graceMinutes", "a daily deadline's grace must be under 1440 minutes (a day)")
    deadline, _ = Deadline.objects.update_or_create(
        job_namespace=namespace,
        job_name=name,
        defaults={"expected_by": expected_by, "every_minutes": every_minutes, "grace_minutes": grace_minutes},
    )
    return deadline


def deadline_delete(*, deadline: Deadline) -> None:
    deadline.delete()


def route_create(*, owner: str, destination: int) -> Route:
    found = Owner.objects.filter(name=owner).first()
    if found is None:
        raise AlertsInvalid("owner", f"unknown owner {owner!r}: create it in ownership first")
    target = Destination.objects.filter(pk=destination).first()
    if target is None:
        raise AlertsInvalid("destination", f"unknown destination {destination}")
    route, _ = Route.objects.get_or_create(owner=found, destination=target)
    return route


def route_delete(*, route: Route) -> None:
    route.delete()


def subscription_create(
    *, user: Any, subscriber: str | None, target_type: str, namespace: str, name: str
) -> Subscription:
    """`user` subscribes themselves (`user:<username>`, created as an owner if need be) or a team they name."""
    if target_type == Subscription.TargetType.NAMESPACE and name:
        raise AlertsInvalid("name", "a namespace subscription names no dataset or job: leave name empty")
    if target_type != Subscription.TargetType.NAMESPACE and not name:
        raise AlertsInvalid("name", f"a {target_type} subscription needs the {target_type}'s name")
    if subscriber:
        found = Owner.objects.filter(name=subscriber).first()
        if found is None:
            raise AlertsInvalid("subscriber", f"unknown owner {subscriber!r}")
    else:
        found, _ = Owner.objects.get_or_create(
            name=f"user:{user.get_username()}", defaults={"kind": Owner.Kind.PERSON, "email": user.email or ""}
        )
    subscription, _ = Subscription.objects.get_or_create(
        subscriber=found, target_type=target_type, namespace=namespace, name=name, defaults={"user": user}
    )
    return subscription


def subscription_delete(*, subscription: Subscription) -> None:
    subscription.delete()
