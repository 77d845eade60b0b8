"""Ownership writes: hand-set assignments (mirrored into the graph at once), event-sourced ones, CSV import."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import QuerySet

from lineage_app.graph.driver import graph_write
from lineage_app.graph.events import EventRecord
from lineage_app.graph.model import Label, natural_key, owner_kind
from lineage_app.graph.ownership import (
    manual_owners_delete,
    manual_owners_delete_all,
    manual_owners_merge,
    owner_contacts_set,
)
from lineage_app.ownership.models import Owner, OwnershipAssignment

Assignment = OwnershipAssignment
TARGET_LABELS = {
    Assignment.TargetType.NAMESPACE: Label.NAMESPACE,
    Assignment.TargetType.DATASET: Label.DATASET,
    Assignment.TargetType.JOB: Label.JOB,
}
CSV_COLUMNS = ("owner", "kind", "email", "channel", "target_type", "namespace", "name", "role")
EXPORT_COLUMNS = (*CSV_COLUMNS, "source")
MIRROR_CHUNK = 1000


def target_ref(*, target_type: str, namespace: str, name: str) -> tuple[Label, str]:
    """The graph node an assignment's target names: a Namespace by name, a Dataset or Job by natural key."""
    label = TARGET_LABELS[Assignment.TargetType(target_type)]
    return (label, namespace if label == Label.NAMESPACE else natural_key(namespace, name))


def _graph_row(assignment: Assignment, owner: Owner | None = None) -> dict[str, Any]:
    owner = owner or assignment.owner
    label, key = target_ref(target_type=assignment.target_type, namespace=assignment.namespace, name=assignment.name)
    return {
        "label": label,
        "targetKey": key,
        "owner": owner.name,
        "kind": owner.kind,
        "contact": owner.contact,
        "role": assignment.role,
    }


def _mirror(*, merge: Iterable[dict[str, Any]] = (), delete: Iterable[dict[str, Any]] = ()) -> None:
    merge, delete = list(merge), list(delete)
    if not merge and not delete:
        return

    def work(tx: Any) -> None:
        manual_owners_delete(tx, rows=delete)
        manual_owners_merge(tx, rows=merge)

    graph_write(work)


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
    _mirror(merge=[_graph_row(a, owner) for a in manual], delete=[_graph_row(a, old) for a in manual] if old else ())
    graph_write(
        lambda tx: owner_contacts_set(tx, rows=[{"owner": owner.name, "kind": owner.kind, "contact": owner.contact}])
    )
    return owner


@transaction.atomic
def owners_delete(*, owners: QuerySet[Owner] | Sequence[Owner]) -> int:
    """Delete owners with all their assignments, and their hand-set edges from the graph."""
    ids = [o.pk for o in owners]
    manual = Assignment.objects.filter(owner_id__in=ids, source=Assignment.Source.MANUAL).select_related("owner")
    _mirror(delete=[_graph_row(a) for a in manual])
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
        owner=the_owner,
        target_type=target_type,
        namespace=namespace,
        name=name,
        role=role,
        source=Assignment.Source.MANUAL,
    )
    _mirror(merge=[_graph_row(assignment)])
    return assignment, created


@transaction.atomic
def assignment_save(*, assignment: Assignment, previous: Assignment | None) -> Assignment:
    """Save a hand-set assignment edited in the admin; the graph loses the old edge and gets the new one."""
    assignment.source = Assignment.Source.MANUAL
    assignment.save()
    _mirror(merge=[_graph_row(assignment)], delete=[_graph_row(previous)] if previous else ())
    return assignment


@transaction.atomic
def assignments_delete(*, assignments: QuerySet[Assignment] | Sequence[Assignment]) -> int:
    """Delete assignments; hand-set ones leave the graph now (event-sourced edges stay: events own them)."""
    found = list(Assignment.objects.filter(pk__in=[a.pk for a in assignments]).select_related("owner"))
    _mirror(delete=[_graph_row(a) for a in found if a.source == Assignment.Source.MANUAL])
    return Assignment.objects.filter(pk__in=[a.pk for a in found]).delete()[0]


def ownership_mirror_all() -> int:
    """Re-create every hand-set `OWNED_BY` edge from the database (after `rebuild_graph`); returns how many."""
    graph_write(manual_owners_delete_all)
    manual = Assignment.objects.filter(source=Assignment.Source.MANUAL).select_related("owner").order_by("pk")
    rows = [_graph_row(a) for a in manual]
    for start in range(0, len(rows), MIRROR_CHUNK):
        _mirror(merge=rows[start : start + MIRROR_CHUNK])
    return len(rows)


# ---- event-sourced assignments ----


def ownership_record_events(*, events: Sequence[EventRecord]) -> None:
    """Record the ownership facets of applied `events` as event-sourced assignments, in a few queries.

    Also re-mirrors the hand-set edges of every namespace, dataset and job the events touched:
    a hand-set assignment may name a node that only now exists in the graph.
    """
    found: set[tuple[str, str, str, str, str]] = set()  # owner, target_type, namespace, name, role
    touched: set[tuple[str, str, str]] = set()
    for event in events:
        payload = event.payload
        targets = [(Assignment.TargetType.JOB, payload.get("job") or {})]
        targets += [
            (Assignment.TargetType.DATASET, d) for side in ("inputs", "outputs") for d in payload.get(side) or []
        ]
        targets += [(Assignment.TargetType.DATASET, payload.get("dataset") or {})]  # a DatasetEvent
        for target_type, node in targets:
            if not node.get("namespace") or not node.get("name"):
                continue
            namespace, name = node["namespace"], node["name"]
            touched.update({(target_type, namespace, name), (Assignment.TargetType.NAMESPACE, namespace, "")})
            for owner in ((node.get("facets") or {}).get("ownership") or {}).get("owners") or []:
                if owner.get("name"):
                    found.add((owner["name"], target_type, namespace, name, owner.get("type") or "OWNER"))
    if found:
        with transaction.atomic():
            Owner.objects.bulk_create(
                [Owner(name=n, kind=owner_kind(n)) for n in sorted({f[0] for f in found})], ignore_conflicts=True
            )
            ids = dict(Owner.objects.filter(name__in={f[0] for f in found}).values_list("name", "pk"))
            Assignment.objects.bulk_create(
                [
                    Assignment(
                        owner_id=ids[o], target_type=t, namespace=ns, name=n, role=r, source=Assignment.Source.EVENT
                    )
                    for o, t, ns, n, r in sorted(found)
                ],
                ignore_conflicts=True,
            )
    if touched:
        manual = Assignment.objects.filter(
            source=Assignment.Source.MANUAL, namespace__in={ns for _, ns, _ in touched}
        ).select_related("owner")
        _mirror(merge=[_graph_row(a) for a in manual if (a.target_type, a.namespace, a.name) in touched])


# ---- CSV ----


@dataclass(frozen=True)
class RowProblem:
    row: int  # 1 is the header, so the first assignment is row 2 as a spreadsheet shows it
    column: str
    problem: str

    def __str__(self) -> str:
        return f"row {self.row}, column {self.column}: {self.problem}"


class CsvImportInvalid(ValueError):
    def __init__(self, problems: list[RowProblem]) -> None:
        super().__init__(f"{len(problems)} problem(s); nothing was imported")
        self.problems = problems


@dataclass(frozen=True)
class CsvImported:
    created: int
    unchanged: int
    skipped_event_rows: int


def assignments_export_csv() -> str:
    """Every assignment, hand-set and event-sourced, as CSV (`source` says which)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for a in Assignment.objects.select_related("owner").order_by(
        "target_type", "namespace", "name", "role", "owner__name", "source"
    ):
        writer.writerow(
            [
                a.owner.name,
                a.owner.kind,
                a.owner.email,
                a.owner.channel,
                a.target_type,
                a.namespace,
                a.name,
                a.role,
                a.source,
            ]
        )
    return out.getvalue()


def _csv_rows(text: str) -> tuple[list[tuple[int, dict[str, str]]], list[RowProblem]]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        return [], [RowProblem(1, c, "column is missing from the header") for c in missing]
    unknown = [c for c in header if c not in EXPORT_COLUMNS]
    if unknown:
        return [], [RowProblem(1, c, "is not a known column") for c in unknown]
    reader.fieldnames = header
    rows = []
    for number, raw in enumerate(reader, start=2):
        if None in raw:
            return [], [RowProblem(number, "-", f"has more cells than the header's {len(header)}")]
        rows.append((number, {k: (v or "").strip() for k, v in raw.items()}))
    return rows, []


def assignments_import_csv(*, text: str) -> CsvImported:
    """Import hand-set assignments from CSV: every row is checked first, and nothing applies if any is bad.

    Owners are created or get the row's kind / e-mail / channel; assignments that already exist
    are left as they are. Rows whose `source` is `event` (from an export) are skipped: events own them.
    """
    rows, problems = _csv_rows(text)
    if problems:
        raise CsvImportInvalid(problems)
    if not rows:
        raise CsvImportInvalid([RowProblem(2, "-", "the file has no assignments")])
    manual, skipped = [], 0
    seen: dict[tuple[str, ...], int] = {}
    contacts: dict[str, tuple[int, tuple[str, str, str]]] = {}
    for number, row in rows:
        if row.get("source") == Assignment.Source.EVENT:
            skipped += 1
            continue
        if row.get("source") not in (None, "", Assignment.Source.MANUAL):
            problems.append(RowProblem(number, "source", f"must be manual, event or blank (got {row['source']!r})"))
        problems += [RowProblem(number, p.column, p.problem) for p in assignment_problems(row)]
        identity = tuple(row[c] for c in ("owner", "target_type", "namespace", "name", "role"))
        if identity in seen:
            problems.append(RowProblem(number, "-", f"repeats row {seen[identity]}"))
        seen.setdefault(identity, number)
        # Blank cells say nothing; a value that differs from an earlier row's for the same owner is a conflict.
        first, known = contacts.get(row["owner"], (number, ("", "", "")))
        for column, mine, theirs in zip(
            ("kind", "email", "channel"), (row["kind"], row["email"], row["channel"]), known, strict=True
        ):
            if mine and theirs and mine != theirs:
                problems.append(
                    RowProblem(
                        number, column, f"differs from row {first} for the same owner {row['owner']!r} ({theirs!r})"
                    )
                )
        merged = tuple(
            theirs or mine for mine, theirs in zip((row["kind"], row["email"], row["channel"]), known, strict=True)
        )
        contacts[row["owner"]] = (first, merged)
        manual.append(row)
    if problems:
        raise CsvImportInvalid(problems)
    created = 0
    with transaction.atomic():  # a graph failure rolls the database back too
        owners: dict[str, Owner] = {}
        for name, (_, (kind, email, channel)) in contacts.items():
            owner, new = Owner.objects.get_or_create(
                name=name, defaults={"kind": kind or Owner.Kind.TEAM, "email": email, "channel": channel}
            )
            changes = {
                k: v
                for k, v in {"kind": kind, "email": email, "channel": channel}.items()
                if v and getattr(owner, k) != v
            }
            if changes and not new:
                Owner.objects.filter(pk=owner.pk).update(**changes)
                owner.refresh_from_db()
            owners[name] = owner
        for row in manual:
            created += Assignment.objects.get_or_create(
                owner=owners[row["owner"]],
                target_type=row["target_type"],
                namespace=row["namespace"],
                name=row["name"],
                role=row["role"],
                source=Assignment.Source.MANUAL,
            )[1]
        # Every hand-set edge of these owners, so changed contacts reach the graph too.
        touched = Assignment.objects.filter(owner__in=owners.values(), source=Assignment.Source.MANUAL)
        _mirror(merge=[_graph_row(a) for a in touched.select_related("owner")])
        graph_write(
            lambda tx: owner_contacts_set(
                tx, rows=[{"owner": o.name, "kind": o.kind, "contact": o.contact} for o in owners.values()]
            )
        )
    return CsvImported(created=created, unchanged=len(manual) - created, skipped_event_rows=skipped)
