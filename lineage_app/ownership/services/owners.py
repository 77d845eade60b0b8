"""Hand-set ownership writes: owners and assignments, checked, saved and mirrored into the graph at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import QuerySet

from lineage_app.ownership.models import Owner, OwnershipAssignment
from lineage_app.ownership.services.graph_mirror import assignment_graph_row, assignments_mirror, owner_contacts_mirror

Assignment = OwnershipAssignment


# ---- validation (shared by the API, the admin's forms and the CSV import) ----


@dataclass(frozen=True)
class FieldProblem:
    column: str
    problem: str


def assignment_problems(row: dict[str, str]) -> list[FieldProblem]:
    """Everything wrong with one hand-set assignment given as CSV-style text columns."""
    problems = []
    if not row.get("owner"):
        problems.append(FieldProblem("owner", "is required"))
    elif len(row["owner"]) > 200:
        problems.append(FieldProblem("owner", "is longer than 200 characters"))
    if row.get("kind") and row["kind"] not in Owner.Kind.values:
        problems.append(FieldProblem("kind", f"must be one of {', '.join(Owner.Kind.values)} (got {row['kind']!r})"))
    if row.get("email"):
        try:
            validate_email(row["email"])
        except ValidationError:
            problems.append(FieldProblem("email", f"is not an e-mail address ({row['email']!r})"))
    if len(row.get("channel") or "") > 200:
        problems.append(FieldProblem("channel", "is longer than 200 characters"))
    target_type = row.get("target_type") or ""
    if target_type not in Assignment.TargetType.values:
        problems.append(
            FieldProblem(
                "target_type", f"must be one of {', '.join(Assignment.TargetType.values)} (got {target_type!r})"
            )
        )
    if not row.get("namespace"):
        problems.append(FieldProblem("namespace", "is required"))
    if target_type == Assignment.TargetType.NAMESPACE and row.get("name"):
        problems.append(FieldProblem("name", "must be blank for a namespace"))
    if target_type in (Assignment.TargetType.DATASET, Assignment.TargetType.JOB) and not row.get("name"):
        problems.append(FieldProblem("name", f"is required for a {target_type}"))
    if (row.get("role") or "") not in Assignment.Role.values:
        problems.append(
            FieldProblem("role", f"must be one of {', '.join(Assignment.Role.values)} (got {row.get('role')!r})")
        )
    return problems


class OwnershipInvalid(ValueError):
    def __init__(self, problems: list[FieldProblem]) -> None:
        super().__init__("; ".join(f"{p.column} {p.problem}" for p in problems))
        self.problems = problems


# ---- owners and hand-set assignments ----


def owner_upsert(*, name: str, kind: str = "", email: str = "", channel: str = "") -> Owner:
    """The owner called `name`, created or with its kind and contact updated (blank values leave them)."""
    owner, created = Owner.objects.get_or_create(
        name=name, defaults={"kind": kind or Owner.Kind.TEAM, "email": email, "channel": channel}
    )
    if created:
        return owner
    changes = {
        k: v for k, v in {"kind": kind, "email": email, "channel": channel}.items() if v and getattr(owner, k) != v
    }
    if changes:
        for attr, value in changes.items():
            setattr(owner, attr, value)
        owner_save(owner=owner, previous_name=owner.name)
    return owner


@transaction.atomic
def owner_save(*, owner: Owner, previous_name: str | None) -> Owner:
    """Save `owner` (new or changed) and re-mirror its hand-set edges (its name or contact may have changed)."""
    owner.full_clean()
    owner.save()
    manual = list(owner.assignments.filter(source=Assignment.Source.MANUAL))
    old = Owner(name=previous_name) if previous_name and previous_name != owner.name else None
    assignments_mirror(
        merge=manual, delete=[assignment_graph_row(assignment=a, owner=old) for a in manual] if old else ()
    )
    owner_contacts_mirror(owners=[owner])
    return owner


@transaction.atomic
def owners_delete(*, owners: QuerySet[Owner] | Sequence[Owner]) -> int:
    """Delete owners with all their assignments, and their hand-set edges from the graph."""
    ids = [o.pk for o in owners]
    manual = Assignment.objects.filter(owner_id__in=ids, source=Assignment.Source.MANUAL).select_related("owner")
    assignments_mirror(delete=[assignment_graph_row(assignment=a) for a in manual])
    return Owner.objects.filter(pk__in=ids).delete()[0]


@transaction.atomic
def assignment_create(
    *,
    owner: str,
    target_type: str,
    namespace: str,
    name: str = "",
    role: str,
    kind: str = "",
    email: str = "",
    channel: str = "",
) -> tuple[Assignment, bool]:
    """A hand-set assignment (created unless it exists), mirrored into the graph now; returns it and `created`."""
    fields = {
        "owner": owner,
        "kind": kind,
        "email": email,
        "channel": channel,
        "target_type": target_type,
        "namespace": namespace,
        "name": name,
        "role": role,
    }
    problems = assignment_problems(fields)
    if problems:
        raise OwnershipInvalid(problems)
    the_owner = owner_upsert(name=owner, kind=kind, email=email, channel=channel)
    assignment, created = Assignment.objects.get_or_create(
        owner=the_owner, **_manual(target_type=target_type, namespace=namespace, name=name, role=role)
    )
    assignments_mirror(merge=[assignment])
    return assignment, created


@transaction.atomic
def assignment_save(*, assignment: Assignment, previous: Assignment | None) -> Assignment:
    """Save a hand-set assignment edited in the admin; the graph loses the old edge and gets the new one."""
    assignment.source = Assignment.Source.MANUAL
    assignment.save()
    assignments_mirror(merge=[assignment], delete=[assignment_graph_row(assignment=previous)] if previous else ())
    return assignment


@transaction.atomic
def assignments_delete(*, assignments: QuerySet[Assignment] | Sequence[Assignment]) -> int:
    """Delete assignments; hand-set ones leave the graph now (event-sourced edges stay: events own them)."""
    found = list(Assignment.objects.filter(pk__in=[a.pk for a in assignments]).select_related("owner"))
    assignments_mirror(
        delete=[assignment_graph_row(assignment=a) for a in found if a.source == Assignment.Source.MANUAL]
    )
    return Assignment.objects.filter(pk__in=[a.pk for a in found]).delete()[0]


def assignment_delete_manual(*, owner: str, target_type: str, namespace: str, name: str, role: str) -> int:
    """Delete the hand-set assignment of `owner` to a target in `role` (it leaves the graph now); how many
    rows went (0: there was none)."""
    found = Assignment.objects.filter(
        owner__name=owner, **_manual(target_type=target_type, namespace=namespace, name=name, role=role)
    )
    return assignments_delete(assignments=found) if found.exists() else 0


def _manual(*, target_type: str, namespace: str, name: str, role: str) -> dict[str, Any]:
    """What names a hand-set assignment, besides its owner: its target, its role, and that it is hand-set."""
    return {
        "target_type": target_type,
        "namespace": namespace,
        "name": name,
        "role": role,
        "source": Assignment.Source.MANUAL,
    }
