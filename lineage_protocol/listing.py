"""Plain listings for people: a self-contained HTML page's pieces and a paged PDF (reportlab, imported when used).

The server's impact report and the audit verifier's summary are both written with these, so an auditor's
documents look alike wherever they were made; the verifier has no server, so they live beside the protocol.
"""

from __future__ import annotations

import io
from html import escape
from typing import Any

HTML_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1d2330}
h1{font-size:1.4em}table{border-collapse:collapse;width:100%;margin:1em 0}
th,td{border:1px solid #d5d9e0;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f1f3f6}.mono{font-family:ui-monospace,monospace;font-size:12px}.muted{color:#6b7280}
.FAILED,.ABORTED,.failing{color:#b42318;font-weight:600}.COMPLETED,.passing{color:#067647}.warning{color:#9a6700}
"""


def html_head(title: str) -> str:
    """The start of a page up to its `<body>`: inline CSS, no scripts, nothing fetched (its CSP says so)."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{escape(title)}</title><style>{HTML_STYLE}</style></head><body>"
    )


def html_cell(value: Any, css: str = "") -> str:
    """One escaped table cell."""
    attribute = f' class="{css}"' if css else ""
    return f"<td{attribute}>{escape('' if value is None else str(value))}</td>"


class PdfListing:
    """A landscape A4 listing in Courier, a line at a time, with page numbers; `finish` gives its bytes."""

    MARGIN, SIZE, LEADING = 30, 7, 8.6

    def __init__(self, title: str) -> None:
        from reportlab.lib.pagesizes import A4, landscape
        from reportlab.pdfgen.canvas import Canvas

        self._buffer = io.BytesIO()
        self.width, self.height = landscape(A4)
        self._canvas = Canvas(self._buffer, pagesize=(self.width, self.height), pageCompression=1)
        self._canvas.setTitle(title)
        self._per_line = int((self.width - 2 * self.MARGIN) / (self.SIZE * 0.6))  # Courier: 0.6 em per glyph
        self._y = self.height - self.MARGIN
        self._page = 1

    def _footer(self) -> None:
        self._canvas.setFont("Courier", 6)
        self._canvas.drawRightString(self.width - self.MARGIN, self.MARGIN / 2, f"page {self._page}")

    def line(self, text: str, font: str = "Courier", font_size: float = SIZE) -> None:
        if self._y < self.MARGIN + self.LEADING:
            self._footer()
            self._canvas.showPage()
            self._page += 1
            self._y = self.height - self.MARGIN
        self._canvas.setFont(font, font_size)
        self._canvas.drawString(self.MARGIN, self._y, text)
        self._y -= self.LEADING if font_size <= self.SIZE else font_size * 1.3

    def wrapped(self, prefix: str, text: str) -> None:
        """`text` after `prefix`, wrapped to the page's width under it."""
        room = self._per_line - len(prefix)
        for n in range(0, max(len(text), 1), room):
            self.line((prefix if n == 0 else " " * len(prefix)) + text[n : n + room])

    def finish(self) -> bytes:
        self._footer()
        self._canvas.save()
        return self._buffer.getvalue()
