"""The driver leaves out the engine's notes about names the graph has no node or edge of yet, and keeps the rest."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from lineage_app.graph.driver import graph_read, records


def _notes(caplog: pytest.LogCaptureFixture, query: str) -> list[logging.LogRecord]:
    with caplog.at_level(logging.DEBUG, logger="neo4j.notifications"):
        rows: list[dict[str, Any]] = graph_read(lambda tx: records(tx, query))
    assert rows == [{"n": 0}]
    return [record for record in caplog.records if record.name == "neo4j.notifications"]


def test_a_read_naming_a_relationship_type_and_property_no_edge_has_logs_no_warning(
    graph: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # What a lineage read asks on a graph without Spark applications: Neo4j answered with an `UNRECOGNIZED`
    # notification per unknown name, which the driver logged as a warning on every request.
    query = "MATCH (a)-[:NEVER_WRITTEN_BY_TRIBUTARY]->(b) WHERE b.neverWrittenProperty = 1 RETURN count(b) AS n"
    assert _notes(caplog, query) == []
