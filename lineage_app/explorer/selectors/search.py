"""Search: datasets (by any of their names), jobs, fields and runs, found by name, run id, tag or owner; best
match first, each hit saying why it matched."""

from __future__ import annotations

import re
from typing import Any

from lineage_app.graph import listings
from lineage_app.graph.model import API_TYPES, Label, NodeType, natural_key
from lineage_app.graph.node_ids import node_id, node_ref_id
from lineage_app.graph.ownership import owned_search_rows
from lineage_app.graph.reads import SEARCH_RANKS

SEARCH_TYPES = {"dataset": Label.DATASET, "job": Label.JOB, "field": Label.FIELD, "run": Label.RUN}
# What a hit matched: its name, another name of its dataset, its run id, one of its tags, one of its owners.
MATCH_KINDS = ("name", "alias", "runId", "tag", "owner")
# `tag:pii` and `owner:alice` search only tags or only owners; `run:<uuid>` is a run's node id.
_PREFIXES = {"tag:": "tag", "owner:": "owner", "run:": "runId"}
# At most this many matches of a tier are ranked (`graph.reads.SEARCH_TIERS`): what a broad name costs at most.
SEARCH_WINDOW = 1_000
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def node_search(*, q: str, types: list[str], limit: int) -> dict[str, Any]:
    """Datasets, jobs, fields and runs that `q` names, best first: an exact run id alone; otherwise names
    (exact, then prefix, then substring, shorter first), tags and owners, case-insensitive. `tag:`,
    `owner:` or `run:` before the text searches only that. Names are searched tier by tier and no further
    than the tier that fills the page, so matches are not counted: `more` says whether there is at least one
    more than the `limit` answered."""
    text, only = _scope(q.strip())
    if only == "runId" or (only is None and _UUID.match(text.lower())):
        return {"results": _run_hits(run_id=text.lower(), types=types), "more": False}
    labels = [SEARCH_TYPES[t] for t in types]
    wanted = limit + 1  # one past the page: whether there are more
    best: dict[str, dict[str, Any]] = {}  # each node once, by its best match
    if only in (None, "tag") and text:
        _keep_best(best, _tag_rows(q=text, labels=labels, limit=wanted))
    if only in (None, "owner") and text:
        _keep_best(best, _owner_rows(q=text, labels=labels, limit=wanted))
    if only is None:
        for rank in range(len(SEARCH_RANKS)):
            _keep_best(best, _name_rows(q=text, rank=rank, labels=labels, limit=wanted))
            if sum(row["rank"] <= rank for row in best.values()) >= wanted:
                break  # every match of a later tier ranks after these
    ranked = sorted(best.values(), key=_order)
    hits = ranked[:limit]
    _job_details([row for row in hits if row["label"] is Label.JOB and row["matched"]["by"] == "name"])
    descriptions = _field_descriptions([row for row in hits if row["label"] is Label.FIELD])
    return {"results": [_hit(row, descriptions) for row in hits], "more": len(ranked) > limit}


def _keep_best(best: dict[str, dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    for row in rows:
        if row["id"] not in best or _order(row) < _order(best[row["id"]]):
            best[row["id"]] = row


def _scope(q: str) -> tuple[str, str | None]:
    for prefix, kind in _PREFIXES.items():
        if q.lower().startswith(prefix):
            return q[len(prefix) :].strip(), kind
    return q, None


def _order(row: dict[str, Any]) -> tuple[int, int, int, str]:
    """Best first: rank (exact, prefix, substring), then a name match before a tag or owner match, shorter names."""
    return row["rank"], MATCH_KINDS.index(row["matched"]["by"]), len(row["name"] or ""), row["id"]


def _name_rows(*, q: str, rank: int, labels: list[Label], limit: int) -> list[dict[str, Any]]:
    """The nodes whose name matches `q` in tier `rank`; a dataset is found by any of its names."""
    named: list[Label] = [label for label in labels if label is not Label.RUN]
    rows = listings.search_tier_rows(
        q=q, rank=rank, labels=named, aliases=Label.DATASET in labels, limit=limit, window=max(SEARCH_WINDOW, limit)
    )
    return [
        {**row, "matched": {"by": "alias" if "alias" in row else "name", "text": row.get("alias", row["name"])}}
        for row in rows
    ]


def _job_details(jobs: list[dict[str, Any]]) -> None:
    """Give each job row of the page how many actions it is the application of and the application it is part of."""
    if not jobs:
        return
    details = listings.job_search_details(jobs={row["key"]: row["elementId"] for row in jobs})
    for row in jobs:
        row["actionCount"], row["application"] = details[row["key"]]


def _tag_rows(*, q: str, labels: list[Label], limit: int) -> list[dict[str, Any]]:
    """Nodes whose facets carry a tag whose key, value or `key:value` contains `q` now, each once, by its best such
    tag."""
    return [
        {**row, "matched": {"by": "tag", "text": row["tag"]}}
        for row in listings.tagged_search_rows(q=q.lower(), labels=labels, limit=limit)
    ]


def _owner_rows(*, q: str, labels: list[Label], limit: int) -> list[dict[str, Any]]:
    """Datasets and jobs that an owner whose name contains `q` effectively owns (hand-set owners win over the
    ones events named, as everywhere), each once, by its best-matching owner."""
    return [
        {**row, "matched": {"by": "owner", "text": row["owner"]}}
        for row in owned_search_rows(q=q, labels=labels, limit=limit)
    ]


def _run_hits(*, run_id: str, types: list[str]) -> list[dict[str, Any]]:
    found = listings.run_search_row(run_id=run_id) if "run" in types else None
    if found is None:
        return []
    return [_hit({**found, "label": Label.RUN, "matched": {"by": "runId", "text": found["runId"]}}, {})]


def _field_descriptions(fields: list[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    """The description each field's dataset's schema gives it (`schema_fields.field_descriptions`, as the dataset
    page shows it), by (namespace, dataset, field)."""
    keys = sorted({natural_key(row["namespace"], row["dataset"]) for row in fields})
    described = listings.dataset_field_descriptions(keys=keys) if keys else {}
    found = {}
    for row in fields:
        description = described.get(natural_key(row["namespace"], row["dataset"]), {}).get(row["name"])
        if description:
            found[row["namespace"], row["dataset"], row["name"]] = description
    return found


def _hit(row: dict[str, Any], descriptions: dict[tuple[str, str, str], str]) -> dict[str, Any]:
    label = row["label"]
    item = {
        "id": row["id"],
        "type": API_TYPES[label],
        "namespace": row["namespace"] or "",
        "name": row["name"] or "",
        "matched": row["matched"],
    }
    if label is Label.FIELD:
        item["dataset"] = row["dataset"]
        item["description"] = descriptions.get((row["namespace"], row["dataset"], row["name"]))
    elif label is Label.JOB and "actionCount" in row:
        item["actionCount"] = row["actionCount"]
        item["application"] = node_ref_id((Label.JOB, row["application"])) if row["application"] else None
    elif label is Label.RUN:
        item["runId"] = row["runId"]
        item["state"] = row["state"]
        item["job"] = row.get("job") or (node_id(NodeType.JOB, row["namespace"], row["name"]) if row["name"] else None)
    return item
