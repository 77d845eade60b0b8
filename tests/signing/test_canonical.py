"""Property-based: the fast canonical encoders write the bytes `rfc8785.dumps` writes, or refuse what it refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
import rfc8785
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lineage_protocol import canonical_json, canonical_json_of_any
from tests.events import new_run_id, run_event

# Every code point, lone surrogates included; and ASCII alone, so the C-encoder path is taken often.
any_character = st.characters(codec=None, categories=None)
texts = (
    st.text(any_character, max_size=8)
    | st.text(st.characters(max_codepoint=0x7F), max_size=8)
    | st.text(st.sampled_from('0123456789.eE+-"\\'), max_size=24)  # number-like text inside strings
)
leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.integers()  # beyond the safe range too
    | st.sampled_from([2**53 - 1, 2**53, -(2**53) + 1, -(2**53), 10**15, 10**16 - 1])
    | st.floats()  # NaN and infinities included
    | texts
)
json_values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=5),
    max_leaves=30,
)


def outcome(encode: Any, value: Any) -> bytes | str:
    try:
        return encode(value)
    # `rfc8785` lets a lone surrogate in a member name out as a `UnicodeEncodeError`.
    except (rfc8785.CanonicalizationError, UnicodeEncodeError):
        return "refused"


def test_canonical_json_refuses_a_lone_surrogate_in_a_member_name_as_a_canonicalization_error() -> None:
    with pytest.raises(rfc8785.CanonicalizationError):
        canonical_json({"a\udc00": 1})


@settings(max_examples=1500)
@given(json_values)
@example({"\ue000": 1, "\U0001f600": 2})  # code-point order and UTF-16 order disagree here
@example({"a": 1.0, "b": [1e21, 1e-7, -0.0, 5e-324]})
@example({"big": 2**53, "ok": 2**53 - 1, "s": "1.5e10 and 12345678901234567"})
@example({"control": "\x00\x08\x0c\x1f\x7f\u2028", 'quote"\\': "\\u0000"})
@example({"lone": "\ud800"})
@example(float("nan"))
def test_canonical_json_is_rfc8785_for_any_json_value(value: Any) -> None:
    assert outcome(canonical_json, value) == outcome(rfc8785.dumps, value)


def test_canonical_json_of_a_decoded_openlineage_event_is_rfc8785() -> None:
    event = json.loads(json.dumps(run_event("COMPLETE", run_id=new_run_id())))
    assert canonical_json(event) == rfc8785.dumps(event)


# Python values JSON cannot express as such: non-string member names, tuples.
python_values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(texts | st.integers() | st.booleans() | st.none(), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=1500)
@given(python_values)
@example({1: "x"})
@example({"a": (1, 2)})
@example({"a": {True: 1}})
def test_canonical_json_of_any_is_rfc8785_for_any_python_value(value: Any) -> None:
    def rfc8785_or_refused(v: Any) -> bytes | str:
        try:
            return rfc8785.dumps(v)
        except (rfc8785.CanonicalizationError, UnicodeEncodeError, TypeError):
            return "refused"

    def ours_or_refused(v: Any) -> bytes | str:
        try:
            return canonical_json_of_any(v)
        except (rfc8785.CanonicalizationError, UnicodeEncodeError, TypeError):
            return "refused"

    assert ours_or_refused(value) == rfc8785_or_refused(value)
