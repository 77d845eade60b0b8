"""Two workers at once: one applies the symlink, the other an alias name; the graph still has one dataset.

ArcadeDB answers two transactions that create the same new node (a Namespace, a DatasetAlias) at
once with a ConstraintError for the loser, for any node (not special to identity);
`graph_writes_apply` runs the loser again, so each worker here applies its batch with one call.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.events import EventRecord
from lineage_app.graph.model import Label
from lineage_app.graph.projection import graph_writes_for
from lineage_app.graph.writer import graph_writes_apply
from lineage_app.ingest.validation import event_check
from tests.events import T0, dataset, run_event
from tests.graph.identity_events import CANONICAL_ID, CATALOG, symlinked


def _record(event: dict) -> EventRecord:
    checked = event_check(event)
    return EventRecord(content_hash=checked.content_hash, event_time=checked.event_time, payload=event)


@pytest.mark.parametrize("round_", range(8))
def test_concurrent_batches_naming_a_table_two_ways_converge_to_one_dataset(graph, round_):  # type: ignore[no-untyped-def]
    at = T0 + timedelta(days=20, minutes=round_)
    link = _record(
        run_event(
            "COMPLETE",
            run_id=f"8b3d0c22-0000-4000-8000-0000000000{round_:02d}",
            job="audit",
            at=at,
            inputs=[symlinked("s3://lake", "warehouse/orders")],
        )
    )
    alias = _record(
        run_event(
            "COMPLETE",
            run_id=f"8b3d0c22-0000-4000-8000-0000000001{round_:02d}",
            job="report",
            at=at,
            inputs=[dataset(*CATALOG, fields=[("id", "bigint")])],
        )
    )
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def worker(record: EventRecord) -> None:
        try:
            writes = graph_writes_for([record], [])
            barrier.wait()
            graph_writes_apply(writes)
        except BaseException as exc:  # reported below: a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(r,)) for r in ((link, alias) if round_ % 2 else (alias, link))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [], [str(e) for e in errors]
    ids = graph_read(lambda tx: records(tx, f"MATCH (d:{Label.DATASET}) RETURN d.nodeId AS id"))
    assert [row["id"] for row in ids] == [CANONICAL_ID]
