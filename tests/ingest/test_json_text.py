"""Property-based: the regex depth bound matches a character-by-character scan, and never undercounts."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_app.ingest.json_text import nesting_depth_bound
from spark_agent.protocol import outside_strings

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(st.sampled_from('ab[]{}"\\é'), max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=40,
)


def scanned_depth(text: str) -> int:
    """The deepest a parser reading `text` left to right can be: brackets outside strings, escapes honoured."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


@settings(max_examples=500)
@given(json_values, st.booleans())
def test_the_bound_of_json_text_is_its_depth(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert nesting_depth_bound(text) == scanned_depth(text)


@settings(max_examples=1000)
@given(st.text(st.sampled_from('[]{}"\\ a,:'), max_size=40))
def test_the_bound_of_any_text_is_never_below_what_a_parser_could_reach(text: str) -> None:
    assert nesting_depth_bound(text) >= scanned_depth(text)


def test_outside_strings_drops_string_literals_with_escaped_quotes() -> None:
    assert outside_strings('{"a\\"[": ["]", 1]}') == "{: [, 1]}"
    assert outside_strings('{"a[": ["]", 1]}') == "{: [, 1]}"
