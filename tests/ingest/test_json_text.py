"""Property-based: the linear depth scan agrees with the decoded value's depth, never undercounts what a
parser could reach, and stops soon after a limit."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_app.ingest.json_text import nesting_depth_bound
from lineage_protocol import outside_strings

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(st.sampled_from('ab[]{}"\\é\n'), max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=40,
)


def decoded_depth(value: Any) -> int:
    """How many containers deep a decoded JSON value is: a scalar 0, `[]` 1, `[[1]]` 2."""
    if isinstance(value, dict):
        return 1 + max(map(decoded_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(decoded_depth, value), default=0)
    return 0


def reachable_depth(text: str) -> int:
    """The deepest a parser reading `text` left to right can get before it fails: brackets outside strings,
    escapes honoured inside them, and nothing after a backslash outside a string (no JSON token starts so)."""
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
        elif char == "\\":
            break
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


@settings(max_examples=500)
@given(json_values, st.booleans(), st.sampled_from([None, (",", ":"), (", ", ": ")]))
def test_the_bound_of_json_text_is_the_depth_of_its_decoded_value(
    value: Any, ascii_only: bool, separators: tuple[str, str] | None
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=separators, indent=1 if separators is None else None)
    assert nesting_depth_bound(text.encode()) == decoded_depth(json.loads(text))


@settings(max_examples=1000)
@given(st.text(st.sampled_from('[]{}"\\ a,:'), max_size=40))
def test_the_bound_of_any_text_is_never_below_what_a_parser_could_reach(text: str) -> None:
    assert nesting_depth_bound(text.encode()) >= reachable_depth(text)


@settings(max_examples=300)
@given(json_values, st.integers(min_value=0, max_value=4))
def test_a_limited_bound_is_exact_up_to_the_limit_and_above_it_beyond(value: Any, limit: int) -> None:
    text = json.dumps(value).encode()
    depth = decoded_depth(value)
    bound = nesting_depth_bound(text, limit=limit)
    assert bound == depth if depth <= limit else bound > limit


def test_brackets_inside_strings_do_not_count_with_or_without_escapes() -> None:
    assert nesting_depth_bound(b'{"a[{": "]]]]", "b": ["[[[["]}') == 2
    assert nesting_depth_bound(b'{"a\\"[{": "\\\\", "b": ["\\"[[[[\\\\"]}') == 2
    assert nesting_depth_bound(b'["\\\\\\"[[["]') == 1  # an escaped backslash, then an escaped quote


def test_brackets_in_multi_byte_text_are_found_byte_by_byte() -> None:
    assert nesting_depth_bound('{"é": [["ü[", {"日本": [1]}]]}'.encode()) == 5


def test_an_unterminated_string_hides_the_brackets_after_it_as_it_does_from_a_parser() -> None:
    assert nesting_depth_bound(b'[["' + b"[" * 100) == 2
    assert nesting_depth_bound(b'["' + b'\\"' * 1000 + b"[" * 100) == 1


def test_a_maximally_nested_mebibyte_is_measured_past_the_limit() -> None:
    half = 512 * 1024
    assert nesting_depth_bound(b"[" * half + b"]" * half, limit=64) > 64
    assert nesting_depth_bound(b"[" * half + b"]" * half) == half


def test_outside_strings_drops_string_literals_with_escaped_quotes() -> None:
    assert outside_strings('{"a\\"[": ["]", 1]}') == "{: [, 1]}"
    assert outside_strings('{"a[": ["]", 1]}') == "{: [, 1]}"
