"""`canonical_bytes` is RFC 8785 (JCS): the RFC's own examples and its test vectors."""

from __future__ import annotations

import json
import struct

import pytest

from lineage_protocol import CanonicalizationError, canonical_bytes


def jcs(text: str) -> bytes:
    """Canonical bytes of a JSON document given as text (wrapped so it is a mapping)."""
    return canonical_bytes({"v": json.loads(text)})[len(b'{"v":') : -1]


# Input/output pairs of cyberphone/json-canonicalization testdata, the reference
# implementation by RFC 8785's author (values.json is the example of RFC 8785 section 3.2.2).
REFERENCE_VECTORS = {
    "arrays": (
        '[56, {"d": true, "10": null, "1": [ ]}]',
        b'[56,{"1":[],"10":null,"d":true}]',
    ),
    "french": (
        '{"peach": "This sorting order", "p\\u00e9ch\\u00e9": "is wrong according to French",'
        ' "p\\u00eache": "but canonicalization MUST", "sin":   "ignore locale"}',
        '{"peach":"This sorting order","péché":"is wrong according to French",'
        '"pêche":"but canonicalization MUST","sin":"ignore locale"}'.encode(),
    ),
    "structures": (
        '{"1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0}, "10": { }, "": "empty", "a": { },'
        ' "111": [ {"e": "yes","E": "no" } ], "A": { }}',
        b'{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}}',
    ),
    "unicode": (
        '{"Unnormalized Unicode":"A\\u030a"}',
        '{"Unnormalized Unicode":"A\u030a"}'.encode(),
    ),
    "values": (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}',
        b'{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        b'"string":"\xe2\x82\xac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    ),
    "weird": (
        '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\u000a": "Newline", "1": "One",'
        ' "\\u0080": "Control\\u007f", "\\ud83d\\ude02": "Smiley",'
        ' "\\u00f6": "Latin Small Letter O With Diaeresis",'
        ' "\\ufb33": "Hebrew Letter Dalet With Dagesh", "</script>": "Browser Challenge"}',
        (
            '{"\\n":"Newline","\\r":"Carriage Return","1":"One","</script>":"Browser Challenge",'
            '"\u0080":"Control\u007f","\u00f6":"Latin Small Letter O With Diaeresis",'
            '"\u20ac":"Euro Sign","\U0001f602":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
        ).encode(),
    ),
}


@pytest.mark.parametrize("name", sorted(REFERENCE_VECTORS))
def test_reference_vectors_canonicalise_to_the_expected_bytes(name: str) -> None:
    source, expected = REFERENCE_VECTORS[name]
    assert jcs(source) == expected


def test_keys_sort_by_utf16_code_units_not_by_code_points() -> None:
    # U+1F602 is D83D DE02 in UTF-16, so it sorts before U+FB33, although its code point is higher.
    assert jcs('{"\\ufb33": 1, "\\ud83d\\ude02": 2}') == '{"\U0001f602":2,"\ufb33":1}'.encode()


def test_a_whole_event_has_no_insignificant_whitespace_and_sorted_keys() -> None:
    event = {"run": {"runId": "r", "facets": {}}, "eventType": "START", "job": {"name": "j"}}
    expected = b'{"eventType":"START","job":{"name":"j"},"run":{"facets":{},"runId":"r"}}'
    assert canonical_bytes(event) == expected


# RFC 8785 appendix B: IEEE 754 doubles (as hex bit patterns) and their serialisation.
NUMBER_VECTORS = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


@pytest.mark.parametrize(("bits", "expected"), NUMBER_VECTORS)
def test_doubles_serialise_as_ecmascript_numbers(bits: str, expected: str) -> None:
    (value,) = struct.unpack(">d", bytes.fromhex(bits))
    assert canonical_bytes({"n": value}) == b'{"n":' + expected.encode() + b"}"


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("1E-7", "1e-7"),
        ("0.000001", "0.000001"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("1.0", "1"),
        ("4.50", "4.5"),
        ("2e-3", "0.002"),
        ("100E-2", "1"),
        ("-1.5e+2", "-150"),
        ("9007199254740991", "9007199254740991"),
    ],
)
def test_number_spellings_of_json_text_canonicalise(spelling: str, expected: str) -> None:
    assert jcs(spelling) == expected.encode()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('"\\u0000"', b'"\\u0000"'),
        ('"\\u001f"', b'"\\u001f"'),
        ('"\\u000B"', b'"\\u000b"'),
        ('"\\b\\f\\n\\r\\t"', b'"\\b\\f\\n\\r\\t"'),
        ('"\\u007f"', b'"\x7f"'),
        ('"\\/"', b'"/"'),
        ('"\\u00e9"', b'"\xc3\xa9"'),
        ('"\\u2028\\u2029"', '"\u2028\u2029"'.encode()),
        ('"\\ud83d\\ude00"', '"\U0001f600"'.encode()),
    ],
)
def test_strings_escape_only_controls_quote_and_backslash(source: str, expected: bytes) -> None:
    assert jcs(source) == expected


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), -float("inf"), 2**53, -(2**53), "\ud800", {1: "x"}],
    ids=["nan", "inf", "-inf", "2**53", "-2**53", "lone-surrogate", "int-key"],
)
def test_values_outside_ijson_cannot_be_canonicalised(value: object) -> None:
    with pytest.raises(CanonicalizationError):
        canonical_bytes({"v": value})


def test_nesting_beyond_the_recursion_limit_is_a_canonicalisation_error() -> None:
    deep: list[object] = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(CanonicalizationError, match="nested too deeply"):
        canonical_bytes({"v": deep})
