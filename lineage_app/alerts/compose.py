"""What an incident's message says to one destination: what happened, why, what of the recipients' is
affected, the blast radius, the events' signatures, and links into the UI."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.conf import settings

from lineage_app.alerts.models import Incident
from lineage_app.notify.messages import Message

SHOWN = 10  # lines of a section before "… and N more"
SEVERITY = {
    "run_failed": "critical",
    "stream_stalled": "critical",
    "schema_breaking": "warning",
    "dataset_dropped": "warning",
    "new_consumer": "info",
}


def ui_link(path: str, node_id: str | None = None) -> str:
    return f"{settings.ALERTS_UI_URL}{path}" + (f"?nodeId={quote(node_id, safe=':')}" if node_id else "")


def incident_link(incident: Incident) -> str:
    return f"{settings.ALERTS_UI_URL}/incident?id={incident.pk}"


def _lines(items: list[str]) -> tuple[str, ...]:
    shown = items[:SHOWN]
    rest = len(items) - len(shown)
    return (*shown, f"… and {rest} more") if rest > 0 else tuple(shown)


def _verification_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{status} {count}" for status, count in sorted(counts.items())) or "no events"


def incident_message(*, incident: Incident, yours: dict[str, list[str]], phase: str) -> Message:
    """The message of `incident` for a destination whose owners are `yours` (owner -> their affected
    node ids); `phase` is `opened`, `reminder` or `resolved`."""
    blast: dict[str, Any] = incident.blast_radius
    counts = blast.get("counts", {})
    heading = {"opened": "", "reminder": "Still open: ", "resolved": "Resolved: "}[phase]
    title = f"{heading}{incident.title}"
    summary = incident.cause or incident.title
    if phase == "resolved":
        summary = f"{incident.title} is resolved ({incident.resolved_by or 'recovered'})."
    radius = (
        f"{counts.get('datasets', 0)} datasets, {counts.get('jobs', 0)} jobs, "
        f"{counts.get('columns', 0)} fields, {counts.get('owners', 0)} owners"
    )
    facts = [
        ("Incident", f"#{incident.pk} ({incident.kind}, {incident.state})"),
        ("Root", incident.root),
        ("Cause", incident.cause or "not reported"),
        ("Classified as", incident.classification or "n/a"),
        ("Blast radius", radius),
        ("Owners told", ", ".join(incident.owners) or "nobody"),
        ("Signatures", _verification_text(incident.verification)),
        ("Occurrences", str(incident.occurrences)),
    ]
    sections: list[tuple[str, tuple[str, ...]]] = [
        (f"Yours ({owner})", _lines(nodes)) for owner, nodes in sorted(yours.items())
    ]
    if blast.get("columns"):
        sections.append(("Downstream fields affected", _lines(blast["columns"])))
    sections.append(("Downstream datasets", _lines(blast.get("datasets", []))))
    sections.append(("Downstream jobs", _lines(blast.get("jobs", []))))
    links: tuple[tuple[str, str], ...] = (("Incident", incident_link(incident)),)
    if incident.root.startswith(("job:", "dataset:")):
        page = "/job" if incident.root.startswith("job:") else "/dataset"
        links += (("Root", ui_link(page, incident.root)), ("Impact", ui_link("/impact", incident.root)))
    else:  # a signed stream of the ledger: the Trust page shows its state
        links += (("Trust", ui_link("/trust")),)
    event = {
        "type": f"incident.{phase}",
        "incident": {
            "id": incident.pk,
            "kind": incident.kind,
            "state": incident.state,
            "root": incident.root,
            "title": incident.title,
            "cause": incident.cause,
            "classification": incident.classification,
            "runId": incident.run_id,
            "occurrences": incident.occurrences,
            "openedAt": incident.opened_at.isoformat(),
            "url": incident_link(incident),
        },
        "blastRadius": blast,
        "verification": incident.verification,
        "yours": yours,
    }
    return Message(
        title=title,
        summary=summary,
        severity="info" if phase == "resolved" else SEVERITY.get(incident.kind, "warning"),
        facts=tuple(facts),
        sections=tuple(sections),
        links=links,
        event=event,
    )
