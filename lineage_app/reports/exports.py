"""An impact report as JSON, CSV, a self-contained HTML page or a PDF; the text formats are produced piece by piece."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Generator, Iterator
from html import escape
from typing import Any

from lineage_app.reports.selectors import ImpactReport
from lineage_protocol import PdfListing, html_cell, html_head

FORMATS = ("json", "csv", "html", "pdf")
CONTENT_TYPES = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
}
CSV_COLUMNS = (
    "id",
    "type",
    "namespace",
    "name",
    "dataset",
    "distance",
    "path",
    "transformations",
    "owners",
    "lastRunState",
    "lastRunTime",
    "quality",
    "actions",
    "application",
)
FLUSH_ROWS = 200  # rows per piece of a streamed text export


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def owner_text(owner: dict[str, Any]) -> str:
    """`name (role, source[, inherited])`."""
    notes = [part for part in (owner.get("role"), owner.get("source")) if part]
    if owner.get("inherited"):
        notes.append("inherited")
    return f"{owner['name']} ({', '.join(notes)})" if notes else str(owner["name"])


def transformation_text(edge: dict[str, Any]) -> str:
    kind = "/".join(part for part in (edge.get("transformation"), edge.get("subtype")) if part) or "?"
    return f"{kind} by {edge['job']}" if edge.get("job") else kind


def moment_text(report: ImpactReport) -> str:
    """Which graph the report walked, as its header says it."""
    when = f"as it was at {report.moment.at}" if report.moment.at else "the current graph"
    return f"{when}{', stale edges included' if report.moment.stale else ''}"


def stale_left_out_text(report: ImpactReport) -> str:
    """What the walk left out, once the rows are out: the stale edges it did not follow."""
    count = report.traversal.stale_left_out
    if report.moment.stale or not count:
        return ""
    return f"{count} stale edge{'s' if count != 1 else ''} left out (their paths appear with includeStale=true)"


def report_filename(report: ImpactReport, fmt: str) -> str:
    first = report.node_ids[0] if report.node_ids else "impact"
    safe = "".join(char if char.isalnum() or char in "-_." else "_" for char in first)[:80]
    return f"impact-{safe}.{fmt}"


def export_json(report: ImpactReport) -> Iterator[str]:
    """`{…header, "assets": [...], "summary": {...}}`, an asset at a time."""
    yield _json(report.header())[:-1] + ',"assets":['
    piece: list[str] = []
    for n, row in enumerate(report.rows()):
        piece.append(("," if n else "") + _json(row))
        if len(piece) >= FLUSH_ROWS:
            yield "".join(piece)
            piece = []
    yield "".join(piece) + '],"summary":' + _json(report.summary()) + "}"


def csv_cells(row: dict[str, Any]) -> list[Any]:
    return [
        row["id"],
        row["type"],
        row["namespace"],
        row["name"],
        row.get("dataset", ""),
        row["distance"],
        " > ".join(row["path"]),
        " > ".join(transformation_text(e) for e in row["transformations"]),
        "; ".join(owner_text(o) for o in row["owners"]),
        row["lastRunState"] or "",
        row["lastRunTime"] or "",
        row.get("quality") or "",
        "; ".join(row.get("actions") or []),
        row.get("application") or "",
    ]


def job_roles_text(row: dict[str, Any]) -> str:
    """`actions: a, b` for an application job's row, `application: x` for an action job's, else ''."""
    if row.get("actions"):
        return "actions: " + ", ".join(row["actions"])
    if row.get("application"):
        return "application: " + row["application"]
    return ""


def export_csv(report: ImpactReport) -> Iterator[str]:
    """One header line, then one line per asset (the summary is left to the other formats)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for n, row in enumerate(report.rows(), start=1):
        writer.writerow(csv_cells(row))
        if n % FLUSH_ROWS == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _html_table(title: str, counts: dict[str, int]) -> str:
    rows = "".join(f"<tr>{html_cell(name)}{html_cell(count)}</tr>" for name, count in counts.items())
    return f"<h3>{escape(title)}</h3><table><tbody>{rows}</tbody></table>"


def export_html(report: ImpactReport) -> Iterator[str]:
    """A self-contained page (inline CSS, no scripts, no external assets); every value is escaped."""
    starts = ", ".join(report.node_ids)
    yield (
        html_head(f"Impact of {starts}")
        + f"<h1>Impact report</h1><p>Changing <strong>{escape(starts)}</strong> affects the assets below "
        f"(depth {report.depth}; {escape(moment_text(report))}; "
        f"{escape(report.level)} level; "
        f"generated {escape(report.generated_at)}).</p>"
        "<table><thead><tr><th>Distance</th><th>Type</th><th>Asset</th><th>Owners</th><th>Last run</th><th>Quality</th>"
        "<th>Path</th><th>Transformations</th></tr></thead><tbody>"
    )
    piece: list[str] = []
    for row in report.rows():
        state = row["lastRunState"] or ""
        roles = job_roles_text(row)
        asset = escape(row["id"]) + (f'<br><span class="muted">{escape(roles)}</span>' if roles else "")
        piece.append(
            "<tr>"
            + html_cell(row["distance"])
            + html_cell(row["type"])
            + f'<td class="mono">{asset}</td>'
            + html_cell("; ".join(owner_text(o) for o in row["owners"]) or "—")
            + f'<td class="{escape(state)}">{escape(state)} {escape(row["lastRunTime"] or "")}</td>'
            + html_cell(row.get("quality") or "", row.get("quality") or "")
            + html_cell(" → ".join(row["path"]), "mono")
            + html_cell(" → ".join(transformation_text(e) for e in row["transformations"]))
            + "</tr>"
        )
        if len(piece) >= FLUSH_ROWS:
            yield "".join(piece)
            piece = []
    summary = report.summary()
    yield (
        "".join(piece) + "</tbody></table>"
        f"<h2>Summary: {summary['total']} affected assets</h2>"
        + (f'<p class="muted">{escape(stale_left_out_text(report))}</p>' if stale_left_out_text(report) else "")
        + _html_table("By type", summary["byType"])
        + _html_table("By owner", summary["byOwner"])
        + _html_table("By namespace", summary["byNamespace"])
        + _html_table("By depth", summary["byDepth"])
        + "</body></html>"
    )


def export_pdf(report: ImpactReport) -> bytes:
    """A landscape A4 listing: one block per asset (id, owners, last run, path), then the summary."""
    pdf = PdfListing(f"Impact of {', '.join(report.node_ids)}")
    pdf.line("Impact report", "Helvetica-Bold", 14)
    pdf.wrapped("Changing: ", ", ".join(report.node_ids))
    pdf.line(f"Depth {report.depth}; {moment_text(report)}; {report.level} level; generated {report.generated_at}")
    pdf.line("")
    for row in report.rows():
        pdf.wrapped(f"{row['distance']:>3} {row['type']:<13} ", row["id"])
        if roles := job_roles_text(row):
            pdf.wrapped("      ", roles)
        owners = "; ".join(owner_text(o) for o in row["owners"]) or "-"
        run = f"{row['lastRunState'] or '-'} {row['lastRunTime'] or ''}".strip()
        quality = f"   quality: {row['quality']}" if row.get("quality") else ""
        pdf.wrapped("      owners: ", f"{owners}   last run: {run}{quality}")
        pdf.wrapped("      path: ", " > ".join(row["path"]))
        if row["transformations"]:
            pdf.wrapped("      transformations: ", " > ".join(transformation_text(e) for e in row["transformations"]))
    summary = report.summary()
    pdf.line("")
    pdf.line(f"Summary: {summary['total']} affected assets", "Helvetica-Bold", 11)
    if left_out := stale_left_out_text(report):
        pdf.line(left_out)
    for title, counts in (
        ("By type", summary["byType"]),
        ("By owner", summary["byOwner"]),
        ("By namespace", summary["byNamespace"]),
        ("By depth", summary["byDepth"]),
    ):
        pdf.line(title, "Helvetica-Bold", 9)
        for name, count in counts.items():
            pdf.wrapped("   ", f"{name}: {count}")
    return pdf.finish()


def export_text(report: ImpactReport, fmt: str) -> Iterator[str]:
    return {"json": export_json, "csv": export_csv, "html": export_html}[fmt](report)


class ReportPieces:
    """`export_bytes` for a streamed response: Django calls `close` when the response ends, fails or its client
    goes away, and the report's walk (its SQLite database and temporary file) goes with it."""

    def __init__(self, report: ImpactReport, fmt: str) -> None:
        self._report = report
        self._pieces = export_bytes(report, fmt)

    def __iter__(self) -> Iterator[bytes]:
        return self._pieces

    def close(self) -> None:
        self._pieces.close()
        self._report.close()


def export_bytes(report: ImpactReport, fmt: str) -> Generator[bytes, None, None]:
    """The report in `fmt` as a sequence of byte strings (the PDF as one)."""
    if fmt == "pdf":
        yield export_pdf(report)
        return
    for piece in export_text(report, fmt):
        yield piece.encode("utf-8")
