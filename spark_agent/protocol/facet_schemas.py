"""The JSON Schemas of Tributary's own run facets, read from the agent's package data wherever it is installed."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def facet_schema(file_name: str) -> dict[str, Any]:
    """The schema in `spark_agent/schemas/<file_name>` (e.g. `TributaryCountersRunFacet.json`): the agent's
    facets cite it as `_schemaURL` and the server checks them against it, so both read this one copy."""
    text = resources.files("spark_agent").joinpath("schemas", file_name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
