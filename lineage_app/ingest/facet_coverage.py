"""What Tributary does with each standard OpenLineage facet, found in the code itself; writes docs/facets.md."""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from lineage_app.graph.projection import STRUCTURAL_DATASET_FACETS
from lineage_app.ingest.validation import FACET_SECTIONS, SPEC_DIR, _facet_schema_ids

ROOT = Path(settings.BASE_DIR)
DOC = ROOT / "docs" / "facets.md"
# The modules that read event payloads when they are applied (after invalid facets are left out).
READERS = (
    "lineage_app/graph/projection.py",
    "lineage_app/graph/facets.py",
    "lineage_app/graph/identity.py",
    "lineage_app/graph/run_state.py",
    "lineage_app/graph/quality.py",
    "lineage_app/graph/subsets.py",
    "lineage_app/ownership/services/events.py",
)
# Where the graph keeps a facet map's facets whole, as JSON on the node (the read API's `facets`).
KEPT_WHOLE = {"facets.run": "Run", "facets.job": "Job", "facets.dataset": "Dataset"}
# The read API fields a facet becomes; the facet is shown in the UI when a page reads one of them.
API_FIELDS = {
    "errorMessage": ("errorMessage", "stackTrace", "errorLanguage"),
    "nominalTime": ("nominalStartTime", "nominalEndTime"),
    "parent": ("parentRunId", "children", "hierarchy"),
    "jobType": ("jobType", "processingType", "integration"),
    "schema": ("fields", "versions"),
    "columnLineage": ("columnLineage",),
    "ownership": ("owners",),
    "inputStatistics": ("rowCount", "fileCount"),
    "outputStatistics": ("writeStatistics",),
    "dataQualityAssertions": ("checks",),
    "test": ("checks",),
    "dataQualityMetrics": ("metrics",),
    "jobDependencies": ("dependencies",),
    "subset": ("inputSubsets", "outputSubsets", "subset", "lastSubset"),
}
UI_PAGES = ROOT / "frontend" / "src" / "pages"
# The UI's facet views (`frontend/src/facets/`): one module per facet map reads its facets from a node's `facets` by
# name (`facetOf(facets, "sql")`); a facet is shown by the pages that import the module reading it.
UI_FACET_VIEWS = ROOT / "frontend" / "src" / "facets"
FACET_VIEWS = {"facets.run": "run", "facets.job": "job", "facets.dataset": "dataset"}
SECTION_NAMES = {
    "facets.run": "run",
    "facets.job": "job",
    "facets.dataset": "dataset",
    "inputFacets": "input",
    "outputFacets": "output",
}


@dataclass(frozen=True, kw_only=True)
class FacetCoverage:
    key: str
    section: str  # a facet map (`facets.run` ...), or "" for the combined lineage facet
    schema_file: str
    validated: bool
    read_by: tuple[str, ...]
    kept_on: str | None
    shown_by: tuple[str, ...]


def facet_coverage() -> list[FacetCoverage]:
    """Every facet key each bundled facet schema defines, with what validation, graph and UI do with it."""
    validated = _facet_schema_ids()
    read = facet_keys_read()
    rows = []
    for path in sorted((SPEC_DIR / "facets").glob("*.json")):
        schema = json.loads(path.read_text())
        for key, ref in schema.get("properties", {}).items():
            definition = ref.get("$ref", "").rsplit("/", 1)[-1]
            section = next((s for suffix, s in FACET_SECTIONS if definition.endswith(suffix)), "") if definition else ""
            kept = KEPT_WHOLE.get(section)
            if section == "facets.dataset" and key in STRUCTURAL_DATASET_FACETS:
                kept = None
            rows.append(
                FacetCoverage(
                    key=key,
                    section=section,
                    schema_file=path.name,
                    validated=(section, key) in validated,
                    read_by=tuple(read.get(key, ())),
                    kept_on=kept,
                    shown_by=tuple(
                        sorted({*_pages_reading(API_FIELDS.get(key, ())), *_pages_showing_facet(section, key)})
                    ),
                )
            )
    return sorted(rows, key=lambda r: (list(SECTION_NAMES).index(r.section) if r.section else 9, r.key))


def facet_keys_read() -> dict[str, list[str]]:
    """Facet keys the payload readers look up by name: `x.get("key")`, `x["key"]`, `"key" in x`,
    and the members of their module-level `frozenset({...})` constants; by key, the modules."""
    found: dict[str, set[str]] = defaultdict(set)
    for module in READERS:
        tree = ast.parse((ROOT / module).read_text())
        for node in ast.walk(tree):
            for text in _looked_up(node):
                found[text].add("/".join(Path(module).parts[-2:]))
    return {key: sorted(modules) for key, modules in found.items()}


def _looked_up(node: ast.AST) -> list[str]:
    def text(value: ast.AST) -> list[str]:
        return [value.value] if isinstance(value, ast.Constant) and isinstance(value.value, str) else []

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        return text(node.args[0])
    if isinstance(node, ast.Subscript):
        return text(node.slice)
    if isinstance(node, ast.Compare) and any(isinstance(op, ast.In) for op in node.ops):
        return text(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "frozenset" and node.args:
        members = node.args[0]
        if isinstance(members, ast.Set | ast.List | ast.Tuple):
            return [t for element in members.elts for t in text(element)]
    return []


def _pages_reading(fields: tuple[str, ...]) -> tuple[str, ...]:
    pages = set()
    for source in UI_PAGES.rglob("*.ts"):
        if ".test." in source.name:
            continue
        body = source.read_text()
        if any(f".{field}" in body for field in fields):
            pages.add(str(source.relative_to(UI_PAGES)))
    return tuple(sorted(pages))


def _pages_showing_facet(section: str, key: str) -> tuple[str, ...]:
    """The pages that import the facet view of `section` when that view reads facet `key`."""
    view = FACET_VIEWS.get(section)
    if view is None or not re.search(
        rf'facetOf\([^,()]+,\s*"{re.escape(key)}"\)', (UI_FACET_VIEWS / f"{view}.ts").read_text()
    ):
        return ()
    imports = re.compile(rf'from\s+"(?:\.\./)+facets/{view}"')
    return tuple(
        sorted(
            str(source.relative_to(UI_PAGES))
            for source in UI_PAGES.rglob("*.ts")
            if ".test." not in source.name and imports.search(source.read_text())
        )
    )


def facet_coverage_markdown() -> str:
    """docs/facets.md, as `manage.py facet_coverage` writes it."""
    lines = [
        "# Facet coverage",
        "",
        "<!-- Generated by `manage.py facet_coverage` from the code; do not edit by hand. -->",
        "",
        "Every standard facet of the bundled OpenLineage spec (`lineage_app/ingest/openlineage_spec/facets/`)",
        "and what Tributary does with it. Every facet, standard or custom, is kept in the stored event",
        "byte for byte, whatever happens to it below.",
        "",
        "- **Validated**: checked against its schema on ingest. A facet that fails (standard or custom,",
        "  whose `_producer` / `_schemaURL` must be strings) is left out of the graph and answered as a",
        '  warning (`201 {"id", "status", "warnings": [{"path", "message"}]}`); under a strict facet',
        "  policy (`FACET_POLICY=strict`, or a per-namespace facet policy) the event is refused with a 400.",
        "- **Read by the graph**: the modules applying events look the facet up by name"
        f" ({', '.join(f'`{m}`' for m in READERS)}) and turn it into graph structure or node properties.",
        "- **Kept on node**: the facet is kept whole, as JSON, on that node (the read API's `facets`). A",
        "  dataset or job keeps the newest sent of each facet name, by event time, whichever events sent",
        "  them, until a newer `_deleted` marker deletes it ([time.md](time.md), *Facets merge by name*);",
        "  a run, its events' facets merged in event-time order.",
        "- **Shown in the UI**: a page reads a read-API field the facet becomes"
        " (the pages under `frontend/src/pages/`), or shows the facet itself through the facet view of its node"
        " (`frontend/src/facets/`).",
        "- A facet with none of these is kept only in the stored event (the event log).",
        "",
        "| Facet | Section | Schema | Validated | Read by the graph | Kept on node | Shown in the UI |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in facet_coverage():
        lines.append(
            "| "
            + " | ".join(
                [
                    f"`{row.key}`",
                    SECTION_NAMES.get(row.section, "dataset / job (combined)"),
                    row.schema_file,
                    "yes" if row.validated else "no (no single section; stored as sent)",
                    ", ".join(f"`{m}`" for m in row.read_by) or "—",
                    row.kept_on or "—",
                    ", ".join(row.shown_by) or "—",
                ]
            )
            + " |"
        )
    only_stored = [
        f"`{r.key}` ({SECTION_NAMES.get(r.section, 'combined')})"
        for r in facet_coverage()
        if not (r.read_by or r.kept_on or r.shown_by)
    ]
    lines += ["", "Kept only in the stored event: " + (", ".join(only_stored) or "none") + ".", ""]
    return "\n".join(lines)
