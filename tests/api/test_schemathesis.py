"""Schemathesis against the served OpenAPI schema: no input gets a 5xx, and every answer is the documented one."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance

from tests.events import new_run_id, run_event
from tests.explorer.known_graph import build_known_graph

pytestmark = pytest.mark.django_db

# Enough to find a missing bound (the offset 500 took schemathesis seconds), few enough that the
# file stays well under three minutes on a loaded two-core machine.
EXAMPLES = 25
# An ingest body is an OpenLineage event: the served schema says "a JSON object" and points to the
# OpenLineage spec rather than inlining it (and the core checks are stricter than any JSON Schema:
# aware times, canonicalisable numbers), so a generated object is rarely an event and "schema-valid
# data is accepted" cannot hold there. Every other check runs on them; the event contract itself is
# tested in tests/ingest/test_api_contract.py.
# A consistency proof's sizes are valid only against each other and the log (`from` <= `to` <= the latest
# checkpoint's size), which no schema can say: `from` > `to` is a 400 naming `from` (tests/ledger).
# A witness's cosignature or refusal is accepted only when its signature verifies under a registered
# witness key: generated text never does (tests/ledger/test_witnesses.py sends real and forged ones).
EXCLUDED = {
    label: [positive_data_acceptance]
    for label in (
        "POST /api/v1/lineage",
        "POST /api/v1/lineage/batch",
        "GET /api/v1/ledger/consistency",
        "POST /api/v1/ledger/cosignatures",
        "POST /api/v1/ledger/witness-alarms",
    )
}
FUZZ = settings(
    max_examples=EXAMPLES, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.fixture
def wsgi_app(db: Any) -> Any:
    """The project's WSGI app, called in-process inside the test's transaction (as Django's test
    client does, requests must not close the test's database connection)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_schema(graph: Any, wsgi_app: Any, read_token: str) -> Any:
    """The schema the app serves (fetched as a reader), over the app itself, on a known graph."""
    build_known_graph()
    return schemathesis.openapi.from_wsgi(
        "/api/v1/schema?format=json", wsgi_app, headers={"Authorization": f"Bearer {read_token}"}
    )


def _details(exc: BaseException) -> str:
    return "\n".join(str(inner) for inner in getattr(exc, "exceptions", ()))


def fuzzer(operation: Any, mode: GenerationMode, token: str) -> Any:
    """A Hypothesis test calling `operation` with `mode` input as the holder of `token`, checking each answer."""
    excluded = EXCLUDED.get(operation.label, [])

    @FUZZ
    @given(case=operation.as_strategy(generation_mode=mode))
    def call(case: Any) -> None:
        case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, excluded_checks=excluded)

    return call


def fuzz(api_schema: Any, token: str) -> list[str]:
    """Each operation, with valid and with invalid input, as the holder of `token`; what failed."""
    failed: list[str] = []
    for result in api_schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                fuzzer(operation, mode, token)()
            except (Exception, BaseExceptionGroup) as exc:  # every failure is reported, the run goes on
                failed.append(f"{operation.label} ({mode.value}): {exc}\n{_details(exc)}")
    return failed


def test_a_reader_never_gets_a_server_error_or_an_undocumented_answer(api_schema: Any, read_token: str) -> None:
    failed = fuzz(api_schema, read_token)
    assert not failed, "\n\n".join(failed)


def test_an_ingester_never_gets_a_server_error_or_an_undocumented_answer(api_schema: Any, ingest_token: str) -> None:
    failed = fuzz(api_schema, ingest_token)
    assert not failed, "\n\n".join(failed)


STATEFUL = settings(
    max_examples=2 * EXAMPLES,
    stateful_step_count=6,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def stateful(api_schema: Any, token: str) -> None:
    """Sequences of calls along the links schemathesis infers from the schema (an id one answer names, asked
    about next: today those from `column-lineage`, whose answer names `nodeId`)."""

    class Calls(api_schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": {"Authorization": f"Bearer {token}"}}

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any) -> None:
            # Every call carries the holder's real token (`get_call_kwargs`), so a step for which schemathesis
            # generated an invalid one is still answered 200; its "accepts invalid authentication" check can only
            # misfire here. Authentication is checked per endpoint in tests/explorer/test_read_api_access.py and
            # tests/test_route_audit.py.
            case.validate_response(
                response,
                additional_checks=additional_checks,
                transport_kwargs=kwargs or None,
                excluded_checks=[*EXCLUDED.get(case.operation.label, []), ignored_auth],
            )

    Calls.run(settings=STATEFUL)


def test_a_reader_following_links_never_gets_a_server_error_or_an_undocumented_answer(
    api_schema: Any, read_token: str
) -> None:
    stateful(api_schema, read_token)


def test_an_ingester_following_links_never_gets_a_server_error_or_an_undocumented_answer(
    api_schema: Any, ingest_token: str
) -> None:
    stateful(api_schema, ingest_token)


def test_accepted_duplicate_warned_and_rejected_events_are_answered_as_documented(
    api_schema: Any, ingest_token: str
) -> None:
    """Generated bodies are rarely events, so the success answers are checked here with real ones."""
    headers = {"Authorization": f"Bearer {ingest_token}"}
    event = run_event("START", run_id=new_run_id())
    warned = run_event("START", run_id=new_run_id(), run_facets={"custom": "not an object"})
    single = api_schema["/api/v1/lineage"]["POST"]
    answers = [
        single.Case(body=body, media_type="application/json").call_and_validate(headers=headers)
        for body in (event, event, warned)
    ]
    assert [a.status_code for a in answers] == [201, 200, 201]
    assert answers[2].json()["warnings"], answers[2].json()
    batch = api_schema["/api/v1/lineage/batch"]["POST"]
    fresh = run_event("COMPLETE", run_id=new_run_id())
    answer = batch.Case(
        body=[fresh, event, {"not": "an event"}, None], media_type="application/json"
    ).call_and_validate(headers=headers)
    receipt = answer.json()
    assert (receipt["status"], receipt["summary"]) == (
        "partial_success",
        {"received": 4, "successful": 2, "failed": 2, "retriable": 0, "non_retriable": 2},
    )
    assert [r["status"] for r in receipt["results"]] == ["accepted", "duplicate", "rejected", "rejected"]
