"""`python -m spark_agent audit verify BUNDLE`: verify an offline audit bundle with no server, and say so per stream.

Exit 0 only when everything verified, 1 when anything did not (each problem named: the stream and seq, or the
line and leaf), 2 when the bundle cannot be read or an output cannot be written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lineage_protocol import AuditReport, bundle_verify
from spark_agent.audit_summary import summary_html, summary_pdf

SHOWN = 20  # problems printed per stream in text; --json and the summaries carry every one


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m spark_agent audit",
        description="Verify an audit bundle written by the server's `manage.py audit_bundle`, offline.",
    )
    commands = parser.add_subparsers(dest="action", required=True, metavar="action")
    verify = commands.add_parser(
        "verify",
        help="check signatures, chains, inclusion, checkpoints, cosignatures, consistency and the seal",
        description="Exit 0 only if all is well, 1 if anything does not verify, 2 on an I/O error.",
    )
    verify.add_argument("bundle", type=Path, metavar="BUNDLE")
    verify.add_argument("--json", action="store_true", help="print the report as JSON instead of text")
    verify.add_argument("--html", type=Path, metavar="FILE", help="also write the auditor's summary as HTML")
    verify.add_argument("--pdf", type=Path, metavar="FILE", help="also write the auditor's summary as PDF")
    return parser


def report_text(report: AuditReport) -> str:
    """The report as the command prints it: a line per checkpoint and stream, its problems under it, a verdict."""
    summary = report.summary()
    lines = [
        f"bundle {report.path}: log {summary['origin']}, {report.events} event(s), selection {summary['selection']}"
    ]
    for checkpoint in summary["checkpoints"]:
        witnesses = ", ".join(checkpoint["witnesses"]) or "no witness"
        lines.append(
            f"checkpoint tree size {checkpoint['treeSize']}: signed by {', '.join(checkpoint['signers'])}; {witnesses}"
        )
        lines += [f"  {problem}" for problem in checkpoint["problems"]]
    for stream in summary["streams"]:
        found = [f"seq {stream['from']}-{stream['to']}", f"{stream['events']} event(s)", stream["state"]]
        found += [f"gap {g['from']}-{g['to']}" for g in stream["gaps"]]
        found += [f"fork at seq {seq}" for seq in stream["forks"]]
        if stream["truncated"]:
            found.append(f"truncated {stream['truncated']['from']}-{stream['truncated']['to']}")
        verdict = "ok" if stream["verdict"] == "ok" else "FAILED"
        lines.append(f"stream {stream['stream']} ({stream['producer']}): {', '.join(found)}: {verdict}")
        lines += [f"  {problem}" for problem in stream["problems"][:SHOWN]]
        if len(stream["problems"]) > SHOWN:
            lines.append(f"  … and {len(stream['problems']) - SHOWN} more")
    for unchained in summary["unchained"]:
        lines.append(f"unchained events of {unchained['producer']}: {unchained['events']}")
    lines += [f"bundle: {problem}" for problem in report.problems]
    lines.append("verdict: ok" if report.ok else "verdict: FAILED")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        report = bundle_verify(args.bundle)
    except OSError as exc:
        print(f"audit: cannot read {args.bundle}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report.summary(), indent=2, ensure_ascii=False) if args.json else report_text(report))
    try:
        if args.html:
            args.html.write_text(summary_html(report), encoding="utf-8")
        if args.pdf:
            args.pdf.write_bytes(summary_pdf(report))
    except OSError as exc:
        print(f"audit: cannot write the summary: {exc}", file=sys.stderr)
        return 2
    except ImportError:
        print("audit: --pdf needs reportlab (pip install reportlab)", file=sys.stderr)
        return 2
    return 0 if report.ok else 1
