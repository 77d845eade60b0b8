"""A statement's rows reach the engine whole, while the driver's debug line about them names only how many there are."""

from __future__ import annotations

import logging

import pytest

from lineage_app.graph.driver import graph_write, records, statement_run


def _total(tx, rows):  # type: ignore[no-untyped-def]
    return statement_run(tx, "UNWIND $rows AS row RETURN sum(row.amount) AS total", rows=rows).single()["total"]


def test_the_engine_receives_every_row_and_the_debug_log_only_their_count(graph, caplog) -> None:
    rows = [{"amount": n, "name": f"orders_{n:04d}"} for n in range(500)]
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        assert graph_write(lambda tx: _total(tx, rows)) == sum(range(500))
        assert graph_write(lambda tx: records(tx, "UNWIND $rows AS row RETURN count(*) AS n", rows=rows)) == [
            {"n": 500}
        ]
    runs = [record.getMessage() for record in caplog.records if " C: RUN " in record.getMessage()]
    assert len(runs) == 2 and all("<500 rows>" in line for line in runs)
    assert not any("orders_0001" in record.getMessage() for record in caplog.records)
    assert len(rows) == 500  # the caller's list is left as it was


@pytest.mark.parametrize("value", [7, "orders", {"a": [1, 2]}, None])
def test_other_parameters_go_as_they_are(graph, value) -> None:  # type: ignore[no-untyped-def]
    def work(tx):  # type: ignore[no-untyped-def]
        return statement_run(tx, "RETURN $value AS value", value=value).single()["value"]

    assert graph_write(work) == value
