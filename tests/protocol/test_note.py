"""C2SP signed notes and checkpoints: the format, the key-id rule, rotation, and no malformed note accepted."""

from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_protocol import (
    Checkpoint,
    Note,
    NoteError,
    NoteVerifier,
    checkpoint_open,
    note_key_hash,
    note_sign,
    note_verify,
    parse_checkpoint,
    parse_note,
    parse_vkey,
)

ORIGIN = "lineage.example.com/log"
# A fixed key, so the notes below are the same bytes every run.
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
OTHER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
VERIFIER = NoteVerifier(ORIGIN, KEY.public_key())
CHECKPOINT = Checkpoint(origin=ORIGIN, size=8, root_hash=bytes.fromhex("5d" * 32))


def _signed(checkpoint: Checkpoint = CHECKPOINT, *keys: Ed25519PrivateKey) -> str:
    text = checkpoint.text()
    signatures = tuple(note_sign(text, name=ORIGIN, private_key=k) for k in keys or (KEY,))
    return Note(text=text, signatures=signatures).serialise()


def test_a_checkpoint_note_is_origin_size_base64_root_a_blank_line_and_an_em_dash_signature_line() -> None:
    note = _signed()
    text, signature_line = note.split("\n\n")
    assert text == f"{ORIGIN}\n8\n{base64.b64encode(bytes.fromhex('5d' * 32)).decode()}"
    assert signature_line.startswith(f"\u2014 {ORIGIN} ") and signature_line.endswith("\n")
    raw = base64.b64decode(signature_line.split(" ")[2])
    assert raw[:4] == note_key_hash(ORIGIN, KEY.public_key()) and len(raw) == 68
    assert checkpoint_open(note, verifiers=[VERIFIER], origin=ORIGIN) == CHECKPOINT


def test_the_key_id_is_the_first_four_bytes_of_sha256_over_name_newline_type_and_key() -> None:
    public = KEY.public_key().public_bytes_raw()
    expected = hashlib.sha256(ORIGIN.encode() + b"\n\x01" + public).digest()[:4]
    assert note_key_hash(ORIGIN, KEY.public_key()) == expected
    encoded = base64.b64encode(b"\x01" + public).decode()
    assert VERIFIER.vkey() == f"{ORIGIN}+{expected.hex()}+{encoded}"
    assert parse_vkey(VERIFIER.vkey()).key_hash == expected


def test_after_rotation_a_note_signed_by_either_valid_key_verifies_and_names_its_signer() -> None:
    old, new = VERIFIER, NoteVerifier(ORIGIN, OTHER.public_key())
    assert note_verify(parse_note(_signed(CHECKPOINT, KEY)), [old, new]) == [old]
    assert note_verify(parse_note(_signed(CHECKPOINT, OTHER)), [old, new]) == [new]


def test_a_cosignature_by_an_unknown_key_is_ignored_and_a_bad_signature_by_a_known_key_fails() -> None:
    cosigned = _signed(CHECKPOINT, KEY, OTHER)
    assert note_verify(parse_note(cosigned), [VERIFIER]) == [VERIFIER]
    with pytest.raises(NoteError, match="no signature"):
        note_verify(parse_note(_signed(CHECKPOINT, OTHER)), [VERIFIER])
    text = CHECKPOINT.text()
    forged = Note(text=text, signatures=(note_sign(text.replace("8", "9"), name=ORIGIN, private_key=KEY),))
    with pytest.raises(NoteError, match="does not verify"):
        note_verify(parse_note(forged.serialise()), [VERIFIER])


def test_a_checkpoint_of_another_log_is_refused() -> None:
    with pytest.raises(NoteError, match=r"not 'other\.example/log'"):
        checkpoint_open(_signed(), verifiers=[VERIFIER], origin="other.example/log")


@pytest.mark.parametrize(
    "text",
    [
        f"{ORIGIN}\n08\nXdXd\n",
        f"{ORIGIN}\n-1\n{base64.b64encode(bytes(32)).decode()}\n",
        f"{ORIGIN}\n18446744073709551616\n{base64.b64encode(bytes(32)).decode()}\n",
        f"{ORIGIN}\n1\n{base64.b64encode(bytes(31)).decode()}\n",
        f"\n1\n{base64.b64encode(bytes(32)).decode()}\n",
        f"{ORIGIN}\n1\n",
    ],
)
def test_a_malformed_checkpoint_body_is_refused(text: str) -> None:
    with pytest.raises(NoteError):
        parse_checkpoint(text)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0), st.integers(min_value=0, max_value=255))
def test_any_changed_byte_of_a_signed_checkpoint_makes_it_fail(position: int, value: int) -> None:
    original = _signed().encode()
    at = position % len(original)
    if original[at] == value:
        return
    changed = original[:at] + bytes([value]) + original[at + 1 :]
    with pytest.raises(NoteError):
        checkpoint_open(changed, verifiers=[VERIFIER], origin=ORIGIN)


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.binary(max_size=400), st.text(max_size=400)))
def test_parsing_arbitrary_input_as_a_note_or_checkpoint_raises_note_error_or_nothing(data: bytes | str) -> None:
    try:
        note = parse_note(data)
        parse_checkpoint(note.text)
        note_verify(note, [VERIFIER])
    except NoteError:
        return


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_parsing_an_arbitrary_verifier_key_raises_note_error_or_gives_a_consistent_key(text: str) -> None:
    try:
        verifier = parse_vkey(text)
    except NoteError:
        return
    assert verifier.vkey() == text
