"""The witness's protocol alone: C2SP Ed25519 cosignatures, the consistency check before one, the refusal note,
and the state file that a restart reads back."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_protocol import (
    Checkpoint,
    Note,
    NoteError,
    NoteVerifier,
    RefusalKind,
    WitnessRefusal,
    WitnessState,
    WitnessStateError,
    cosign,
    cosignature_verify,
    cosigner_key_hash,
    cosigner_vkey,
    generate_private_key,
    note_sign,
    parse_cosigner_vkey,
    parse_note,
    refusal_note,
    refusal_read,
    witness_check,
    witness_state_load,
    witness_state_save,
)
from tests.protocol.merkle_reference import mth, proof

ORIGIN = "lineage.test/log"
LOG_KEY = generate_private_key()
LOG = NoteVerifier(ORIGIN, LOG_KEY.public_key())
WITNESS_KEY = generate_private_key()
ENTRIES = [bytes([i]) * 3 for i in range(20)]


def _note(size: int, root: bytes | None = None, *, key=LOG_KEY) -> str:  # type: ignore[no-untyped-def]
    text = Checkpoint(ORIGIN, size, root if root is not None else mth(ENTRIES[:size])).text()
    return Note(text, (note_sign(text, name=ORIGIN, private_key=key),)).serialise()


def _state(size: int) -> WitnessState:
    return WitnessState(ORIGIN, size, mth(ENTRIES[:size]))


def _proof(first: int, second: int) -> list[bytes]:
    return proof(first, ENTRIES[:second])


def test_a_cosignature_is_the_c2sp_ed25519_form_and_verifies() -> None:
    text = parse_note(_note(7)).text
    signature = cosign(text, name="witness.test/w1", private_key=WITNESS_KEY, timestamp=1_679_315_147)
    raw = WITNESS_KEY.public_key().public_bytes_raw()
    assert signature.key_hash == hashlib.sha256(b"witness.test/w1\n\x04" + raw).digest()[:4]
    assert signature.signature[:8] == (1_679_315_147).to_bytes(8, "big") and len(signature.signature) == 72
    message = b"cosignature/v1\ntime 1679315147\n" + text.encode()
    WITNESS_KEY.public_key().verify(signature.signature[8:], message)  # raises if the message differs
    assert cosignature_verify(text, signature, name="witness.test/w1", public_key=WITNESS_KEY.public_key()) == (
        1_679_315_147
    )
    # The line parses as one more signature of the checkpoint's note.
    cosigned = parse_note(_note(7) + signature.line())
    assert cosigned.signatures[-1] == signature


def test_a_cosignature_over_another_checkpoint_time_or_key_does_not_verify() -> None:
    text = parse_note(_note(7)).text
    signature = cosign(text, name="witness.test/w1", private_key=WITNESS_KEY, timestamp=100)
    public = WITNESS_KEY.public_key()
    with pytest.raises(NoteError):
        cosignature_verify(parse_note(_note(8)).text, signature, name="witness.test/w1", public_key=public)
    retimed = type(signature)(signature.name, signature.key_hash, (101).to_bytes(8, "big") + signature.signature[8:])
    with pytest.raises(NoteError):
        cosignature_verify(text, retimed, name="witness.test/w1", public_key=public)
    other = generate_private_key().public_key()
    with pytest.raises(NoteError):
        cosignature_verify(text, signature, name="witness.test/w1", public_key=other)
    with pytest.raises(NoteError):
        cosignature_verify(text, signature, name="witness.test/w2", public_key=public)


def test_a_witness_key_round_trips_and_a_wrong_key_id_or_type_is_refused() -> None:
    vkey = cosigner_vkey("witness.test/w1", WITNESS_KEY.public_key())
    name, public = parse_cosigner_vkey(vkey)
    assert name == "witness.test/w1" and public.public_bytes_raw() == WITNESS_KEY.public_key().public_bytes_raw()
    assert vkey.split("+")[1] == cosigner_key_hash(name, public).hex()
    with pytest.raises(NoteError, match="id does not match"):
        parse_cosigner_vkey("witness.test/w2+" + vkey.split("+", 1)[1])
    with pytest.raises(NoteError, match="0x04"):
        parse_cosigner_vkey(LOG.vkey())  # a signed-note (0x01) key is not a cosigner key
    for bad in ("", "name", "a+b+c", "a+0000000+!!!"):
        with pytest.raises(NoteError):
            parse_cosigner_vkey(bad)


def test_the_first_checkpoint_is_taken_on_its_signature_and_a_larger_one_on_a_consistency_proof() -> None:
    first = witness_check(_note(5), log=LOG, state=None, consistency=_proof)
    assert first.size == 5
    later = witness_check(_note(13), log=LOG, state=_state(5), consistency=_proof)
    assert later.size == 13 and later.root_hash == mth(ENTRIES[:13])
    same = witness_check(_note(13), log=LOG, state=_state(13), consistency=_proof)
    assert same.size == 13


@pytest.mark.parametrize(
    ("offered", "state", "kind"),
    [
        (lambda: _note(4), lambda: _state(5), RefusalKind.ROLLBACK),
        (lambda: _note(5, mth(ENTRIES[1:6])), lambda: _state(5), RefusalKind.FORK),
        (lambda: _note(9, mth(ENTRIES[1:10])), lambda: _state(5), RefusalKind.INCONSISTENT),
        (lambda: _note(9, key=generate_private_key()), lambda: _state(5), RefusalKind.UNVERIFIED),
        (lambda: "not a note", lambda: None, RefusalKind.UNVERIFIED),
    ],
    ids=["rolled-back", "forked", "another-history", "signed-by-another-key", "garbage"],
)
def test_a_checkpoint_that_does_not_extend_the_cosigned_one_is_refused(offered, state, kind) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WitnessRefusal) as refused:
        witness_check(offered(), log=LOG, state=state(), consistency=_proof)
    assert refused.value.kind == kind


def test_a_proof_for_another_pair_of_sizes_is_refused() -> None:
    with pytest.raises(WitnessRefusal) as refused:
        witness_check(_note(13), log=LOG, state=_state(5), consistency=lambda a, b: _proof(6, 13))
    assert refused.value.kind == RefusalKind.INCONSISTENT


def test_a_refusal_note_is_signed_and_reads_back() -> None:
    try:
        witness_check(_note(4), log=LOG, state=_state(5), consistency=_proof)
    except WitnessRefusal as refusal:
        report = refusal_note(
            refusal, origin=ORIGIN, state=_state(5), name="witness.test/w1", private_key=WITNESS_KEY, timestamp=9
        )
    note = parse_note(report)
    read = refusal_read(note)
    assert (read.kind, read.cosigned_size, read.offered_size, read.timestamp) == (RefusalKind.ROLLBACK, 5, 4, 9)
    assert read.cosigned_root == mth(ENTRIES[:5]) and read.offered_root == mth(ENTRIES[:4])
    assert note.signatures[0].key_hash == NoteVerifier("witness.test/w1", WITNESS_KEY.public_key()).key_hash
    with pytest.raises(NoteError):
        refusal_read(parse_note(_note(4)))


def test_the_state_survives_a_restart_and_an_unreadable_one_stops_the_witness(tmp_path: Path) -> None:
    path = tmp_path / "w" / "state.json"
    assert witness_state_load(path) is None
    witness_state_save(path, _state(13))
    assert witness_state_load(path) == _state(13)
    path.write_text('{"origin": "lineage.test/log", "size": 13, "root": "%%%"}')
    with pytest.raises(WitnessStateError, match="do not delete it"):
        witness_state_load(path)
    path.write_text(base64.b64encode(b"junk").decode())
    with pytest.raises(WitnessStateError):
        witness_state_load(path)


@settings(max_examples=200, deadline=None)
@given(
    entries=st.lists(st.binary(min_size=1, max_size=8), min_size=2, max_size=40, unique=True),
    data=st.data(),
)
def test_any_extension_is_cosigned_and_any_changed_old_entry_is_refused(
    entries: list[bytes], data: st.DataObject
) -> None:
    """The true extension of what the witness cosigned passes; change any one leaf it had cosigned (the server
    rewrote history), and no proof the server can make from its new tree convinces the witness."""
    first = data.draw(st.integers(1, len(entries) - 1), label="cosigned size")
    second = data.draw(st.integers(first + 1, len(entries)), label="offered size")
    cosigned = WitnessState(ORIGIN, first, mth(entries[:first]))
    honest = witness_check(
        _note_of(entries[:second]), log=LOG, state=cosigned, consistency=lambda a, b: proof(a, entries[:b])
    )
    assert honest.size == second
    changed = data.draw(st.integers(0, first - 1), label="changed leaf")
    rewritten = [*entries[:changed], entries[changed] + b"!", *entries[changed + 1 :]]
    with pytest.raises(WitnessRefusal) as refused:
        witness_check(
            _note_of(rewritten[:second]), log=LOG, state=cosigned, consistency=lambda a, b: proof(a, rewritten[:b])
        )
    assert refused.value.kind == RefusalKind.INCONSISTENT


def _note_of(entries: list[bytes]) -> str:
    return _note(len(entries), mth(entries))


def test_a_state_that_cannot_be_written_is_a_state_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    with pytest.raises(WitnessStateError, match="cannot be written"):
        witness_state_save(blocker / "state.json", _state(3))
