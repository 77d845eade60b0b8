"""An impact report as JSON, CSV, a self-contained HTML page or a PDF; the text formats are produced piece by piece."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from html import escape
from typing import Any

from lineage_app.reports.selectors import ImpactReport

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


_HTML_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1d2330}
h1{font-size:1.4em}table{border-collapse:collapse;width:100%;margin:1em 0}
th,td{border:1px solid #d5d9e0;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f1f3f6}.mono{font-family:ui-monospace,monospace;font-size:12px}.muted{color:#6b7280}
.FAILED,.ABORTED,.failing{color:#b42318;font-weight:600}.COMPLETED,.passing{color:#067647}.warning{color:#9a6700}
"""


def _cell(value: Any, css: str = "") -> str:
    attribute = f' class="{css}"' if css else ""
    return f"<td{attribute}>{escape('' if value is None else str(value))}</td>"


def _html_table(title: str, counts: dict[str, int]) -> str:
    rows = "".join(f"<tr>{_cell(name)}{_cell(count)}</tr>" for name, count in counts.items())
    return f"<h3>{escape(title)}</h3><table><tbody>{rows}</tbody></table>"


def export_html(report: ImpactReport) -> Iterator[str]:
    """A self-contained page (inline CSS, no scripts, no external assets); every value is escaped."""
    starts = ", ".join(report.node_ids)
    yield (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>Impact of {escape(starts)}</title><style>{_HTML_STYLE}</style></head><body>"
        f"<h1>Impact report</h1><p>Changing <strong>{escape(starts)}</strong> affects the assets below "
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
            + _cell(row["distance"])
            + _cell(row["type"])
            + f'<td class="mono">{asset}</td>'
            + _cell("; ".join(owner_text(o) for o in row["owners"]) or "—")
            + f'<td class="{escape(state)}">{escape(state)} {escape(row["lastRunTime"] or "")}</td>'
            + _cell(row.get("quality") or "", row.get("quality") or "")
            + _cell(" → ".join(row["path"]), "mono")
            + _cell(" → ".join(transformation_text(e) for e in row["transformations"]))
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
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    width, height = landscape(A4)
    canvas = Canvas(buffer, pagesize=(width, height), pageCompression=1)
    canvas.setTitle(f"Impact of {', '.join(report.node_ids)}")
    margin, size, leading = 30, 7, 8.6
    per_line = int((width - 2 * margin) / (size * 0.6))  # Courier: every glyph is 0.6 em wide
    y = height - margin
    page = 1

    def line(text: str, font: str = "Courier", font_size: float = size) -> None:
        nonlocal y, page
        if y < margin + leading:
            canvas.setFont("Courier", 6)
            canvas.drawRightString(width - margin, margin / 2, f"page {page}")
            canvas.showPage()
            page += 1
            y = height - margin
        canvas.setFont(font, font_size)
        canvas.drawString(margin, y, text)
        y -= leading if font_size <= size else font_size * 1.3

    def wrapped(prefix: str, text: str) -> None:
        room = per_line - len(prefix)
        for n in range(0, max(len(text), 1), room):
            line((prefix if n == 0 else " " * len(prefix)) + text[n : n + room])

    line("Impact report", "Helvetica-Bold", 14)
    wrapped("Changing: ", ", ".join(report.node_ids))
    line(f"Depth {report.depth}; {moment_text(report)}; {report.level} level; generated {report.generated_at}")
    line("")
    for row in report.rows():
        wrapped(f"{row['distance']:>3} {row['type']:<13} ", row["id"])
        if roles := job_roles_text(row):
            wrapped("      ", roles)
        owners = "; ".join(owner_text(o) for o in row["owners"]) or "-"
        run = f"{row['lastRunState'] or '-'} {row['lastRunTime'] or ''}".strip()
        quality = f"   quality: {row['quality']}" if row.get("quality") else ""
        wrapped("      owners: ", f"{owners}   last run: {run}{quality}")
        wrapped("      path: ", " > ".join(row["path"]))
        if row["transformations"]:
            wrapped("      transformations: ", " > ".join(transformation_text(e) for e in row["transformations"]))
    summary = report.summary()
    line("")
    line(f"Summary: {summary['total']} affected assets", "Helvetica-Bold", 11)
    if left_out := stale_left_out_text(report):
        line(left_out)
    for title, counts in (
        ("By type", summary["byType"]),
        ("By owner", summary["byOwner"]),
        ("By namespace", summary["byNamespace"]),
        ("By depth", summary["byDepth"]),
    ):
        line(title, "Helvetica-Bold", 9)
        for name, count in counts.items():
            wrapped("   ", f"{name}: {count}")
    canvas.setFont("Courier", 6)
    canvas.drawRightString(width - margin, margin / 2, f"page {page}")
    canvas.save()
    return buffer.getvalue()


def export_text(report: ImpactReport, fmt: str) -> Iterator[str]:
    return {"json": export_json, "csv": export_csv, "html": export_html}[fmt](report)


def export_bytes(report: ImpactReport, fmt: str) -> Iterator[bytes]:
    """The report in `fmt` as a sequence of byte strings (the PDF as one)."""
    if fmt == "pdf":
        yield export_pdf(report)
        return
    for piece in export_text(report, fmt):
        yield piece.encode("utf-8")
