"""How a `Message` looks at each kind of destination: an email (text and HTML), a Slack incoming
webhook's blocks, a Microsoft Teams card, a generic webhook's JSON body."""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any

from lineage_app.notify.messages import Message

SEVERITY_MARKS = {
    "info": ":information_source:",
    "warning": ":warning:",
    "critical": ":red_circle:",
}  # Slack emoji codes
# Slack allows 10 fields per section and 3,000 characters per text; Teams cards have no hard limit but
# a wall of lines helps nobody: a section shows this many lines and says how many more there are.
SECTION_LINES = 20
SLACK_FIELDS = 10
SLACK_TEXT = 2900


@dataclass(frozen=True, kw_only=True)
class Email:
    subject: str
    text: str
    html: str


def json_body(payload: Any) -> bytes:
    """The exact bytes posted (and, for a generic webhook, signed)."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


def _lines(lines: tuple[str, ...]) -> list[str]:
    if len(lines) <= SECTION_LINES:
        return list(lines)
    return [*lines[:SECTION_LINES], f"… and {len(lines) - SECTION_LINES} more"]


def email_render(message: Message) -> Email:
    text = [message.summary, ""]
    text += [f"{name}: {value}" for name, value in message.facts]
    for heading, lines in message.sections:
        text += ["", heading, *(f"  - {line}" for line in _lines(lines))]
    if message.links:
        text += ["", *(f"{label}: {url}" for label, url in message.links)]
    html = [f"<h2>{escape(message.title)}</h2>", f"<p>{escape(message.summary)}</p>"]
    if message.facts:
        rows = "".join(f"<tr><th align='left'>{escape(n)}</th><td>{escape(v)}</td></tr>" for n, v in message.facts)
        html.append(f"<table>{rows}</table>")
    for heading, lines in message.sections:
        items = "".join(f"<li>{escape(line)}</li>" for line in _lines(lines))
        html.append(f"<h3>{escape(heading)}</h3><ul>{items}</ul>")
    if message.links:
        links = " · ".join(f"<a href='{escape(url)}'>{escape(label)}</a>" for label, url in message.links)
        html.append(f"<p>{links}</p>")
    return Email(
        subject=f"[{message.severity}] {message.title}",
        text="\n".join(text) + "\n",
        html="<html><body>" + "".join(html) + "</body></html>",
    )


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_render(message: Message) -> dict[str, Any]:
    mark = SEVERITY_MARKS.get(message.severity, "")
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": f"{mark} {message.title}".strip()[:150]}},
        {"type": "section", "text": {"type": "mrkdwn", "text": _slack_escape(message.summary)[:SLACK_TEXT]}},
    ]
    if message.facts:
        fields = [
            {"type": "mrkdwn", "text": f"*{_slack_escape(n)}*\n{_slack_escape(v)}"[:2000]}
            for n, v in message.facts[:SLACK_FIELDS]
        ]
        blocks.append({"type": "section", "fields": fields})
    for heading, lines in message.sections:
        body = "\n".join(f"• {_slack_escape(line)}" for line in _lines(lines))
        blocks.append(
            {"type": "section", "text": {"type": "mrkdwn", "text": f"*{_slack_escape(heading)}*\n{body}"[:SLACK_TEXT]}}
        )
    if message.links:
        links = " · ".join(f"<{url}|{_slack_escape(label)}>" for label, url in message.links)
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": links}]})
    # `text` is what notifications and clients without blocks show.
    return {"text": f"{message.title}: {message.summary}"[:SLACK_TEXT], "blocks": blocks}


def teams_render(message: Message) -> dict[str, Any]:
    """A message with one Adaptive Card, which Teams' incoming webhooks and Workflows both accept."""
    colour = {"critical": "Attention", "warning": "Warning"}.get(message.severity, "Default")
    body: list[dict[str, Any]] = [
        {
            "type": "TextBlock",
            "text": message.title,
            "weight": "Bolder",
            "size": "Medium",
            "color": colour,
            "wrap": True,
        },
        {"type": "TextBlock", "text": message.summary, "wrap": True},
    ]
    if message.facts:
        body.append({"type": "FactSet", "facts": [{"title": n, "value": v} for n, v in message.facts]})
    for heading, lines in message.sections:
        body.append({"type": "TextBlock", "text": heading, "weight": "Bolder", "wrap": True, "spacing": "Medium"})
        body.append({"type": "TextBlock", "text": "\n".join(f"- {line}" for line in _lines(lines)), "wrap": True})
    card = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": body,
        "actions": [{"type": "Action.OpenUrl", "title": label, "url": url} for label, url in message.links],
    }
    return {
        "type": "message",
        "attachments": [
            {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}
        ],
    }


def webhook_render(message: Message) -> dict[str, Any]:
    """The generic webhook's body: the message's `event`, or, for a message without one (a test), the message."""
    if message.event:
        return message.event
    payload = message.to_json()
    del payload["event"]
    return payload
