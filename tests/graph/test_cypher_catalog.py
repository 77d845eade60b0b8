"""The generated catalogue of graph statements (`docs/cypher.md`): current, complete, and checked."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from lineage_app.graph import ownership, reads, schema
from lineage_app.graph.management.commands.cypher_catalog import cypher_catalog_render, cypher_statement_names
from lineage_app.graph.model import Label


def test_docs_cypher_md_is_up_to_date() -> None:
    try:
        call_command("cypher_catalog", "--check", stdout=StringIO())
    except CommandError as exc:
        pytest.fail(f"{exc} (a graph statement changed: regenerate with `manage.py cypher_catalog` and commit it)")


def test_a_template_built_statement_is_listed_by_name_with_its_final_text() -> None:
    text = cypher_catalog_render()
    block = f"## reads.FIND_DATASETS\n\n```cypher\n{reads.FIND_DATASETS.strip()}\n```\n"
    assert block in text
    assert "## reads.FIND_NODES[Dataset]\n\nThe text of `reads.FIND_DATASETS`." in text


def test_tables_of_unnamed_statements_are_listed_entry_by_entry() -> None:
    text = cypher_catalog_render()
    assert f"## ownership._MERGE[Namespace]\n\n```cypher\n{ownership._MERGE[Label.NAMESPACE].strip()}\n```" in text
    assert f"## schema.SCHEMA_STATEMENTS[0]\n\n```cypher\n{schema.SCHEMA_STATEMENTS[0].strip()}\n```" in text


def test_a_statement_text_is_named_as_its_first_heading_in_the_catalogue() -> None:
    names = cypher_statement_names()
    assert names[reads.FIND_DATASETS] == "reads.FIND_DATASETS"  # not reads.FIND_NODES[Dataset], which repeats it
    assert names[ownership._MERGE[Label.NAMESPACE]] == "ownership._MERGE[Namespace]"
    text = cypher_catalog_render()
    assert all(f"## {name}\n" in text for name in set(names.values()))


def test_check_fails_on_a_stale_catalogue_until_it_is_written(tmp_path: Path) -> None:
    path = tmp_path / "cypher.md"
    path.write_text("# Cypher statements\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"run `manage\.py cypher_catalog`") as stale:
        call_command("cypher_catalog", "--check", "--path", str(path), stdout=StringIO())
    assert stale.value.returncode == 1
    call_command("cypher_catalog", "--path", str(path), stdout=StringIO())
    call_command("cypher_catalog", "--check", "--path", str(path), stdout=StringIO())
    assert path.read_text(encoding="utf-8") == cypher_catalog_render()
