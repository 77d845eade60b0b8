"""Ownership writes, one module per concern; this package's names are what callers use.

- `owners`: hand-set owners and assignments (validation, create, save, delete);
- `csv_import`: the assignments' CSV export and import (through `owners.owner_upsert`);
- `events`: ownership recorded from the `ownership` facets of applied events (a consumer of `lineage_app.changes`);
- `graph_mirror`: owners and assignments mirrored into the graph.
"""

from __future__ import annotations

from lineage_app.ownership.services.csv_import import (
    CSV_COLUMNS,
    CsvImported,
    CsvImportInvalid,
    RowProblem,
    assignments_export_csv,
    assignments_import_csv,
)
from lineage_app.ownership.services.events import ownership_consume, ownership_record_events
from lineage_app.ownership.services.graph_mirror import ownership_mirror_all
from lineage_app.ownership.services.owners import (
    OwnershipInvalid,
    assignment_create,
    assignment_delete_manual,
    assignment_problems,
    assignment_save,
    assignments_delete,
    owner_save,
    owners_delete,
)

__all__ = [
    "CSV_COLUMNS",
    "CsvImportInvalid",
    "CsvImported",
    "OwnershipInvalid",
    "RowProblem",
    "assignment_create",
    "assignment_delete_manual",
    "assignment_problems",
    "assignment_save",
    "assignments_delete",
    "assignments_export_csv",
    "assignments_import_csv",
    "owner_save",
    "owners_delete",
    "ownership_consume",
    "ownership_mirror_all",
    "ownership_record_events",
]
