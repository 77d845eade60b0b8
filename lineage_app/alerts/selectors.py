"""Alerts' reads: an incident's blast radius and who it concerns (graph), incidents, rules, routes, subscriptions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from lineage_app.alerts.models import OFF_BY_DEFAULT, Incident, IncidentEvent, Route, Rule, Subscription
from lineage_app.graph.impact import impact_details, impact_traverse
from lineage_app.graph.model import KEY_SEPARATOR, NOW, Label
from lineage_app.graph.node_ids import node_ref_id
from lineage_app.graph.traversal import NodeRef
from lineage_app.ingest.models import LineageEvent
from lineage_app.notify.models import Delivery
from lineage_app.notify.selectors import deliveries_for

# Assets whose owners are looked up, nearest first (counts still cover everything reached).
DETAILS_LIMIT = 500
LISTED = 100  # assets of each kind kept on the incident
OPEN_STATES = (Incident.State.OPEN, Incident.State.ACKNOWLEDGED)


@dataclass
class Blast:
    """What an incident reaches: its roots' and downstream assets (node ids), downstream fields, and each
    owner's assets among them."""

    datasets: list[str] = field(default_factory=list)
    jobs: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)
    owned: dict[str, list[str]] = field(default_factory=dict)  # owner -> node ids of theirs
    consumers: int = 0  # jobs downstream
    truncated: bool = False
    depth: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "datasets": self.datasets[:LISTED],
            "jobs": self.jobs[:LISTED],
            "columns": self.fields[:LISTED],
            "owners": sorted(self.owned),
            "counts": {
                "datasets": len(self.datasets),
                "jobs": len(self.jobs),
                "columns": len(self.fields),
                "owners": len(self.owned),
            },
            "truncated": self.truncated or any(len(x) > LISTED for x in (self.datasets, self.jobs, self.fields)),
            "depth": self.depth,
        }

    def node_ids(self) -> list[str]:
        return [*self.datasets, *self.jobs]


def blast_radius(*, roots: list[NodeRef], depth: int, fields: Sequence[NodeRef] = ()) -> Blast:
    """The roots and everything downstream of them within `depth` hops (the impact traversal), with owners;
    with `fields`, the downstream fields derived from them too (column lineage)."""
    reached = impact_traverse(starts=roots, depth=depth, moment=NOW)
    assets = [ref for ref in reached.assets() if ref[0] is not Label.FIELD]
    blast = Blast(depth=depth)
    if fields:
        derived = impact_traverse(starts=list(fields), depth=depth, moment=NOW)
        blast.fields = [derived.node_id(ref) for ref in derived.assets() if ref[0] is Label.FIELD]
        assets += [ref for ref in derived.assets() if ref[0] is not Label.FIELD and ref not in reached.seen]
    ordered = list(dict.fromkeys([*roots, *assets]))
    looked_up = ordered[:DETAILS_LIMIT]
    blast.truncated = len(ordered) > len(looked_up)
    details = impact_details(refs=looked_up)
    owned: dict[str, list[str]] = defaultdict(list)
    for ref in ordered:
        node = node_ref_id(ref)
        (blast.datasets if ref[0] is Label.DATASET else blast.jobs).append(node)
        for owner in details.get(ref, {}).get("owners", []):
            if node not in owned[owner["name"]]:
                owned[owner["name"]].append(node)
    blast.consumers = sum(1 for ref in assets if ref[0] is Label.JOB)
    blast.owned = dict(owned)
    for subscriber, nodes in subscribers_of(refs=ordered).items():
        owned_here = blast.owned.setdefault(subscriber, [])
        owned_here.extend(node for node in nodes if node not in owned_here)
    return blast


def subscribers_of(*, refs: list[NodeRef]) -> dict[str, list[str]]:
    """The subscribers (owner names) to any of `refs` or their namespaces, each with the node ids of `refs`
    they subscribed to (directly or by namespace)."""
    by_target: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for ref in refs:
        namespace, name = ref[1].split(KEY_SEPARATOR, 1)
        kind = Subscription.TargetType.DATASET if ref[0] is Label.DATASET else Subscription.TargetType.JOB
        by_target[(kind, namespace, name)].append(node_ref_id(ref))
        by_target[(Subscription.TargetType.NAMESPACE, namespace, "")].append(node_ref_id(ref))
    if not by_target:
        return {}
    namespaces = {namespace for _, namespace, _ in by_target}
    found: dict[str, list[str]] = defaultdict(list)
    for sub in Subscription.objects.filter(namespace__in=namespaces).select_related("subscriber"):
        for node in by_target.get((sub.target_type, sub.namespace, sub.name), []):
            if node not in found[sub.subscriber.name]:
                found[sub.subscriber.name].append(node)
    return dict(found)


def run_verification(*, run_ids: list[str]) -> dict[str, int]:
    """How many of the runs' events have each signature status (empty status: not checked yet)."""
    counts: dict[str, int] = defaultdict(int)
    for status in LineageEvent.objects.filter(run_id__in=run_ids).values_list("verification", flat=True):
        counts[status or "UNCHECKED"] += 1
    return dict(counts)


def rules_by_kind() -> dict[str, Rule]:
    """Every rule by kind: as stored, or (never changed) unscoped, switched on but for `OFF_BY_DEFAULT`, unsaved."""
    stored = {rule.kind: rule for rule in Rule.objects.all()}
    return {kind: stored.get(kind) or Rule(kind=kind, enabled=kind not in OFF_BY_DEFAULT) for kind in Rule.Kind.values}


def routes_for(*, owners: list[str]) -> QuerySet[Route]:
    return Route.objects.filter(owner__name__in=owners, destination__enabled=True).select_related(
        "owner", "destination"
    )


def incident_open_for(*, kind: str, root: str) -> Incident | None:
    return Incident.objects.filter(kind=kind, root=root, state__in=OPEN_STATES).order_by("-id").first()


def incident_covering(*, node_id: str, kind: str) -> Incident | None:
    """The open incident of `kind` whose root or blast radius holds `node_id`, if any (the oldest)."""
    return Incident.objects.filter(kind=kind, state__in=OPEN_STATES, assets__node_id=node_id).order_by("id").first()


def incident_list(*, state: str | None, team: str | None, kind: str | None) -> QuerySet[Incident]:
    incidents = Incident.objects.all()
    if state:
        incidents = incidents.filter(state=state)
    if kind:
        incidents = incidents.filter(kind=kind)
    if team:
        # JSON containment is not on every database: match the quoted name inside the list's text.
        incidents = incidents.filter(Q(owners__icontains=f'"{team}"'))
    return incidents


def incident_timeline(*, incident: Incident) -> QuerySet[IncidentEvent]:
    return incident.timeline.all()


def incident_deliveries(*, incident: Incident) -> QuerySet[Delivery]:
    return deliveries_for(delivery_key_prefix(incident))


def delivery_key_prefix(incident: Incident) -> str:
    """Every delivery of `incident` has an idempotency key starting with this."""
    return f"incident-{incident.pk}:"


def subscriptions_of(*, user: Any) -> QuerySet[Subscription]:
    return Subscription.objects.filter(user=user).select_related("subscriber")


def job_completions(*, since: datetime) -> dict[tuple[str, str], list[datetime]]:
    """When each job's runs completed since `since` (one time per run, from the event log), oldest first."""
    found: dict[tuple[str, str], dict[str, datetime]] = defaultdict(dict)
    rows = LineageEvent.objects.filter(
        event_type="COMPLETE", event_time__gte=since, status=LineageEvent.Status.APPLIED
    ).values_list("job_namespace", "job_name", "run_id", "event_time")
    for namespace, name, run_id, at in rows:
        found[(namespace, name)][run_id or str(at)] = at
    return {job: sorted(times.values()) for job, times in found.items()}
