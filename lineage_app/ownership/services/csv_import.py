"""Assignments as CSV: export every one, import hand-set ones (every row checked first, nothing half-applied)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.db import transaction

from lineage_app.ownership.models import OwnershipAssignment
from lineage_app.ownership.services.graph_mirror import assignments_mirror, owner_contacts_mirror
from lineage_app.ownership.services.owners import assignment_problems, owner_upsert

Assignment = OwnershipAssignment
CSV_COLUMNS = ("owner", "kind", "email", "channel", "target_type", "namespace", "name", "role")
EXPORT_COLUMNS = (*CSV_COLUMNS, "source")


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

    Owners are created or get the row's kind / e-mail / channel (`owner_upsert`, as the API does);
    assignments that already exist are left as they are. Rows whose `source` is `event` (from an
    export) are skipped: events own them.
    """
    rows, problems = _csv_rows(text)
    if problems:
        raise CsvImportInvalid(problems)
    if not rows:
        raise CsvImportInvalid([RowProblem(2, "-", "the file has no assignments")])
    manual = [(number, row) for number, row in rows if row.get("source") != Assignment.Source.EVENT]
    contacts, problems = _checked(manual)
    if problems:
        raise CsvImportInvalid(problems)
    created = 0
    with transaction.atomic():  # a graph failure rolls the database back too
        owners = {
            name: owner_upsert(name=name, kind=kind, email=email, channel=channel)
            for name, (kind, email, channel) in contacts.items()
        }
        for _, row in manual:
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
        assignments_mirror(merge=touched.select_related("owner"))
        owner_contacts_mirror(owners=owners.values())
    return CsvImported(created=created, unchanged=len(manual) - created, skipped_event_rows=len(rows) - len(manual))


def _checked(rows: list[tuple[int, dict[str, str]]]) -> tuple[dict[str, tuple[str, str, str]], list[RowProblem]]:
    """Every problem of the hand-set `rows`, and each owner's kind, e-mail and channel as the rows give them."""
    problems: list[RowProblem] = []
    seen: dict[tuple[str, ...], int] = {}
    contacts: dict[str, tuple[int, tuple[str, str, str]]] = {}
    for number, row in rows:
        if row.get("source") not in (None, "", Assignment.Source.MANUAL):
            problems.append(RowProblem(number, "source", f"must be manual, event or blank (got {row['source']!r})"))
        problems += [RowProblem(number, p.column, p.problem) for p in assignment_problems(row)]
        identity = tuple(row[c] for c in ("owner", "target_type", "namespace", "name", "role"))
        if identity in seen:
            problems.append(RowProblem(number, "-", f"repeats row {seen[identity]}"))
        seen.setdefault(identity, number)
        # Blank cells say nothing; a value that differs from an earlier row's for the same owner is a conflict.
        first, known = contacts.get(row["owner"], (number, ("", "", "")))
        mine = (row["kind"], row["email"], row["channel"])
        for column, value, theirs in zip(("kind", "email", "channel"), mine, known, strict=True):
            if value and theirs and value != theirs:
                problems.append(
                    RowProblem(
                        number, column, f"differs from row {first} for the same owner {row['owner']!r} ({theirs!r})"
                    )
                )
        kind, email, channel = (theirs or value for value, theirs in zip(mine, known, strict=True))
        contacts[row["owner"]] = (first, (kind, email, channel))
    return {owner: contact for owner, (_, contact) in contacts.items()}, problems
