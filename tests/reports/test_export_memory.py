"""Impact exports: an export's heap peak does not grow with its rows, its walk's file goes with the response, and
the answers are those of before."""

from __future__ import annotations

import csv
import gc
import io
import json
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from lineage_app.graph import impact, impact_walk
from lineage_app.graph.driver import graph_driver, graph_write
from lineage_app.graph.model import Label, Rel
from tests.explorer.application_graph import APP, BRONZE, build_application_graph
from tests.explorer.known_graph import AGGREGATE, RAW, build_known_graph

pytestmark = pytest.mark.django_db

# The answers the code gave before exports stopped holding their rows, per case: the CSV as text and the
# JSON with its `generatedAt` left out (the only value that differs between two runs).
ANSWERS = Path(__file__).with_name("impact_answers.json")
RAW_AMOUNT, CLEAN_AMOUNT = "datasetField:db:raw.orders:amount", "datasetField:db:clean.orders:amount_eur"
KNOWN_CASES = {
    "dataset": {"nodeId": [RAW]},
    "job": {"nodeId": [AGGREGATE]},
    "field": {"nodeId": [RAW_AMOUNT]},
    "dataset-and-field": {"nodeId": [RAW, CLEAN_AMOUNT]},
    "depth-3": {"nodeId": [RAW], "depth": 3},
}
APPLICATION_CASES = {
    "application-level": {"nodeId": [BRONZE]},
    "action-level": {"nodeId": [BRONZE], "level": "action"},
    "application-start": {"nodeId": [APP], "level": "action"},
}

# The large graphs: in namespace `ns`, one source and a job fanning it out to `wide` datasets, each the head of a
# chain of `LONG` more job -> dataset steps: 1 + wide * (1 + 2 * LONG) assets at distances 1 to 2 + 2 * LONG.
# Two of one shape, `SMALL` and `LARGE` wide: what the larger export holds more at its peak grows with its rows.
SMALL, LARGE, LONG = 400, 2000, 2
SEEN = "2026-01-01T00:00:00.000000Z"
CREATE_SOURCE = f"""
CREATE (s:{Label.DATASET} {{key: $ns + $sep + 'source', nodeId: 'dataset:' + $ns + ':source', namespace: $ns,
        name: 'source', firstSeen: $seen}})
CREATE (j:{Label.JOB} {{key: $ns + $sep + 'fan', nodeId: 'job:' + $ns + ':fan', namespace: $ns, name: 'fan',
        firstSeen: $seen}})
CREATE (s)-[:{Rel.INPUT_TO} {{firstSeen: $seen}}]->(j)
"""
CREATE_FAN_OUT = f"""
UNWIND $names AS name
MATCH (j:{Label.JOB} {{key: $ns + $sep + 'fan'}})
CREATE (j)-[:{Rel.OUTPUTS} {{firstSeen: $seen}}]->
       (:{Label.DATASET} {{key: $ns + $sep + 'd0-' + name, nodeId: 'dataset:' + $ns + ':d0-' + name, namespace: $ns,
         name: 'd0-' + name, firstSeen: $seen}})
"""
CREATE_CONSUMERS = f"""
UNWIND $names AS name
MATCH (d:{Label.DATASET} {{key: $ns + $sep + $dataset + name}})
CREATE (d)-[:{Rel.INPUT_TO} {{firstSeen: $seen}}]->
       (:{Label.JOB} {{key: $ns + $sep + $job + name, nodeId: 'job:' + $ns + ':' + $job + name, namespace: $ns,
         name: $job + name, firstSeen: $seen}})
"""
CREATE_STEP = f"""
UNWIND $names AS name
MATCH (j:{Label.JOB} {{key: $ns + $sep + $job + name}})
CREATE (j)-[:{Rel.OUTPUTS} {{firstSeen: $seen}}]->
       (:{Label.DATASET} {{key: $ns + $sep + $dataset + name, nodeId: 'dataset:' + $ns + ':' + $dataset + name,
         namespace: $ns, name: $dataset + name, firstSeen: $seen}})
"""
# Heap bytes an export's peak may grow by per row. Before, the walk's state stayed in the heap until the report
# ended: 525-530 bytes a row on the fan-out graph on ArcadeDB, 640-670 on Neo4j (830-1010 before that). Now it
# is in SQLite (`impact_walk`), and the heap holds at once one statement's answer of the walk (`WALK_CHUNK`
# nodes and their edges) and one chunk of rows (`impact.CHUNK`), bounded by those sizes and the graph's
# degree, not by the export. Measured on a tree whose nodes have at most three children, with both chunks
# smaller than its exports' widest distances so that both fill them: 22-30 bytes a row on ArcadeDB, 23-34 on
# Neo4j (the driver's record of each statement of the walk, about 1.2 KB, and the deeper rows' longer paths).
# The fan-out graph below cannot show it: its one `fan` job has a fifth of the rows as outputs, one answer.
PEAK_GROWTH_PER_ROW = 60
WALK_CHUNK, ROWS_CHUNK = 250, 200
# The tree: dataset t0-00000 feeds a job writing three datasets, each of which does the same, `TREE_LEVELS`
# levels of datasets. Exported to depth 12 (1,456 rows) and 16 (13,120 rows): the same shape, one graph.
TREE_LEVELS, BRANCHES = 9, 3
SMALL_DEPTH, LARGE_DEPTH = 12, 16
CREATE_ROOT = f"""
CREATE (:{Label.DATASET} {{key: $ns + $sep + 't0-00000', nodeId: 'dataset:' + $ns + ':t0-00000', namespace: $ns,
        name: 't0-00000', firstSeen: $seen}})
"""
CREATE_BRANCHES = f"""
UNWIND $parents AS p
MATCH (d:{Label.DATASET} {{key: $ns + $sep + p.dataset}})
CREATE (d)-[:{Rel.INPUT_TO} {{firstSeen: $seen}}]->
       (j:{Label.JOB} {{key: $ns + $sep + p.job, nodeId: 'job:' + $ns + ':' + p.job, namespace: $ns, name: p.job,
         firstSeen: $seen}})
WITH j, p
UNWIND p.children AS c
CREATE (j)-[:{Rel.OUTPUTS} {{firstSeen: $seen}}]->
       (:{Label.DATASET} {{key: $ns + $sep + c, nodeId: 'dataset:' + $ns + ':' + c, namespace: $ns, name: c,
         firstSeen: $seen}})
"""


def build_tree(ns: str) -> None:
    write(CREATE_ROOT, ns=ns)
    for level in range(TREE_LEVELS - 1):
        parents = [
            {
                "dataset": f"t{level}-{i:05d}",
                "job": f"j{level}-{i:05d}",
                "children": [f"t{level + 1}-{i * BRANCHES + c:05d}" for c in range(BRANCHES)],
            }
            for i in range(BRANCHES**level)
        ]
        for start in range(0, len(parents), 500):
            write(CREATE_BRANCHES, ns=ns, parents=parents[start : start + 500])


def tree_rows(depth: int) -> int:
    """Jobs (level k at distance 2k + 1) and datasets (level k at 2k) of the tree within `depth`, less the root."""
    jobs = sum(BRANCHES**k for k in range(TREE_LEVELS - 1) if 2 * k + 1 <= depth)
    return jobs + sum(BRANCHES**k for k in range(1, TREE_LEVELS) if 2 * k <= depth)


def rows_of(wide: int) -> int:
    return 1 + wide * (1 + 2 * LONG)


def write(statement: str, **params: Any) -> None:
    graph_write(lambda tx: tx.run(statement, sep="\x1f", seen=SEEN, **params).consume())


def build_fan_out(ns: str, wide: int) -> None:
    write(CREATE_SOURCE, ns=ns)
    names = [f"{n:05d}" for n in range(wide)]
    for start in range(0, wide, 1000):
        batch = names[start : start + 1000]
        write(CREATE_FAN_OUT, ns=ns, names=batch)
        for step in range(1, LONG + 1):
            write(CREATE_CONSUMERS, ns=ns, names=batch, dataset=f"d{step - 1}-", job=f"j{step}-")
            write(CREATE_STEP, ns=ns, names=batch, job=f"j{step}-", dataset=f"d{step}-")


def export(client: APIClient, fmt: str, params: dict[str, Any]) -> bytes:
    return b"".join(export_pieces(client, fmt, params))


def export_pieces(client: APIClient, fmt: str, params: dict[str, Any]) -> Iterator[bytes]:
    """`fmt` "impact" (`GET /api/v1/impact`) or a report format, piece by piece as the server writes it."""
    path = "/api/v1/impact" if fmt == "impact" else "/api/v1/impact/report"
    query = {"depth": 10, **params} | ({} if fmt == "impact" else {"format": fmt})
    response = client.get(path, query)
    assert response.status_code == 200, response.content
    return iter(response.streaming_content)


def export_peak(client: APIClient, fmt: str, ns: str, depth: int = 10) -> tuple[int, int, str]:
    """The heap's peak growth while `ns`'s root's impact is exported in `fmt`, its rows and its last piece."""
    gc.collect()
    tracemalloc.start()
    try:
        rows, last = 0, b""
        params = {"nodeId": f"dataset:{ns}:t0-00000", "depth": depth}
        for piece in export_pieces(client, fmt, params):  # each dropped once read
            rows += piece.count(b"\n") - (rows == 0) if fmt == "csv" else piece.count(b'{"id":')
            last = piece
        return tracemalloc.get_traced_memory()[1], rows, last.decode("utf-8")
    finally:
        tracemalloc.stop()


def answers(client: APIClient, cases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, params in cases.items():
        body = json.loads(export(client, "impact", params))
        del body["generatedAt"]
        found[name] = {"json": body, "csv": export(client, "csv", params).decode("utf-8")}
    return found


def test_the_known_graphs_answers_are_unchanged(graph: Any, read_client: APIClient) -> None:
    build_known_graph()
    expected = json.loads(ANSWERS.read_text())
    assert answers(read_client, KNOWN_CASES) == {name: expected[name] for name in KNOWN_CASES}


def test_the_application_graphs_answers_are_unchanged(graph: Any, read_client: APIClient) -> None:
    build_application_graph()
    expected = json.loads(ANSWERS.read_text())
    assert answers(read_client, APPLICATION_CASES) == {name: expected[name] for name in APPLICATION_CASES}


@pytest.mark.parametrize("fmt", ["csv", "impact"])
def test_an_exports_peak_memory_grows_less_than_a_bound_per_row(
    graph: Any, read_client: APIClient, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(impact_walk, "WALK_CHUNK", WALK_CHUNK)
    monkeypatch.setattr(impact, "CHUNK", ROWS_CHUNK)
    build_tree("tree")
    export_peak(read_client, fmt, "tree", SMALL_DEPTH)  # code paths warmed once, outside the measure
    small, small_rows, _ = export_peak(read_client, fmt, "tree", SMALL_DEPTH)
    large, large_rows, last = export_peak(read_client, fmt, "tree", LARGE_DEPTH)
    assert (small_rows, large_rows) == (tree_rows(SMALL_DEPTH), tree_rows(LARGE_DEPTH))
    if fmt == "csv":
        last_leaf = BRANCHES ** (TREE_LEVELS - 1) - 1
        assert list(csv.reader(io.StringIO(last)))[-1][0] == f"dataset:tree:t{TREE_LEVELS - 1}-{last_leaf:05d}"
    else:
        assert f'"total":{large_rows},' in last
    growth = (large - small) / (large_rows - small_rows)
    engine = "arcadedb" if "arcadedb" in graph_driver().get_server_info().agent.lower() else "neo4j"
    print(f"{engine} {fmt}: heap peak {small} -> {large} bytes, {growth:.1f} bytes a row")
    assert growth < PEAK_GROWTH_PER_ROW, f"the peak grew by {growth:.0f} bytes a row ({small} -> {large} bytes)"


# ---- the walk's temporary file ----

SPILLED = 2000 // 5  # a fan-out this wide (2,001 rows) has its walk pass a cache of `SPILL_CACHE_KB`
SPILL_CACHE_KB = 64


def walk_files() -> set[str]:
    """The temporary files SQLite made for walks that this process holds open (it unlinks them as it makes them,
    so they are seen only here; `etilqs_` is its prefix for them)."""
    found = set()
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed since listed
            continue
        if "etilqs_" in target:
            found.add(target)
    return found


@pytest.fixture
def spilling(graph: Any, settings: Any) -> set[str]:
    """A graph whose export walks past the walk's cache, and the walk files open before it."""
    settings.IMPACT_WALK_CACHE_KB = SPILL_CACHE_KB
    build_fan_out("spill", SPILLED)
    return walk_files()


def report(client: APIClient, fmt: str = "csv") -> Any:
    response = client.get("/api/v1/impact/report", {"nodeId": "dataset:spill:source", "depth": 10, "format": fmt})
    assert response.status_code == 200
    return response


def test_a_small_walk_makes_no_file(graph: Any, read_client: APIClient) -> None:
    build_known_graph()
    before = walk_files()
    pieces = export_pieces(read_client, "csv", {"nodeId": [RAW]})
    next(pieces)
    assert walk_files() == before  # the walk's rows fit SQLite's cache


def test_the_walks_file_is_removed_once_the_response_is_read(spilling: set[str], read_client: APIClient) -> None:
    pieces = iter(report(read_client).streaming_content)
    first = next(pieces)
    assert len(walk_files() - spilling) == 1  # the walk passed its cache: on disk while the rows are written
    rows = first.count(b"\n") - 1 + sum(piece.count(b"\n") for piece in pieces)  # less the header line
    assert rows == rows_of(SPILLED)
    assert walk_files() == spilling


def test_the_walks_file_is_removed_when_the_client_stops_reading(spilling: set[str], read_client: APIClient) -> None:
    response = report(read_client, "json")
    next(iter(response.streaming_content))
    assert len(walk_files() - spilling) == 1
    response.close()  # what the server does when the client goes away
    assert walk_files() == spilling


def test_the_walks_file_is_removed_when_writing_the_rows_fails(
    spilling: set[str], read_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    details = impact.impact_details
    calls: list[int] = []

    def failing(*, refs: Any) -> Any:  # a fault the graph cannot be made to give here: the engine gone mid-report
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("graph engine gone")
        return details(refs=refs)

    monkeypatch.setattr(impact, "impact_details", failing)
    pieces = iter(report(read_client).streaming_content)
    next(pieces)
    assert len(walk_files() - spilling) == 1
    with pytest.raises(RuntimeError, match="graph engine gone"):
        for _ in pieces:  # the first 2,000 rows, then the second chunk's details fail
            pass
    assert walk_files() == spilling


def test_the_walks_file_is_removed_when_the_walk_fails(
    spilling: set[str], read_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    during: list[set[str]] = []

    def failing(*_: Any) -> int:  # a fault the graph cannot be made to give here: the engine gone mid-walk
        during.append(walk_files())
        raise RuntimeError("graph engine gone")

    monkeypatch.setattr(impact_walk, "stale_edges_from", failing)
    with pytest.raises(RuntimeError, match="graph engine gone"):
        report(read_client)
    assert len(during[0] - spilling) == 1  # the walk had spilled when it failed
    assert walk_files() == spilling
