"""The JSON Schemas of Tributary's own run facets, read from the protocol's package data wherever it is installed."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def facet_schema(file_name: str) -> dict[str, Any]:
    """The schema in `lineage_protocol/schemas/<file_name>` (e.g. `TributaryCountersRunFacet.json`): the agent's
    facets cite it as `_schemaURL` and the server checks them against it, so both read this one copy."""
    text = resources.files("lineage_protocol").joinpath("schemas", file_name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
