"""Declared owners: `dataset_owners` / `job_owners` give datasets and jobs the standard `ownership` facet."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from spark_agent.config import resolve_config
from spark_agent.owners import DeclaredOwner, parse_owner_rules

pytestmark = pytest.mark.spark


@pytest.fixture
def seed(spark: Any, tmp_path: Path) -> str:
    path = str(tmp_path / "raw" / "seed")
    spark.createDataFrame([(1, 2.5), (2, 4.0)], "id INT, price DOUBLE").write.parquet(path)
    return path


def _owners(node: dict[str, Any]) -> list[dict[str, str]] | None:
    facet = node.get("facets", {}).get("ownership")
    return None if facet is None else facet["owners"]


def test_matching_datasets_and_jobs_carry_the_declared_owners(
    spark: Any, record: Any, seed: str, tmp_path: Path
) -> None:
    dataset_owners = {
        "*/bronze/*": "team:data-platform",
        "default.owned_totals": [
            "team:finance-analytics",
            {"name": "user:ana", "type": "MAINTAINER"},
        ],
    }
    job_owners = {"owned_app": "team:data-platform", "owned_app.create_table.*": "team:finance"}
    spark.sql("DROP TABLE IF EXISTS owned_totals")
    with record("owned_app", dataset_owners=dataset_owners, job_owners=job_owners) as events:
        spark.read.parquet(seed).write.parquet(str(tmp_path / "bronze" / "orders"))
        spark.read.parquet(seed).groupBy("id").count().write.saveAsTable("owned_totals")

    # `record` has validated every facet against its OpenLineage schema already.
    for event_type in ("START", "COMPLETE"):
        assert _owners(events.app(event_type)["job"]) == [{"name": "team:data-platform"}]
    bronze = events.child("owned_app.write_parquet.orders")
    assert _owners(bronze["outputs"][0]) == [{"name": "team:data-platform"}]
    assert _owners(bronze["inputs"][0]) is None  # raw/seed matches no rule
    assert _owners(bronze["job"]) is None  # the application's rule names only the application
    table = events.child("owned_app.create_table.default_owned_totals")
    # A catalog table is named by its location and matches through its symlink name too.
    assert table["outputs"][0]["facets"]["symlinks"]["identifiers"][0]["name"] == "default.owned_totals"
    assert _owners(table["outputs"][0]) == [
        {"name": "team:finance-analytics"},
        {"name": "user:ana", "type": "MAINTAINER"},
    ]
    assert _owners(table["job"]) == [{"name": "team:finance"}]
    facet = table["outputs"][0]["facets"]["ownership"]
    assert facet["_schemaURL"].endswith("1-0-1/OwnershipDatasetFacet.json#/$defs/OwnershipDatasetFacet")
    assert table["job"]["facets"]["ownership"]["_schemaURL"].endswith(
        "1-0-1/OwnershipJobFacet.json#/$defs/OwnershipJobFacet"
    )


def test_without_owner_rules_no_ownership_facet_is_emitted(spark: Any, record: Any, seed: str, tmp_path: Path) -> None:
    with record("unowned_app") as events:
        spark.read.parquet(seed).write.parquet(str(tmp_path / "bronze" / "copy"))
    assert all(_owners(e["job"]) is None for e in events)
    assert all(_owners(d) is None for e in events for d in e["inputs"] + e["outputs"])


def test_owners_come_from_the_environment_in_text_form(
    spark: Any, record: Any, seed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIBUTARY_DATASET_OWNERS", "*/silver/*=team:a, team:b ; */none/*=team:c")
    monkeypatch.setenv("TRIBUTARY_JOB_OWNERS", "env_app*=user:bo")
    with record("env_app") as events:
        spark.read.parquet(seed).write.parquet(str(tmp_path / "silver" / "copy"))
    child = events.child("env_app.write_parquet.copy")
    assert _owners(child["outputs"][0]) == [{"name": "team:a"}, {"name": "team:b"}]
    assert _owners(child["job"]) == [{"name": "user:bo"}]


def test_malformed_owner_rules_are_ignored_with_a_warning_and_the_job_runs(
    spark: Any, record: Any, seed: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="spark_agent"),
        record("bad_rules_app", dataset_owners={"*": []}, job_owners="no equals sign") as events,
    ):
        spark.read.parquet(seed).write.parquet(str(tmp_path / "bronze" / "bad"))
    assert events.app("COMPLETE")["eventType"] == "COMPLETE"
    assert all(_owners(d) is None for e in events for d in e["outputs"])
    messages = [r.getMessage() for r in caplog.records]
    assert any("ignoring dataset_owners" in m for m in messages)
    assert any("ignoring job_owners: 'no equals sign' is not PATTERN=OWNER" in m for m in messages)


def test_every_matching_rule_adds_its_owners_once_in_rule_order() -> None:
    rules = parse_owner_rules({"*/gold/*": ["team:x", "team:y"], "*revenue*": ["team:y", "team:z"]})
    assert rules.owners_for(["/lake/gold/daily_revenue"]) == [
        DeclaredOwner("team:x"),
        DeclaredOwner("team:y"),
        DeclaredOwner("team:z"),
    ]
    assert rules.owners_for(["/lake/silver/orders", ""]) == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"": "team:a"}, "non-empty string"),
        ({"*": 3}, "must be a name"),
        ({"*": [{"type": "OWNER"}]}, "is not an owner"),
        ({"*": {"name": "team:a", "type": ""}}, "owner type"),
        ("*=team:a,", "an owner name is empty"),
        (["*"], "must be a mapping"),
    ],
)
def test_malformed_owner_rules_say_what_is_wrong(value: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_owner_rules(value)


def test_install_arguments_win_over_the_owner_environment_variables() -> None:
    environ = {"TRIBUTARY_DATASET_OWNERS": "*=team:env", "TRIBUTARY_JOB_OWNERS": "*=team:env"}
    config = resolve_config({"dataset_owners": {"*": "team:arg"}}, environ)
    assert config.dataset_owners == {"*": "team:arg"}
    assert config.job_owners == "*=team:env"
