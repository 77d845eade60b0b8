"""`Message`: what a notification says, independent of where it goes (each destination kind renders it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("info", "warning", "critical")


@dataclass(frozen=True)
class Message:
    """A title and summary, key facts, titled sections of lines, links into the UI, and the JSON
    body a generic webhook receives (`event`)."""

    title: str
    summary: str
    severity: str = "warning"
    facts: tuple[tuple[str, str], ...] = ()
    sections: tuple[tuple[str, tuple[str, ...]], ...] = ()
    links: tuple[tuple[str, str], ...] = ()
    event: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "summary": self.summary,
            "severity": self.severity,
            "facts": [list(fact) for fact in self.facts],
            "sections": [[heading, list(lines)] for heading, lines in self.sections],
            "links": [list(link) for link in self.links],
            "event": self.event,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Message:
        return cls(
            title=data["title"],
            summary=data["summary"],
            severity=data.get("severity", "warning"),
            facts=tuple((str(k), str(v)) for k, v in data.get("facts", ())),
            sections=tuple((str(h), tuple(str(line) for line in lines)) for h, lines in data.get("sections", ())),
            links=tuple((str(k), str(v)) for k, v in data.get("links", ())),
            event=dict(data.get("event", {})),
        )
