"""Cheap, C-speed looks at JSON text: how deep it nests, how many object members it has."""

from __future__ import annotations

import re

from spark_agent.protocol import outside_strings

_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST_PAIR = re.compile(r"[\[{][\]}]")


def nesting_depth_bound(text: str) -> int:
    """The nesting depth of JSON `text`, never less than what a parser would descend to.

    Brackets inside strings do not count. Each pass removes the innermost pairs, so a balanced
    text takes as many passes as it is deep; brackets left unpaired each count one level more.
    """
    brackets = _NOT_A_BRACKET.sub("", outside_strings(text))
    depth = 0
    while brackets:
        brackets, pairs = _INNERMOST_PAIR.subn("", brackets)
        if not pairs:
            return depth + brackets.count("[") + brackets.count("{")
        depth += 1
    return depth


def member_count(text: str) -> int:
    """How many object members valid JSON `text` holds: outside strings, a `:` only ever ends a member name."""
    return outside_strings(text).count(":")
