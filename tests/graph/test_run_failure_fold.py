"""A failed or aborted run's root cause and classification are part of its fold, whatever the event order."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from lineage_app.graph.events import EventRecord
from lineage_app.graph.run_state import run_fold
from lineage_app.ingest.validation import event_check
from tests.events import T0, facet, new_run_id, run_event

TRACES = Path(__file__).with_name("traces")
RUN = new_run_id()


def _record(event: dict) -> EventRecord:
    checked = event_check(event)
    return EventRecord(content_hash=checked.content_hash, event_time=checked.event_time, payload=event)


def _error(case: str) -> dict:
    return {
        "errorMessage": facet(
            message=(TRACES / f"{case}.message.txt").read_text(),
            programmingLanguage="JAVA",
            stackTrace=(TRACES / f"{case}.stack.txt").read_text(),
        )
    }


FAILED = [
    run_event("START", run_id=RUN, at=T0),
    run_event(
        "RUNNING",
        run_id=RUN,
        at=T0 + timedelta(minutes=1),
        run_facets={"errorMessage": facet(message="transient: retrying", programmingLanguage="python")},
    ),
    run_event("FAIL", run_id=RUN, at=T0 + timedelta(minutes=2), run_facets=_error("example_validate_orders_action")),
    # After the end: cannot change why the run failed.
    run_event("OTHER", run_id=RUN, at=T0 + timedelta(minutes=3), run_facets=_error("oom_heap_space_action")),
]


def test_a_failed_run_stores_its_root_cause_and_classification_on_the_run_node() -> None:
    fold = run_fold([_record(e) for e in FAILED])
    assert (fold.state, fold.failure_cause, fold.failure_class) == (
        "FAILED",
        "java.lang.RuntimeException: negative amount in order 250",
        "data_validation",
    )
    properties = fold.node_properties()
    assert (properties["failureCause"], properties["failureClass"]) == (fold.failure_cause, fold.failure_class)
    assert properties["errorMessage"].startswith("org.apache.spark.SparkException: Job aborted")


@given(order=st.permutations(range(len(FAILED))), twice=st.lists(st.integers(0, len(FAILED) - 1), max_size=3))
def test_the_failure_cause_does_not_depend_on_the_order_or_duplication_of_events(
    order: list[int], twice: list[int]
) -> None:
    fold = run_fold([_record(FAILED[i]) for i in [*order, *twice]])
    assert (fold.failure_cause, fold.failure_class) == (
        "java.lang.RuntimeException: negative amount in order 250",
        "data_validation",
    )


def test_an_aborted_run_without_an_error_was_cancelled() -> None:
    run_id = new_run_id()
    fold = run_fold(
        [
            _record(run_event("START", run_id=run_id, at=T0)),
            _record(run_event("ABORT", run_id=run_id, at=T0 + timedelta(minutes=1))),
        ]
    )
    assert (fold.state, fold.failure_cause, fold.failure_class) == ("ABORTED", None, "cancelled")


def test_an_aborted_run_that_reports_an_error_is_classified_by_it() -> None:
    run_id = new_run_id()
    fold = run_fold([_record(run_event("ABORT", run_id=run_id, at=T0, run_facets=_error("oom_heap_space_action")))])
    assert (fold.failure_cause, fold.failure_class) == ("java.lang.OutOfMemoryError: Java heap space", "out_of_memory")


def test_a_failed_run_without_an_error_has_no_cause_and_is_unknown() -> None:
    fold = run_fold([_record(run_event("FAIL", run_id=new_run_id(), at=T0))])
    assert (fold.failure_cause, fold.failure_class) == (None, "unknown")


def test_runs_that_did_not_fail_carry_no_failure_even_with_an_error_facet() -> None:
    run_id = new_run_id()
    running = run_fold(
        [
            _record(FAILED[0] | {"run": {"runId": run_id, "facets": {}}}),
            _record(FAILED[1] | {"run": {"runId": run_id, "facets": FAILED[1]["run"]["facets"]}}),
        ]
    )
    complete = run_event("COMPLETE", run_id=run_id, at=T0, run_facets=_error("oom_heap_space_action"))
    completed = run_fold([_record(complete)])
    assert (running.state, running.failure_cause, running.failure_class) == ("RUNNING", None, None)
    assert (completed.state, completed.failure_cause, completed.failure_class) == ("COMPLETED", None, None)
