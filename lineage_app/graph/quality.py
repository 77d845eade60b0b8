"""Data-quality results as events carry them, and what they add up to (pure, no I/O).

Three facets say how good a dataset is: `dataQualityAssertions` (each check and whether it passed),
`dataQualityMetrics` (row count, bytes, per-column null and distinct counts; as a dataset facet or an
input facet) and the run facet `test` (TestRunFacet: test results of the run, not tied to a dataset,
so they count for the run's inputs, or for its outputs when it has none). See `docs/quality.md`.

Severity: a failed check whose severity is `warn` (or `warning`) warns; any other failed check
(severity `error`, or none sent) fails. A skipped test counts for nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# A dataset's (or one run's report's) quality status, worst first.
FAILING = "failing"
WARNING = "warning"
PASSING = "passing"
UNKNOWN = "unknown"
QUALITY_STATUSES = (FAILING, WARNING, PASSING, UNKNOWN)

# What one check came to.
PASSED = "passed"
FAILED = "failed"
WARNED = "warned"
SKIPPED = "skipped"
CHECK_OUTCOMES = (PASSED, FAILED, WARNED, SKIPPED)

# The facet a check came from: the dataset facet or the run facet.
FROM_ASSERTIONS = "dataQualityAssertions"
FROM_TESTS = "test"
CHECK_FACETS = (FROM_ASSERTIONS, FROM_TESTS)

_WARN_SEVERITIES = frozenset({"warn", "warning"})
_METRICS = ("rowCount", "bytes", "fileCount", "lastUpdated")
_COLUMN_METRICS = ("nullCount", "distinctCount", "count", "sum", "min", "max")
MAX_FAILURES_NAMED = 3  # failing checks a run's cause names before "and N more"


def _text(value: Any) -> str | None:
    """A producer's value as text (the spec types `actual` and `expected` as strings; some send numbers)."""
    if value is None or isinstance(value, dict | list):
        return None
    return str(value)


def _outcome(success: bool | None, severity: str | None) -> str:
    if success is None:
        return SKIPPED
    if success:
        return PASSED
    return WARNED if (severity or "").lower() in _WARN_SEVERITIES else FAILED


def _check(
    *, facet: str, name: Any, assertion: Any, column: Any, success: bool | None, item: Mapping[str, Any]
) -> dict[str, Any]:
    severity = _text(item.get("severity"))
    return {
        "facet": facet,
        "name": _text(name),
        "assertion": _text(assertion) or _text(name) or "",
        "column": _text(column) or None,
        "severity": severity,
        "outcome": _outcome(success, severity),
        "actual": _text(item.get("actual")),
        "expected": _text(item.get("expected")),
        "description": _text(item.get("description")),
    }


def _either(*found: Any) -> Mapping[str, Any] | None:
    """A quality facet as a dataset facet, else as an input facet (producers use both); a deletion is none."""
    return next((f for f in found if isinstance(f, dict) and f.get("_deleted") is not True), None)


def _assertions(dataset: Mapping[str, Any]) -> Mapping[str, Any] | None:
    facets, input_facets = dataset.get("facets") or {}, dataset.get("inputFacets") or {}
    return _either(facets.get("dataQualityAssertions"), input_facets.get("dataQualityAssertions"))


def dataset_checks(dataset: Mapping[str, Any], *, tests: Iterable[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """The checks an event reports on `dataset`: its `dataQualityAssertions`, then `tests` (the run's
    TestRunFacet results the event attributes to it), each normalised to one shape."""
    checks = [
        _check(
            facet=FROM_ASSERTIONS,
            name=item.get("name"),
            assertion=item.get("assertion"),
            column=item.get("column"),
            success=item.get("success") if isinstance(item.get("success"), bool) else None,
            item=item,
        )
        for item in (_assertions(dataset) or {}).get("assertions") or []
        if isinstance(item, dict)
    ]
    for item in tests:
        status = str(item.get("status") or "").lower()
        checks.append(
            _check(
                facet=FROM_TESTS,
                name=item.get("name"),
                assertion=item.get("type"),
                column=(item.get("params") or {}).get("column") if isinstance(item.get("params"), dict) else None,
                success=None if status not in ("pass", "fail") else status == "pass",
                item=item,
            )
        )
    return checks


def run_tests(run_facets: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The test results of a run's `test` facet (TestRunFacet), if it sent one."""
    facet = run_facets.get("test")
    if not isinstance(facet, dict) or facet.get("_deleted") is True:
        return []
    return [item for item in facet.get("tests") or [] if isinstance(item, dict)]


def tested_datasets(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The datasets a run event's TestRunFacet results count for: its inputs, else its outputs."""
    return list(payload.get("inputs") or payload.get("outputs") or [])


def event_checks(payload: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], list[dict[str, Any]]]]:
    """Each dataset a run event names with the checks it reports on it (none left out when it reports none)."""
    tests = run_tests((payload.get("run") or {}).get("facets") or {})
    tested = {id(dataset) for dataset in tested_datasets(payload)} if tests else set()
    found = []
    for dataset in [*(payload.get("inputs") or []), *(payload.get("outputs") or [])]:
        checks = dataset_checks(dataset, tests=tests if id(dataset) in tested else ())
        if checks:
            found.append((dataset, checks))
    return found


def dataset_metrics(dataset: Mapping[str, Any]) -> dict[str, Any] | None:
    """A dataset's `dataQualityMetrics` as one shape: table metrics and `columns` (name -> its metrics)."""
    facets, input_facets = dataset.get("facets") or {}, dataset.get("inputFacets") or {}
    facet = _either(facets.get("dataQualityMetrics"), input_facets.get("dataQualityMetrics"))
    if facet is None:
        return None
    found = facet.get("columnMetrics")
    columns: Mapping[str, Any] = found if isinstance(found, dict) else {}
    return {
        **{name: facet.get(name) for name in _METRICS},
        "columns": {
            str(column): {name: values.get(name) for name in _COLUMN_METRICS}
            for column, values in sorted(columns.items())
            if isinstance(values, dict)
        },
    }


def dataset_version(dataset: Mapping[str, Any]) -> str | None:
    """The dataset version an event names (`version` facet), if any."""
    facet = (dataset.get("facets") or {}).get("version")
    return _text(facet.get("datasetVersion")) if isinstance(facet, dict) else None


def checks_status(checks: Iterable[Mapping[str, Any]]) -> str:
    """What checks add up to: failing if one failed, else warning if one warned, else passing if one
    passed; unknown when none ran."""
    outcomes = {check["outcome"] for check in checks}
    if FAILED in outcomes:
        return FAILING
    if WARNED in outcomes:
        return WARNING
    return PASSING if PASSED in outcomes else UNKNOWN


def statuses_worst(statuses: Iterable[str | None]) -> str:
    """The worst of several statuses (each check suite's latest), unknown for none."""
    present = {status for status in statuses if status}
    return next((status for status in QUALITY_STATUSES if status in present), UNKNOWN)


def check_line(check: Mapping[str, Any]) -> str:
    """One check as a person reads it: `accepted_values on status: actual 3, expected 0`."""
    line = check["name"] or check["assertion"]
    if check["column"]:
        line += f" on {check['column']}"
    said = [f"{label} {check[label]}" for label in ("actual", "expected") if check[label] is not None]
    return f"{line}: {', '.join(said)}" if said else line


def failing_cause(failing: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """A run's cause from its failing checks, each with the dataset it tested (its name as sent)."""
    named = [f"{check_line(check)} ({dataset})" if dataset else check_line(check) for dataset, check in failing]
    cause = "failed check: " + "; ".join(named[:MAX_FAILURES_NAMED])
    if len(named) > MAX_FAILURES_NAMED:
        cause += f"; and {len(named) - MAX_FAILURES_NAMED} more"
    return cause
