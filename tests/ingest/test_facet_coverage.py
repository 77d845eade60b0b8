"""docs/facets.md is generated from the code (`manage.py facet_coverage`) and must not go stale."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from lineage_app.ingest.facet_coverage import (
    DOC,
    facet_coverage,
    facet_coverage_markdown,
    facet_keys_read,
    integration_rows,
)


def test_docs_facets_md_is_what_the_code_generates() -> None:
    assert DOC.read_text() == facet_coverage_markdown(), "docs/facets.md is stale: run `manage.py facet_coverage`"


def test_the_check_command_passes_on_the_committed_doc() -> None:
    out = StringIO()
    call_command("facet_coverage", "--check", stdout=out)
    assert "up to date" in out.getvalue()


def test_the_check_command_fails_on_a_stale_doc(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    stale = tmp_path / "facets.md"
    stale.write_text(DOC.read_text().replace("| `parent` |", "| `parentRun` |"))
    monkeypatch.setattr("lineage_app.ingest.management.commands.facet_coverage.DOC", stale)
    with pytest.raises(CommandError, match="stale"):
        call_command("facet_coverage", "--check", stdout=StringIO())


def test_the_facets_the_graph_reads_are_found_in_its_code() -> None:
    read = facet_keys_read()
    for key in ("parent", "errorMessage", "nominalTime"):
        assert "graph/run_state.py" in read[key]
    for key in ("schema", "columnLineage", "ownership", "inputStatistics", "outputStatistics"):
        assert "graph/projection.py" in read[key]
    assert "graph/facets.py" in read["jobType"]  # the Job node's type, from its merged facets
    for key in ("symlinks", "hierarchy", "catalog"):
        assert "graph/identity.py" in read[key]  # aliases of a dataset (docs/identity.md)
    assert "processing_engine" not in read


def test_every_facet_schema_file_is_covered_and_every_sectioned_facet_is_validated() -> None:
    from lineage_app.ingest.validation import SPEC_DIR

    rows = facet_coverage()
    assert {r.schema_file for r in rows} == {p.name for p in (SPEC_DIR / "facets").glob("*.json")}
    assert all(r.validated for r in rows if r.section)
    by_key = {(r.section, r.key): r for r in rows}
    assert by_key[("facets.run", "processing_engine")].kept_on == "Run"
    assert by_key[("facets.dataset", "schema")].kept_on is None  # structure of its own, not a blob
    assert by_key[("inputFacets", "dataQualityMetrics")].kept_on is None


def test_a_facet_shown_through_its_node_s_facet_view_names_the_pages_that_import_the_view() -> None:
    shown = {(r.section, r.key): r.shown_by for r in facet_coverage()}
    assert shown[("facets.job", "sql")] == ("lineage/panels/jobPanel.ts", "runs/JobRunsPage.ts")
    assert shown[("facets.run", "tags")] == ("runs/JobRunsPage.ts",)  # the run view, not the job's
    assert shown[("facets.dataset", "storage")] == ("dataset/DatasetPage.ts",)
    assert shown[("outputFacets", "outputStatistics")] == ("dataset/DatasetPage.ts",)  # through `writeStatistics`
    assert shown[("facets.run", "jobDependencies")] == ("runs/JobRunsPage.ts",)  # through the job's `dependencies`
    # Kept on the run, named by no section: folded under the run's other facets, as sent.
    assert shown[("facets.run", "extractionError")] == ("runs/JobRunsPage.ts (Other facets, as JSON)",)
    assert shown[("facets.run", "errorMessage")] == (  # shown as the run's error, never again as JSON
        "failures/FailuresPage.ts",
        "lineage/panels/jobPanel.ts",
        "runs/JobRunsPage.ts",
    )


def test_every_facet_the_spark_and_flink_integrations_send_has_a_row_saying_where_it_shows() -> None:
    rows = {facet.key: (facet, kept_on, shown_by) for facet, _, kept_on, shown_by in integration_rows()}
    spark_run = ("spark_properties", "spark_applicationDetails", "spark_jobDetails", "spark.logicalPlan", "debug")
    for key in (*spark_run, "spark_unknown", "environment-properties", "gcp_dataproc", "checkpoints", "flink_job"):
        facet, kept_on, shown_by = rows[key]
        assert (facet.section, kept_on, shown_by) == (
            "facets.run",
            "Run",
            ("runs/JobRunsPage.ts (Other facets, as JSON)",),
        ), key
    assert rows["gcp_lineage"][1:] == (
        "Job",
        ("lineage/panels/jobPanel.ts (Other facets, as JSON)", "runs/JobRunsPage.ts (Other facets, as JSON)"),
    )
    # Iceberg's reports ride on the input and output datasets, which keep no facets of their own.
    for key, section in (("icebergScanReport", "inputFacets"), ("icebergCommitReport", "outputFacets")):
        facet, kept_on, shown_by = rows[key]
        assert (facet.section, facet.registry, kept_on, shown_by) == (section, True, None, ()), key
    text = facet_coverage_markdown()
    for key in rows:
        assert f"| `{key}` |" in text, key


def test_the_experimental_lineage_facet_is_documented_as_read_only_behind_its_setting() -> None:
    [lineage] = [r for r in facet_coverage() if r.key == "lineage"]
    assert lineage.read_by == ("graph/lineage_facet.py",) and lineage.kept_on == "Dataset, Job"
    text = facet_coverage_markdown()
    assert "It is **experimental**, and read only with `LINEAGE_FACET_ENABLED=true`" in text
