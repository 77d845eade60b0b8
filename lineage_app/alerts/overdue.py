"""Alerts the clock raises, not an applied batch (beat's `alerts.tasks.check_overdue`, every 5 minutes): jobs
that missed their deadline, streaming queries that stopped reporting, and the ledger's gaps left open past a
grace and its forks. Each resolves itself once what was missing arrives."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from lineage_app.alerts.cadence import cadence_of, declared_missed
from lineage_app.alerts.models import Deadline, Incident, LedgerReported, Rule
from lineage_app.alerts.selectors import OPEN_STATES, blast_radius, incident_open_for, job_completions, rules_by_kind
from lineage_app.alerts.services import (
    downstream_depth,
    incident_open,
    incident_repeat,
    incident_resolve,
    rule_covers,
)
from lineage_app.graph.model import Label, NodeType, natural_key
from lineage_app.graph.node_ids import node_id
from lineage_app.ingest.selectors import events_jobs, jobs_newest_runs, run_streaming_latest, streaming_silence
from lineage_app.instants import utc_text
from lineage_app.ledger.selectors import LedgerProblem, ledger_evidence, ledger_problems, streams_troubled

# A streaming run silent for longer than this when first checked (beat was down) is not reported.
STALL_LOOKBACK = timedelta(days=1)
STREAM_ROOT = "stream:"  # a ledger incident's root: `stream:<keyId>/<instance>`


def overdue_check(*, now: datetime) -> int:
    """Every clock-raised trigger at `now`; how many jobs are late, streams stalled and ledger problems new."""
    return deadlines_check(now=now) + streams_check(now=now) + ledger_check(now=now)


def deadlines_check(*, now: datetime) -> int:
    """Open a `deadline_missed` incident for each job late at `now`: against its declared deadline (`Deadline`)
    if it has one, else against the cadence learned from its completions (plus a grace); how many jobs are
    late. An irregular job with no declared deadline is never late. With the `recovered` rule on, resolve the
    open incident of a job on time again by its deadline (apply resolves it when the job completes, but not
    after a deadline was relaxed, nor when the completion came while this check was opening it)."""
    rules = rules_by_kind()
    rule = rules[Rule.Kind.DEADLINE_MISSED]
    if not rule.enabled:
        return 0
    late = 0
    on_time: dict[str, datetime | None] = {}  # job node id -> its last completion
    completions = job_completions(since=now - timedelta(days=settings.ALERTS_CADENCE_DAYS))
    declared = {(d.job_namespace, d.job_name): d for d in Deadline.objects.all()}
    for namespace, name in sorted({*completions, *declared}):
        ends = completions.get((namespace, name), [])
        cause = (
            _declared_cause(declared[(namespace, name)], ends, now)
            if (namespace, name) in declared
            else _learned_cause(ends, now)
        )
        if cause is None:
            if (namespace, name) in declared or cadence_of(ends) is not None:  # not merely irregular
                on_time[node_id(NodeType.JOB, namespace, name)] = ends[-1] if ends else None
            continue
        late += 1
        _job_incident(
            rule,
            namespace,
            name,
            run_id="",
            repeated="",
            title=f"{namespace}/{name} missed its deadline",
            cause=cause,
            classification="late",
        )
    if rules[Rule.Kind.RECOVERED].enabled:
        for incident in Incident.objects.filter(kind=Rule.Kind.DEADLINE_MISSED, state__in=OPEN_STATES):
            if incident.root not in on_time:
                continue  # still late, or no longer judged (irregular now, or gone quiet for the whole history)
            last = on_time[incident.root]
            completed = f"last completed {utc_text(last)}" if last else "no completion due yet"
            incident_resolve(incident=incident, actor="", reason=f"recovered: on time by its deadline, {completed}")
    return late


def _job_incident(
    rule: Rule, namespace: str, name: str, *, run_id: str, repeated: str, title: str, cause: str, classification: str
) -> None:
    """A job's clock-raised problem: a repeat of its open incident of the rule's kind (`repeated` on the
    timeline), else a new one with the job's blast radius downstream, if the rule's scope covers it."""
    job = node_id(NodeType.JOB, namespace, name)
    if rule.namespaces and namespace not in rule.namespaces:
        return  # before the graph is read
    if incident_repeat(rule.kind, job, run_id=run_id, text=repeated):
        return
    blast = blast_radius(roots=[(Label.JOB, natural_key(namespace, name))], depth=downstream_depth())
    if rule_covers(rule, namespace, blast):
        incident_open(
            kind=rule.kind,
            root=job,
            title=title,
            cause=cause,
            classification=classification,
            run_id=run_id,
            blast=blast,
        )


def _learned_cause(ends: list[datetime], now: datetime) -> str | None:
    """Why a job is late against its learned cadence, or None (on time, or irregular)."""
    cadence = cadence_of(ends)
    grace = settings.ALERTS_DEADLINE_GRACE
    if cadence is None or now <= cadence.due(grace_fraction=grace):
        return None
    return (
        f"runs every {cadence.every}; last completed {cadence.last.isoformat()}, "
        f"due by {cadence.due(grace_fraction=grace).isoformat()} with its grace"
    )


def _declared_cause(deadline: Deadline, ends: list[datetime], now: datetime) -> str | None:
    """Why a job is late against its declared deadline, or None (on time)."""
    last = ends[-1] if ends else None
    missed = declared_missed(
        now=now,
        last=last,
        declared_at=deadline.created_at,
        expected_by=deadline.expected_by,
        every=timedelta(minutes=deadline.every_minutes) if deadline.every_minutes else None,
        grace=timedelta(minutes=deadline.grace_minutes),
    )
    if missed is None:
        return None
    declared = (
        f"expected by {deadline.expected_by:%H:%M} UTC daily"
        if deadline.expected_by is not None
        else f"expected every {deadline.every_minutes} min"
    )
    completed = f"last completed {last.isoformat()}" if last else "no completion on record"
    return f"declared deadline: {declared}; {completed}, due by {missed.isoformat()}"


def streams_check(*, now: datetime) -> int:
    """Open a `stream_stalled` incident for each job whose newest run is a streaming query not ended and silent
    for `STREAMING_STALL_INTERVALS` of its progress intervals and at least `ALERTS_STREAM_STALL_MINUTES`;
    resolve those whose job reported again (or ended); how many streams are stalled."""
    rule = rules_by_kind()[Rule.Kind.STREAM_STALLED]
    if not rule.enabled:
        return 0
    newest = jobs_newest_runs(since=now - STALL_LOOKBACK)
    floor = timedelta(minutes=settings.ALERTS_STREAM_STALL_MINUTES)
    quiet = {job: run for job, run in newest.items() if not run.ended and now - run.last >= floor}
    latest = run_streaming_latest(run_ids=[run.run_id for run in quiet.values()])
    stalled: set[str] = set()
    for (namespace, name), run in sorted(quiet.items()):
        entry = latest.get(run.run_id)
        silence = streaming_silence(latest=entry, now=now) if entry else None
        if entry is None or silence is None:
            continue
        job = node_id(NodeType.JOB, namespace, name)
        stalled.add(job)
        facet = entry["facet"]
        said = f"last reported {utc_text(entry['eventTime'])} (batch {facet.get('batchId', 'none')})"
        _job_incident(
            rule,
            namespace,
            name,
            run_id=run.run_id,
            repeated=f"still silent: {said}",
            title=f"{namespace}/{name} stalled: no progress for {_minutes(silence)}",
            cause=f"streaming query {facet.get('queryName') or facet.get('queryId') or run.run_id} (run {run.run_id}) "
            f"{said}; it reports every {facet['intervalSeconds']} s",
            classification="stalled",
        )
    by_node = {node_id(NodeType.JOB, namespace, name): run for (namespace, name), run in newest.items()}
    for incident in Incident.objects.filter(kind=Rule.Kind.STREAM_STALLED, state__in=OPEN_STATES):
        now_run = by_node.get(incident.root)
        if incident.root in stalled or now_run is None:
            continue  # still stalled, or silent for longer than the look-back: still open
        how = "ended" if now_run.ended else "reported again"
        incident_resolve(
            incident=incident, actor="", reason=f"recovered: run {now_run.run_id} {how} at {utc_text(now_run.last)}"
        )
    return len(stalled)


def ledger_check(*, now: datetime) -> int:
    """Open (or add to) a `verification` incident per signed stream for each fork and each gap still open
    `ALERTS_LEDGER_GAP_GRACE_MINUTES` after it was noticed, naming each once; resolve a stream's incident
    once its gaps filled and it has no fork; how many problems were new."""
    rule = rules_by_kind()[Rule.Kind.VERIFICATION]
    if not rule.enabled:
        return 0
    grace = timedelta(minutes=settings.ALERTS_LEDGER_GAP_GRACE_MINUTES)
    problems = ledger_problems(gaps_noticed_before=now - grace)
    reported = set(
        LedgerReported.objects.filter(stream__in={p.stream for p in problems}).values_list("stream", "problem", "mark")
    )
    fresh = [p for p in problems if (p.stream, p.kind, _mark(p)) not in reported]
    # Read for all at once: one out of the rule's scope is never named, so every check reads it again.
    evidence = ledger_evidence(problems=fresh)
    job_of = events_jobs(content_hashes=[h for hashes in evidence.values() for h in hashes])
    new = 0
    for problem in fresh:
        jobs = sorted({job_of[h] for h in evidence[problem] if h in job_of})
        incident = _ledger_incident(problem, rule, jobs)
        if incident is not None:
            LedgerReported.objects.get_or_create(
                stream=problem.stream, problem=problem.kind, mark=_mark(problem), defaults={"incident": incident}
            )
            new += 1
    open_ = list(
        Incident.objects.filter(kind=Rule.Kind.VERIFICATION, state__in=OPEN_STATES, root__startswith=STREAM_ROOT)
    )
    troubled = streams_troubled(streams=[i.root.removeprefix(STREAM_ROOT) for i in open_])
    for incident in open_:
        if incident.root.removeprefix(STREAM_ROOT) not in troubled:
            incident_resolve(incident=incident, actor="", reason="recovered: the stream's missing events arrived")
    return new


def _ledger_incident(problem: LedgerProblem, rule: Rule, jobs: list[tuple[str, str]]) -> Incident | None:
    """The incident `problem` (whose events are of `jobs`) opened or was added to, or None when the rule's scope
    leaves it out."""
    root = f"{STREAM_ROOT}{problem.stream}"
    if problem.kind == "gap":
        what = (
            f"seq {problem.first} missing"
            if problem.first == problem.last
            else (f"seqs {problem.first} to {problem.last} missing")
        )
    else:
        what = f"seq {problem.first} forked: two different signed events claim it"
    text = f"{what} in stream {problem.stream} of producer {problem.producer} (noticed {utc_text(problem.noticed_at)})"
    if rule.namespaces and not {namespace for namespace, _ in jobs} & set(rule.namespaces):
        return None
    if incident_repeat(Rule.Kind.VERIFICATION, root, run_id="", text=text):
        return incident_open_for(kind=Rule.Kind.VERIFICATION, root=root)
    blast = blast_radius(roots=[(Label.JOB, natural_key(ns, name)) for ns, name in jobs], depth=0)
    if rule.owners and not set(rule.owners) & set(blast.owned):
        return None
    title = "fork" if problem.kind == "fork" else "gap"
    return incident_open(
        kind=Rule.Kind.VERIFICATION,
        root=root,
        title=f"Ledger {title} in {problem.producer}'s signed stream: {what}",
        cause=text,
        classification=f"ledger_{problem.kind}",
        run_id="",
        blast=blast,
    )


def _mark(problem: LedgerProblem) -> str:
    return utc_text(problem.noticed_at) if problem.kind == "gap" else str(problem.first)


def _minutes(span: timedelta) -> str:
    return f"{int(span.total_seconds() // 60)} min"
