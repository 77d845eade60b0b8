"""Helpers for the agent tests: schema validation, event lookup."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parents[2]
OL = ROOT / "spark_agent" / "schemas" / "openlineage"
TRIBUTARY_FACETS = ROOT / "lineage_protocol" / "schemas"


def _format_checker() -> FormatChecker:
    checker = FormatChecker(["uuid"])

    @checker.checks("date-time", raises=ValueError)
    def _date_time(value: object) -> bool:
        return not isinstance(value, str) or bool(datetime.fromisoformat(value.replace("Z", "+00:00")))

    @checker.checks("uri")
    def _uri(value: object) -> bool:
        return not isinstance(value, str) or bool(urlsplit(value).scheme)

    return checker


class EventValidator:
    """Validates run events against OpenLineage 2-0-2 and every facet against its own schema."""

    def __init__(self) -> None:
        docs = [json.loads(OL.joinpath("OpenLineage.json").read_text())]
        facet_files = sorted(OL.joinpath("facets").glob("*.json")) + sorted(TRIBUTARY_FACETS.glob("*.json"))
        facet_docs = [json.loads(p.read_text()) for p in facet_files]
        registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs + facet_docs)
        checker = _format_checker()
        self._event = Draft202012Validator(docs[0], registry=registry, format_checker=checker)
        self._facets: dict[tuple[str, str], Draft202012Validator] = {}
        for path, doc in zip(facet_files, facet_docs, strict=True):
            kind = _kind(path.stem)
            if kind is None:  # not a run/job/dataset facet (e.g. the static LineageFacet)
                continue
            for key in doc.get("properties", {}):
                self._facets[(kind, key)] = Draft202012Validator(doc, registry=registry, format_checker=checker)

    def validate(self, event: dict[str, Any]) -> None:
        self._event.validate(event)
        self._check("Run", event["run"].get("facets", {}))
        self._check("Job", event["job"].get("facets", {}))
        for ds in event.get("inputs", []):
            self._check("Dataset", ds.get("facets", {}))
            self._check("InputDataset", ds.get("inputFacets", {}))
        for ds in event.get("outputs", []):
            self._check("Dataset", ds.get("facets", {}))
            self._check("OutputDataset", ds.get("outputFacets", {}))

    def _check(self, kind: str, facets: dict[str, Any]) -> None:
        for key, body in facets.items():
            validator = self._facets.get((kind, key))
            assert validator is not None, f"no schema known for {kind} facet {key!r}"
            validator.validate({key: body})


def _kind(stem: str) -> str | None:
    for kind in ("InputDataset", "OutputDataset", "Dataset", "Run", "Job"):
        if stem.endswith(kind + "Facet"):
            return kind
    return None


def spark_version() -> tuple[int, int]:
    """The installed Spark's (major, minor): `make test` runs on 3.5, `make test-spark4` on 4.x."""
    import pyspark

    major, minor = pyspark.__version__.split(".")[:2]
    return int(major), int(minor)


def read_events(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


class Recorded(list):
    """The events one agent lifecycle emitted, with lookups by job name."""

    def app(self, event_type: str) -> dict[str, Any]:
        found = [e for e in self if e["eventType"] == event_type and "parent" not in e["run"]["facets"]]
        assert len(found) == 1, [(e["eventType"], e["job"]["name"]) for e in self]
        return found[0]

    def children(self, event_type: str = "COMPLETE") -> list[dict[str, Any]]:
        return [e for e in self if e["eventType"] == event_type and "parent" in e["run"]["facets"]]

    def child(self, job_name: str, event_type: str | None = None) -> dict[str, Any]:
        types = {event_type} if event_type else {"COMPLETE", "FAIL"}
        found = [e for e in self if e["job"]["name"] == job_name and e["eventType"] in types]
        assert len(found) == 1, [(e["eventType"], e["job"]["name"]) for e in self]
        return found[0]


def lineage(dataset: dict[str, Any]) -> dict[str, Any]:
    """`{field: [(namespace-less name, field, subtype...)]}` for compact exact assertions."""
    facet = dataset["facets"]["columnLineage"]
    return {
        name: [(f["name"], f["field"], *_subtypes(f)) for f in body["inputFields"]]
        for name, body in facet["fields"].items()
    }


def dataset_lineage(dataset: dict[str, Any]) -> list[tuple[str, ...]]:
    facet = dataset["facets"]["columnLineage"]
    return [(f["name"], f["field"], *_subtypes(f)) for f in facet.get("dataset", [])]


def _subtypes(field: dict[str, Any]) -> list[str]:
    return [t["subtype"] for t in field["transformations"]]


def schema(dataset: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["name"], f["type"]) for f in dataset["facets"]["schema"]["fields"]]
