"""The auditor's summary of a verified bundle, as a self-contained HTML page and a PDF, written like the impact report.

Per stream: its producer and key, the seqs the bundle holds, its state and verdict, and every problem; then the
checkpoints (size, root, signer, witnesses) and the keys the verification used.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from lineage_protocol import AuditReport, PdfListing, html_cell, html_head


def _found(stream: dict[str, Any]) -> str:
    parts = [f"gap {g['from']}-{g['to']}" for g in stream["gaps"]]
    parts += [f"fork at {seq}" for seq in stream["forks"]]
    if stream["truncated"]:
        parts.append(f"truncated {stream['truncated']['from']}-{stream['truncated']['to']}")
    return "; ".join(parts)


def _verdict(ok: bool) -> str:
    return "verified" if ok else "FAILED"


def summary_html(report: AuditReport) -> str:
    """The summary page (inline CSS, no scripts, nothing fetched); every value is escaped."""
    summary = report.summary()
    css = "passing" if report.ok else "failing"
    parts = [
        html_head(f"Audit of {summary['origin']}"),
        "<h1>Audit bundle verification</h1>",
        f'<p>Verdict: <strong class="{css}">{_verdict(report.ok)}</strong>. Log <span class="mono">'
        f"{escape(str(summary['origin']))}</span>; {report.events} event(s); selection "
        f'<span class="mono">{escape(json.dumps(summary["selection"], sort_keys=True))}</span>; '
        f"bundle made {escape(str(summary['createdAt']))}; "
        f"proofs against tree size {escape(str(summary['checkpoint']))}.</p>",
        "<h2>Streams</h2><table><thead><tr><th>Producer</th><th>Stream</th><th>Seqs</th><th>Events</th>"
        "<th>State</th><th>Found</th><th>Verdict</th></tr></thead><tbody>",
    ]
    for stream in summary["streams"]:
        ok = stream["verdict"] == "ok"
        problems = "".join(f"<br>{escape(p)}" for p in stream["problems"])
        parts.append(
            "<tr>"
            + html_cell(stream["producer"])
            + html_cell(stream["stream"], "mono")
            + html_cell(f"{stream['from']}-{stream['to']}")
            + html_cell(stream["events"])
            + html_cell(stream["state"])
            + f'<td>{escape(_found(stream))}<span class="muted">{problems}</span></td>'
            + html_cell(_verdict(ok), "passing" if ok else "failing")
            + "</tr>"
        )
    parts.append("</tbody></table>")
    if summary["unchained"]:
        rows = "".join(f"<tr>{html_cell(u['producer'])}{html_cell(u['events'])}</tr>" for u in summary["unchained"])
        parts.append(f"<h2>Unchained events</h2><table><tbody>{rows}</tbody></table>")
    parts.append(
        "<h2>Checkpoints</h2><table><thead><tr><th>Tree size</th><th>Root hash</th><th>Signed by</th>"
        "<th>Witnesses</th><th>Problems</th></tr></thead><tbody>"
    )
    for c in summary["checkpoints"]:
        parts.append(
            "<tr>"
            + html_cell(c["treeSize"])
            + html_cell(c["rootHash"], "mono")
            + html_cell(", ".join(c["signers"]))
            + html_cell(", ".join(c["witnesses"]) or "none")
            + html_cell("; ".join(c["problems"]), "failing" if c["problems"] else "")
            + "</tr>"
        )
    parts.append("</tbody></table><h2>Producer keys</h2><table><tbody>")
    parts += [f"<tr>{html_cell(k['producer'])}{html_cell(k['keyId'], 'mono')}</tr>" for k in summary["producerKeys"]]
    parts.append("</tbody></table>")
    if report.problems:
        parts.append("<h2>Bundle problems</h2><ul>")
        parts += [f'<li class="failing">{escape(p)}</li>' for p in report.problems]
        parts.append("</ul>")
    parts.append("</body></html>")
    return "".join(parts)


def summary_pdf(report: AuditReport) -> bytes:
    """The same summary as a landscape A4 listing."""
    summary = report.summary()
    pdf = PdfListing(f"Audit of {summary['origin']}")
    pdf.line("Audit bundle verification", "Helvetica-Bold", 14)
    pdf.line(f"Verdict: {_verdict(report.ok)}", "Helvetica-Bold", 11)
    pdf.wrapped("Log: ", f"{summary['origin']}; {report.events} event(s); bundle made {summary['createdAt']}")
    pdf.wrapped("Selection: ", json.dumps(summary["selection"], sort_keys=True))
    pdf.line("")
    pdf.line("Streams", "Helvetica-Bold", 11)
    for stream in summary["streams"]:
        verdict = _verdict(stream["verdict"] == "ok")
        pdf.wrapped(f"{verdict:<9} ", f"{stream['stream']} ({stream['producer']})")
        found = _found(stream)
        pdf.wrapped(
            "          ",
            f"seq {stream['from']}-{stream['to']}, {stream['events']} event(s), {stream['state']}"
            + (f": {found}" if found else ""),
        )
        for problem in stream["problems"]:
            pdf.wrapped("          ! ", problem)
    for unchained in summary["unchained"]:
        pdf.wrapped("unchained ", f"{unchained['producer']}: {unchained['events']} event(s)")
    pdf.line("")
    pdf.line("Checkpoints", "Helvetica-Bold", 11)
    for c in summary["checkpoints"]:
        witnesses = ", ".join(c["witnesses"]) or "no witness"
        pdf.wrapped(
            "   ", f"tree size {c['treeSize']} root {c['rootHash']} signed by {', '.join(c['signers'])}; {witnesses}"
        )
        for problem in c["problems"]:
            pdf.wrapped("   ! ", problem)
    pdf.line("")
    pdf.line("Producer keys", "Helvetica-Bold", 11)
    for key in summary["producerKeys"]:
        pdf.wrapped("   ", f"{key['producer']}: {key['keyId']}")
    for problem in report.problems:
        pdf.wrapped("bundle ! ", problem)
    return pdf.finish()
