"""The API's JSON renderer writes DRF's bytes, faster (`lineage_app.json_renderer`)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from lineage_app.json_renderer import FastJSONRenderer


def _lineage_answer(nodes: int) -> dict:
    """A lineage answer's shape: nodes with data and edges carrying their times, names with every
    character class an answer has (paths, non-ASCII, quotes, control characters)."""
    graph = []
    for i in range(nodes):
        edge = {
            "origin": f"dataset:s3://lake/zone-{i}:tàble_{i}",
            "destination": f'job:spark:etl "{i}"\n',
            "firstSeen": "2026-01-05T08:00:00.000000Z",
            "lastSeen": "2026-01-06T08:10:00.000000Z",
            "current": i % 3 != 0,
            "staleSince": None if i % 3 else "2026-01-06T08:10:00.000000Z",
        }
        graph.append(
            {
                "id": f"dataset:s3://lake/zone-{i}:tàble_{i}",
                "type": "DATASET",
                "data": {"name": f"名前_{i}", "fieldCount": i, "ratio": i / 7, "tags": ["a", "b"], "none": None},
                "inEdges": [edge],
                "outEdges": [edge, edge],
            }
        )
    return {"nodeId": "dataset:x:y", "depth": 10, "direction": "both", "truncated": False, "graph": graph}


@pytest.mark.parametrize(
    "data",
    [
        _lineage_answer(300),
        {"when": datetime(2026, 1, 5, 8, 0, 0, 123456, tzinfo=UTC), "amount": Decimal("12.50"), "id": uuid.UUID(int=7)},
        {"label": gettext_lazy("Lineage"), "keys": {1: "one", 2: "two"}, "line": "a\u2028b\u2029c"},
        [1, -2, 3.5, 0.1, 2**63 - 1, True, False, None, "", {}, []],
    ],
    ids=["lineage answer", "datetimes decimals uuids", "lazy strings, int keys, js separators", "scalars"],
)
def test_the_bytes_are_drf_s(data) -> None:  # type: ignore[no-untyped-def]
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)


def test_a_float_in_exponent_form_is_the_same_number_spelled_otherwise() -> None:
    assert FastJSONRenderer().render([1e-05, 1e22]) == b"[0.00001,1e+22]"
    assert json.loads(JSONRenderer().render([1e-05, 1e22])) == [1e-05, 1e22]


def test_unicode_line_separators_are_escaped_for_javascript() -> None:
    assert FastJSONRenderer().render({"s": "a\u2028b\u2029"}) == b'{"s":"a\\u2028b\\u2029"}'


def test_an_indent_asked_for_and_what_orjson_refuses_render_as_drf_does() -> None:
    data = {"a": [1, 2], "big": 2**70}
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)
    pretty = FastJSONRenderer().render({"a": [1, 2]}, "application/json; indent=4")
    assert pretty == JSONRenderer().render({"a": [1, 2]}, "application/json; indent=4")
    assert b"\n    " in pretty


def test_nothing_renders_as_no_body_and_an_unknown_type_still_fails() -> None:
    assert FastJSONRenderer().render(None) == b""
    with pytest.raises(TypeError):
        FastJSONRenderer().render({"x": object()})


def test_a_non_finite_float_is_null_where_drf_would_fail() -> None:
    assert FastJSONRenderer().render({"x": float("nan")}) == b'{"x":null}'
    with pytest.raises(ValueError):
        JSONRenderer().render({"x": float("nan")})
