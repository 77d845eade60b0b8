"""Listings read from the graph: namespaces, datasets, jobs, runs, failures and search, as plain rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import reads
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.failure_cause import DATA_QUALITY
from lineage_app.graph.model import Label, Moment, NodeRef
from lineage_app.graph.neighbourhoods import neighbour_keys
from lineage_app.graph.quality import statuses_worst
from lineage_app.graph.schema_fields import field_descriptions
from lineage_app.graph.traversal import application_actions, element_ids, job_applications, node_summaries

Rows = list[dict[str, Any]]


def _count(tx: ManagedTransaction, query: str, **params: Any) -> int:
    return int(records(tx, query, **params)[0]["count"])


def _in_order(rows: Rows, keys: list[str], field: str = "key") -> Rows:
    by_key = {row[field]: row for row in rows}
    return [by_key[key] for key in keys if key in by_key]


def namespace_page(*, limit: int, offset: int) -> tuple[int, Rows]:
    """How many namespaces there are, and one page of them by name with their dataset and job counts."""

    def work(tx: ManagedTransaction) -> tuple[int, Rows]:
        names = [row["name"] for row in records(tx, reads.NAMESPACE_PAGE, limit=limit, offset=offset)]
        counted = records(tx, reads.NAMESPACE_COUNTS, names=names) if names else []
        return _count(tx, reads.NAMESPACE_COUNT), _in_order(counted, names, "name")

    return graph_read(work)


def _summary_page(
    *,
    count_query: str,
    page_query: str,
    label: Label,
    namespace: str | None,
    q: str | None,
    limit: int,
    offset: int,
) -> tuple[int, Rows]:
    params = {"namespace": namespace, "q": q.lower() if q else None}

    def work(tx: ManagedTransaction) -> tuple[int, Rows]:
        keys = [row["key"] for row in records(tx, page_query, limit=limit, offset=offset, **params)]
        rows = node_summaries(tx, label=label, keys=keys) if keys else []
        return _count(tx, count_query, **params), _in_order(rows, keys)

    return graph_read(work)


def neighbour_page(
    *, hub: NodeRef, direction: str, moment: Moment, namespace: str | None, q: str | None, after: str, limit: int
) -> tuple[Label, Rows]:
    """One page of `hub`'s neighbours one hop `direction`-wards (`neighbourhoods.neighbour_keys`), with their
    summaries, and their label."""

    def work(tx: ManagedTransaction) -> tuple[Label, Rows]:
        label, keys = neighbour_keys(
            tx, hub=hub, direction=direction, moment=moment, namespace=namespace, q=q, after=after, limit=limit
        )
        return label, _in_order(node_summaries(tx, label=label, keys=keys) if keys else [], keys)

    return graph_read(work)


def dataset_page(*, namespace: str | None, q: str | None, limit: int, offset: int) -> tuple[int, Rows]:
    """Datasets by namespace and name (optionally in one namespace, or whose name contains `q`)."""
    return _summary_page(
        count_query=reads.DATASET_COUNT,
        page_query=reads.DATASET_PAGE,
        label=Label.DATASET,
        namespace=namespace,
        q=q,
        limit=limit,
        offset=offset,
    )


def job_page(*, namespace: str | None, q: str | None, limit: int, offset: int) -> tuple[int, Rows]:
    """Jobs by namespace and name (optionally in one namespace, or whose name contains `q`)."""
    return _summary_page(
        count_query=reads.JOB_COUNT,
        page_query=reads.JOB_PAGE,
        label=Label.JOB,
        namespace=namespace,
        q=q,
        limit=limit,
        offset=offset,
    )


def dataset_find(*, key: str, last_runs: int, write_statistics: int) -> dict[str, Any] | None:
    """A dataset's node, fields, schema versions, owners, producers, consumers, latest writing runs and
    what the latest `write_statistics` runs that reported it wrote (rows, bytes, files)."""

    def work(tx: ManagedTransaction) -> dict[str, Any] | None:
        nodes = records(tx, reads.DATASET_NODE, key=key)
        if not nodes:
            return None
        return {
            **nodes[0],
            "fields": records(tx, reads.DATASET_FIELDS, key=key),
            "versions": records(tx, reads.DATASET_VERSIONS, key=key),
            "owners": records(tx, reads.DATASET_OWNERS, key=key),
            "producers": records(tx, reads.DATASET_PRODUCERS, key=key),
            "consumers": records(tx, reads.DATASET_CONSUMERS, key=key),
            "lastRuns": records(tx, reads.DATASET_LAST_RUNS, key=key, limit=last_runs),
            "writeStatistics": records(tx, reads.DATASET_WRITE_STATISTICS, key=key, limit=write_statistics),
        }

    return graph_read(work)


def dataset_quality_page(*, key: str, limit: int, offset: int) -> tuple[int, Rows]:
    """A dataset's data-quality reports (`graph.quality`), one per run that checked or measured it, newest first."""

    def work(tx: ManagedTransaction) -> tuple[int, Rows]:
        page = records(tx, reads.DATASET_QUALITY_HISTORY, key=key, limit=limit, offset=offset)
        return _count(tx, reads.DATASET_QUALITY_COUNT, key=key), page

    return graph_read(work)


def dataset_quality_statuses(*, keys: list[str]) -> dict[str, str]:
    """The current data-quality status of each dataset of `keys` that was ever checked: the worst of the
    latest checks of each job that checks it (`graph.quality.statuses_worst`)."""
    if not keys:
        return {}
    rows = graph_read(lambda tx: records(tx, reads.DATASET_QUALITY_STATUSES, keys=keys))
    return {row["key"]: statuses_worst(row["statuses"]) for row in rows}


def job_output_subsets(*, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
    """The last part (a partition) each job of `pairs` ((job key, dataset key)) wrote of the dataset, with when,
    for the pairs whose writes named one."""
    if not pairs:
        return {}
    rows = [{"job": job, "dataset": dataset} for job, dataset in pairs]
    found = graph_read(lambda tx: records(tx, reads.JOB_OUTPUT_SUBSETS, rows=rows))[0]["rows"]
    return {(job, dataset): (subset, at) for job, dataset, subset, at in found}


def dataset_version_fields(*, key: str, versions: list[str]) -> dict[str, list[tuple[str, str]]]:
    """The flattened `(name, type)` fields of each of a dataset's `versions` that exists."""
    rows = graph_read(lambda tx: records(tx, reads.DATASET_VERSION_FIELDS, key=key, versions=versions))
    return {row["version"]: list(zip(row["fieldNames"], row["fieldTypes"], strict=True)) for row in rows}


def job_find(*, key: str) -> dict[str, Any] | None:
    """A job's node with its inputs, outputs and latest run (by start), or None; an application job
    also with its action jobs' keys (`actions`, nested ones too) and their inputs and outputs
    (`actionIo`); an action job with its outermost application's key (`application`)."""

    def work(tx: ManagedTransaction) -> dict[str, Any] | None:
        nodes = records(tx, reads.JOB_NODE, key=key)
        if not nodes:
            return None
        latest = records(tx, reads.JOB_RUN_PAGE, key=key, limit=1, offset=0)
        ref = (Label.JOB, key)
        actions = sorted(action for _, action in application_actions(tx, application=ref))
        application = job_applications(tx, jobs=element_ids(tx, [ref])).get(ref)
        return {
            **nodes[0],
            "latestRun": latest[0] if latest else None,
            "actions": actions,
            "actionIo": records(tx, reads.JOB_IO, keys=actions) if actions else [],
            "application": application[0][1] if application else None,
            "dependencies": records(tx, reads.JOB_DEPENDENCIES, key=key)[0],
        }

    return graph_read(work)


def job_run_page(*, key: str, limit: int, offset: int) -> tuple[int, Rows]:
    """A job's runs, newest start first."""

    def work(tx: ManagedTransaction) -> tuple[int, Rows]:
        page = records(tx, reads.JOB_RUN_PAGE, key=key, limit=limit, offset=offset)
        return _count(tx, reads.JOB_RUN_COUNT, key=key), page

    return graph_read(work)


def run_step_kinds(*, run_ids: Sequence[str]) -> dict[str, Rows]:
    """The kinds of step each of `run_ids` ran (its child runs' jobs' integration and job type, with how many
    child runs of each), by run id; a run with no children is left out."""
    if not run_ids:
        return {}
    found: dict[str, Rows] = {}
    for row in graph_read(lambda tx: records(tx, reads.RUN_STEP_KINDS, runIds=list(run_ids))):
        found.setdefault(row.pop("runId"), []).append(row)
    return found


def _with_children(tx: ManagedTransaction, rows: Rows, states: Sequence[str]) -> Rows:
    """Each failure row with `children`: its failed child (action) runs, the first to end first."""
    run_ids = [row["runId"] for row in rows]
    found: dict[str, Rows] = {}
    for child in records(tx, reads.FAILURE_CHILDREN, runIds=run_ids, states=states) if run_ids else []:
        found.setdefault(child.pop("parentRunId"), []).append(child)
    for row in rows:
        row["children"] = sorted(found.get(row["runId"], []), key=lambda child: (child["at"], child["runId"]))
    return rows


def _failure_params(
    *,
    states: Sequence[str],
    namespace: str | None,
    job_key: str | None,
    classification: str | None,
    since: str | None,
    until: str | None,
) -> dict[str, Any]:
    return {
        "states": states,
        "namespace": namespace,
        "jobKey": job_key,
        "classification": classification,
        "since": since,
        "until": until,
    }


def failure_page(
    *,
    states: Sequence[str],
    namespace: str | None,
    job_key: str | None,
    classification: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    offset: int,
) -> tuple[int, Rows]:
    """Failed / aborted runs, newest end first, filtered by job namespace, job, classification and end time;
    each with its failed child runs (`children`)."""
    params = _failure_params(
        states=states, namespace=namespace, job_key=job_key, classification=classification, since=since, until=until
    )

    def work(tx: ManagedTransaction) -> tuple[int, Rows]:
        run_ids = [row["runId"] for row in records(tx, reads.FAILURE_PAGE, limit=limit, offset=offset, **params)]
        rows = records(tx, reads.FAILURE_DETAILS, runIds=run_ids) if run_ids else []
        rows = _with_children(tx, _in_order(rows, run_ids, "runId"), states)
        return _count(tx, reads.FAILURE_COUNT, **params), rows

    return graph_read(work)


STREAK_PAGE = 50  # runs read per round trip while following a streak of failures


def _streak(tx: ManagedTransaction, *, key: str, states: Sequence[str], limit: int) -> dict[str, Any]:
    """A job's latest runs that failed, newest first, up to the first that did not (at most `limit`)."""
    failed: Rows = []
    latest_state: str | None = None
    while len(failed) < limit:
        size = min(STREAK_PAGE, limit - len(failed))
        page = records(tx, reads.JOB_RUN_PAGE, key=key, limit=size, offset=len(failed))
        if latest_state is None and page:
            latest_state = page[0]["state"]
        for run in page:
            if run["state"] not in states and run["classification"] != DATA_QUALITY:
                return {"runs": failed, "latestState": latest_state, "capped": False}
            failed.append(run)
        if len(page) < size:
            return {"runs": failed, "latestState": latest_state, "capped": False}
    return {"runs": failed, "latestState": latest_state, "capped": True}


def failure_job_page(
    *,
    states: Sequence[str],
    namespace: str | None,
    job_key: str | None,
    classification: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    offset: int,
    streak_limit: int,
) -> tuple[int, Rows]:
    """Jobs with a matching failure, the latest failure first (a child run whose parent run failed
    too counts under the parent's job). Each group has `lastFailure` (a `failure_page` row) and
    `streak` (its current run of failures, newest first, at most `streak_limit` runs)."""
    params = _failure_params(
        states=states, namespace=namespace, job_key=job_key, classification=classification, since=since, until=until
    )

    def work(tx: ManagedTransaction) -> tuple[int, Rows]:
        groups = records(tx, reads.FAILURE_JOB_PAGE, limit=limit, offset=offset, **params)
        pairs = [{"key": group["key"], "at": group["lastAt"]} for group in groups]
        last = {
            row["key"]: row["runId"]
            for row in (records(tx, reads.FAILURE_JOB_LAST, groups=pairs, states=states) if pairs else [])
        }
        details = records(tx, reads.FAILURE_DETAILS, runIds=list(last.values())) if last else []
        by_run = {row["runId"]: row for row in _with_children(tx, details, states)}
        for group in groups:
            group["lastFailure"] = by_run.get(last.get(group["key"], ""))
            group["streak"] = _streak(tx, key=group["key"], states=states, limit=streak_limit)
        return _count(tx, reads.FAILURE_JOB_COUNT, **params), groups

    return graph_read(work)


def search_tier_rows(*, q: str, rank: int, labels: list[Label], aliases: bool, limit: int, window: int) -> Rows:
    """The best `limit` nodes of each of `labels` whose name matches `q` in tier `rank` (`reads.SEARCH_TIERS`: exact,
    prefix, substring), ranking at most `window` matches of each; with `aliases`, also the datasets one of whose
    aliases does (`alias`: the least such). Each row has its `rank` and label."""

    def work(tx: ManagedTransaction) -> Rows:
        params = {"q": q.lower(), "limit": limit, "window": window}
        found: Rows = []
        for label in labels:
            found.extend({**row, "label": label} for row in records(tx, reads.SEARCH[label][rank], **params))
        if aliases:
            rows = records(tx, reads.SEARCH_DATASET_ALIASES[rank], **params)
            found.extend({**row, "label": Label.DATASET} for row in rows)
        return found

    return graph_read(work)


def job_search_details(*, jobs: dict[str, str]) -> dict[str, tuple[int, str | None]]:
    """For each job of `jobs` (key: element id), how many action jobs it is the application of and the key of the
    application it is part of (or None)."""

    def work(tx: ManagedTransaction) -> dict[str, tuple[int, str | None]]:
        counts: dict[str, set[str]] = {}
        for row in records(tx, reads.APPLICATION_ACTIONS, keys=sorted(jobs))[0]["rows"]:
            counts.setdefault(row["application"], set()).add(row["job"])
        applications = job_applications(tx, jobs={(Label.JOB, key): element for key, element in jobs.items()})
        found = {}
        for key in jobs:
            application = applications.get((Label.JOB, key))
            found[key] = (len(counts.get(key, ())), application[0][1] if application else None)
        return found

    return graph_read(work)


def run_search_row(*, run_id: str) -> dict[str, Any] | None:
    """The run whose id is `run_id` (lower case), with its job's id, namespace and name; None when there is none."""
    found = graph_read(lambda tx: records(tx, reads.SEARCH_RUN, runId=run_id))
    return found[0] if found else None


def tagged_search_rows(*, q: str, labels: list[Label], limit: int) -> Rows:
    """Up to `limit` datasets, jobs and runs of each of `labels` whose facets carry a tag containing `q` now
    (`reads.SEARCH_TAGGED`, which leaves out the tags later events dropped before its limit), best first, each once
    with its best-matching tag (`tag`) and that tag's rank (the tag, its key or its value exact, a prefix, inside)."""

    def work(tx: ManagedTransaction) -> Rows:
        found: Rows = []
        for label in labels:
            if label in reads.SEARCH_TAGGED:
                rows = records(tx, reads.SEARCH_TAGGED[label], q=q.lower(), limit=limit)
                found.extend({**row, "label": label} for row in rows)
        return found

    return graph_read(work)


def dataset_field_descriptions(*, keys: list[str]) -> dict[str, dict[str, str]]:
    """Each field's description (`schema_fields.field_descriptions`) of each of the datasets `keys`, by key."""
    versions: dict[str, Rows] = {}
    for row in graph_read(lambda tx: records(tx, reads.DATASET_FIELD_DESCRIPTIONS, keys=keys)):
        versions.setdefault(row.pop("key"), []).append(row)
    return {key: field_descriptions(found) for key, found in versions.items()}


def dataset_alias_resolve(*, candidate_keys: list[str]) -> str | None:
    """The key of the canonical dataset one of `candidate_keys` (a spelling, or its normalised key) names."""
    found = graph_read(lambda tx: records(tx, reads.DATASET_ALIAS_RESOLVE, keys=candidate_keys))
    return found[0]["key"] if found else None


def dataset_aliases(*, key: str) -> Rows:
    """The other names of a dataset, each with who named it so first (event, producer, job)."""
    return graph_read(lambda tx: records(tx, reads.DATASET_ALIASES, key=key))


def near_miss_facts(*, key: str, name: str, limit: int) -> dict[str, Any]:
    """A dataset's names, the datasets one job away, and the datasets that share its name elsewhere."""

    def work(tx: ManagedTransaction) -> dict[str, Any]:
        node = records(tx, reads.NEAR_MISS_DATASET, key=key)[0]
        return {
            **node,
            "aliases": [
                (alias["namespace"], alias["name"]) for alias in node["aliases"] if alias["namespace"] is not None
            ],
            "neighbours": records(tx, reads.NEAR_MISS_NEIGHBOURS, key=key, limit=limit),
            "sameName": records(tx, reads.NEAR_MISS_SAME_NAME, key=key, name=name, limit=limit),
        }

    return graph_read(work)


def runs_io(*, run_ids: list[str]) -> dict[str, dict[str, Any]]:
    """What each run read and wrote (datasets as {id, namespace, name}) and its child runs, by run id."""

    def dataset(values: list[Any]) -> dict[str, Any]:
        return {"id": values[0], "namespace": values[1], "name": values[2]}

    rows = graph_read(lambda tx: records(tx, reads.RUNS_IO, runIds=run_ids))
    return {
        row["runId"]: {
            "reads": [dataset(d) for d in row["reads"] if d[0] is not None],
            "writes": [dataset(d) for d in row["writes"] if d[0] is not None],
            "children": sorted(row["children"]),
        }
        for row in rows
    }


def previous_completed_runs(*, job_key: str, before: str, limit: int) -> Rows:
    """The job's latest `limit` completed runs ordered before `before` (a completed-run order key), newest first:
    {runId, endedAt}."""
    return graph_read(lambda tx: records(tx, reads.PREVIOUS_COMPLETED_RUNS, jobKey=job_key, before=before, limit=limit))


def dataset_version_history(*, keys: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each dataset's schema versions, first seen earliest first, with their (name, type) fields."""
    found: dict[str, list[dict[str, Any]]] = {key: [] for key in keys}
    rows = graph_read(lambda tx: records(tx, reads.DATASET_VERSION_HISTORY, keys=keys))
    for key, version, first_seen, names, types in rows[0]["rows"] if rows else []:
        found[key].append({"version": version, "firstSeen": first_seen, "fields": list(zip(names, types, strict=True))})
    for versions in found.values():
        versions.sort(key=lambda v: (v["firstSeen"] or "", v["version"]))
    return found
