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
from lineage_app.ingest.integration_facets import INTEGRATION_FACETS, IntegrationFacet
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
    "lineage_app/graph/lineage_facet.py",
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
    "symlinks": ("aliases",),  # a dataset's other names, those its hierarchy declared among them (docs/identity.md)
}
UI_PAGES = ROOT / "frontend" / "src" / "pages"
# The UI's facet views (`frontend/src/facets/`): one module per facet map reads its facets from a node's `facets` by
# name (`facetOf(facets, "sql")`); a facet is shown by the pages that import the module reading it.
UI_FACET_VIEWS = ROOT / "frontend" / "src" / "facets"
FACET_VIEWS = {"facets.run": "run", "facets.job": "job", "facets.dataset": "dataset"}
# The facet maps a facet of no single section may be sent in (LineageFacet: a dataset's or a job's).
COMBINED_SECTIONS = ("facets.dataset", "facets.job")
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
            # A facet of no single section (the combined `lineage` facet) is one of the facet maps it may be sent in.
            sections = (section,) if section else COMBINED_SECTIONS
            kept = ", ".join(
                KEPT_WHOLE[s]
                for s in sections
                if s in KEPT_WHOLE and not (s == "facets.dataset" and key in STRUCTURAL_DATASET_FACETS)
            )
            shown = {page for s in sections for page in _pages_showing_facet(s, key)}
            rows.append(
                FacetCoverage(
                    key=key,
                    section=section,
                    schema_file=path.name,
                    validated=(section, key) in validated,
                    read_by=tuple(read.get(key, ())),
                    kept_on=kept or None,
                    shown_by=tuple(sorted({*_pages_reading(API_FIELDS.get(key, ())), *shown})),
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


# A facet view showing the facets it does not name (nor lists as `SHOWN`) folded, as JSON (`otherFacets`).
OTHER_FACETS = "(Other facets, as JSON)"


def _pages_showing_facet(section: str, key: str) -> tuple[str, ...]:
    """The pages that import the facet view of `section` when that view reads facet `key`, or shows it among its
    other facets (those marked `OTHER_FACETS`)."""
    view = FACET_VIEWS.get(section)
    source = (UI_FACET_VIEWS / f"{view}.ts").read_text() if view else ""
    if re.search(rf'facetOf\([^,()]+,\s*"{re.escape(key)}"\)', source):
        suffix = ""
    elif "otherFacets(" in source and key not in _listed_as_shown(source):
        suffix = f" {OTHER_FACETS}"
    else:
        return ()
    imports = re.compile(rf'from\s+"(?:\.\./)+facets/{view}"')
    return tuple(
        sorted(
            str(page.relative_to(UI_PAGES)) + suffix
            for page in UI_PAGES.rglob("*.ts")
            if ".test." not in page.name and imports.search(page.read_text())
        )
    )


def _listed_as_shown(view_source: str) -> set[str]:
    """The facet names a view's `SHOWN` list names: shown by its sections or elsewhere on the page."""
    found = re.search(r"const SHOWN = \[([^\]]*)\]", view_source)
    return set(re.findall(r'"([^"]+)"', found.group(1))) if found else set()


def integration_rows() -> list[tuple[IntegrationFacet, tuple[str, ...], str | None, tuple[str, ...]]]:
    """Each facet the Spark and Flink integrations send beyond the bundled spec, with the graph modules that read
    it, the node that keeps it whole, and the pages that show it."""
    read = facet_keys_read()
    return [
        (
            facet,
            tuple(read.get(facet.key, ())),
            KEPT_WHOLE.get(facet.section),
            _pages_showing_facet(facet.section, facet.key),
        )
        for facet in INTEGRATION_FACETS
    ]


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
        " (`frontend/src/facets/`). The run's and the job's views fold every facet they have no section for under"
        f" *Other facets*, as the JSON its producer sent: those are marked {OTHER_FACETS}.",
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
    return "\n".join(lines + _experimental_lines() + _integration_lines())


def _experimental_lines() -> list[str]:
    return [
        "## The experimental `lineage` facet",
        "",
        "`LineageFacet.json` (OpenLineage PR #4804) states lineage outright: as a dataset facet, which sources feed",
        "that dataset, whole and field by field, with their transformations; as a job facet, entries naming target",
        "datasets or jobs and what feeds them. It is **experimental**, and read only with `LINEAGE_FACET_ENABLED=true`",
        "(off by default; otherwise it is kept on the node as sent, like any facet). Read, each event's `lineage`",
        "facets become the lineage the graph already folds (`lineage_app/graph/lineage_facet.py`), through the same",
        "time-aware fold as every other edge:",
        "",
        "- a target dataset of an output's facet or of a job entry is an output of the event's job, and each",
        "  source dataset an input of it;",
        "- a target field's source fields are its column lineage, with their transformations (type, subtype,",
        "  description, masking); a dataset-wide source with a field reaches every target field, as in",
        "  `columnLineage`;",
        "- a job entry of the event's own job fed by another job, or of another job fed by the event's own, is a",
        "  job -> job edge, drawn as a declared dependency of type `LINEAGE`.",
        "",
        "Left out: an entry whose source and target are both other jobs (no event of theirs confirms it), a job",
        "feeding a dataset, a job entry's `runId`, and the transformations of a source named without a field (the",
        "graph keeps transformations on field derivations only). Switching the setting takes effect for events",
        "applied from then on; `manage.py rebuild_graph` applies it to the rest.",
        "",
    ]


def _integration_lines() -> list[str]:
    lines = [
        "## Facets the Spark and Flink integrations send",
        "",
        "The OpenLineage Spark and Flink integrations send these beyond the bundled spec: their own facets, and",
        "facets of OpenLineage's registry (`spec/registry`: Iceberg, Google Cloud). Tributary has no schema for",
        "them, so only their envelope is checked (`_producer` and `_schemaURL` must be strings); each is kept in",
        "the stored event byte for byte, and as below.",
        "",
        "| Facet | Section | Sent by | What it holds | Registry | Read by the graph | Kept on node | Shown in the UI |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for facet, read_by, kept_on, shown_by in integration_rows():
        cells = [
            f"`{facet.key}`",
            SECTION_NAMES[facet.section],
            facet.sent_by,
            facet.holds,
            "yes" if facet.registry else "no",
            ", ".join(f"`{m}`" for m in read_by) or "—",
            kept_on or "—",
            ", ".join(shown_by) or "— (only in the stored event)",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]
