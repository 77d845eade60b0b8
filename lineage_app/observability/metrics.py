"""Every Prometheus metric Tributary exports, defined once; ingest, graph and the middleware count into them.

Under gunicorn and Celery prefork each process writes its values to files in `PROMETHEUS_MULTIPROC_DIR`,
which the process answering a scrape adds up (`metrics_exposition`). docs/observability.md lists them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from prometheus_client import Counter, Histogram

# Seconds from the web's accept to the worker's apply: milliseconds when idle, minutes in a backlog.
APPLY_LAG_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
GRAPH_QUERY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

INGEST_EVENTS = Counter(
    "tributary_ingest_events",
    "Events posted to the ingest endpoints, by outcome (accepted, duplicate, rejected) and, when rejected, "
    "the error code; a body refused as a whole counts as one rejected event.",
    ["outcome", "reason"],
)
EVENTS_APPLIED = Counter("tributary_events_applied", "Events applied to the graph.")
EVENTS_FAILED = Counter("tributary_events_failed", "Events parked as failed: they cannot be applied (not an outage).")
CHANGE_CONSUMER_ERRORS = Counter(
    "tributary_change_consumer_errors",
    "Applied batches an optional consumer of their change records (alerts) failed on, by consumer; "
    "the events stay applied.",
    ["consumer"],
)
INCIDENTS_OPENED = Counter(
    "tributary_incidents_opened", "Incidents opened, by kind (run_failed, schema_breaking, …).", ["kind"]
)
EVENTS_QUARANTINED = Counter(
    "tributary_events_quarantined", "Events quarantined by an enforcing signature policy instead of being applied."
)
RUNS_SETTLED_LATE = Counter(
    "tributary_runs_settled_late",
    "Runs re-folded by a task retry or the sweeper because the worker that applied their events stopped first.",
)
APPLY_LAG_SECONDS = Histogram(
    "tributary_event_apply_lag_seconds",
    "Time from an event's acceptance (received_at) to its application to the graph.",
    buckets=APPLY_LAG_BUCKETS,
)
HTTP_REQUESTS = Counter(
    "tributary_http_requests",
    "HTTP requests answered, by route pattern, method and status.",
    ["route", "method", "status"],
)
HTTP_REQUEST_SECONDS = Histogram(
    "tributary_http_request_duration_seconds", "Time to answer an HTTP request, by route pattern.", ["route", "method"]
)
LOGIN_FAILURES = Counter(
    "tributary_login_failures",
    "Failed sign-ins (web UI and admin), by reason: invalid_credentials (a wrong username or password) or "
    "locked_out (refused, whatever the password, because the username or the address is locked out).",
    ["reason"],
)
LOGIN_LOCKOUTS = Counter(
    "tributary_login_lockouts",
    "Lockouts begun: a failed sign-in that reached LOGIN_FAILURE_LIMIT for its username or its address.",
)
API_THROTTLED = Counter(
    "tributary_api_throttled",
    "API requests refused with 429 because their token's rate limit was used up, by the token's scope.",
    ["scope"],
)
RATE_LIMIT_UNAVAILABLE = Counter(
    "tributary_rate_limit_unavailable",
    "Times Redis did not answer a rate-limit check: requests then went through uncounted for a few seconds.",
)
GRAPH_QUERY_SECONDS = Histogram(
    "tributary_graph_query_duration_seconds",
    "Time of one managed graph transaction (retries included), by kind (read or write).",
    ["kind"],
    buckets=GRAPH_QUERY_BUCKETS,
)
GRAPH_RETRIES = Counter(
    "tributary_graph_retries",
    "Graph work run again after a failure that may pass, by kind (read, write: the driver ran a managed "
    "transaction again; batch: a batch's write ran again after a constraint race; task: Celery retried an "
    "apply task after a transient failure the driver's own retries did not outlast) and reason (the "
    "failure's Neo4j code, last part, or its class).",
    ["kind", "reason"],
)
NOTIFY_DELIVERY_ATTEMPTS = Counter(
    "tributary_notify_delivery_attempts",
    "Tries at sending a notification, by destination kind and outcome (sent; failed: retried later; dead).",
    ["kind", "outcome"],
)


def retry_reason(exc: BaseException) -> str:
    """A failure as `GRAPH_RETRIES` labels it: the last part of a Neo4j status code
    (`Neo.TransientError.Transaction.DeadlockDetected`: `DeadlockDetected`), else the class name."""
    code = getattr(exc, "code", None)
    return code.rsplit(".", 1)[-1] if isinstance(code, str) and code else type(exc).__name__


def events_applied_record(*, received: Sequence[datetime], applied_at: datetime) -> None:
    """Count events applied at `applied_at` and how long each waited since it was received."""
    EVENTS_APPLIED.inc(len(received))
    for received_at in received:
        APPLY_LAG_SECONDS.observe(max(0.0, (applied_at - received_at).total_seconds()))
