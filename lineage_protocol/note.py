"""Signed checkpoints: the C2SP signed-note format (Ed25519 signatures, key ids) and the tlog-checkpoint body.

A signed note is a text ending in a newline, a blank line, then one or more signature lines
`— <key name> <base64(key id || signature)>` (an em dash, U+2014). The key id is the first four bytes
of SHA-256(key name || 0x0A || 0x01 || the 32-byte Ed25519 public key); a verifier key is written
`<name>+<hex key id>+<base64(0x01 || public key)>`. A verifier ignores signatures of keys it does not
know and fails a note whose known key's signature is wrong. A witness's cosignature is one more
signature line on the same note.

A checkpoint's text is `<origin> LF <tree size> LF <base64 root hash> LF`, then optional extension lines.
Anything malformed raises `NoteError` and nothing else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from lineage_protocol.merkle import HASH_SIZE

SIGNATURE_PREFIX = "\u2014 "
ED25519_TYPE = b"\x01"
KEY_HASH_SIZE = 4
MAX_SIGNATURES = 100
MAX_NOTE_BYTES = 64 * 1024
_SIZE_RE = re.compile(r"0|[1-9][0-9]{0,19}")
_BASE64_RE = re.compile(r"[A-Za-z0-9+/]*={0,2}")


class NoteError(ValueError):
    """A note, signature, verifier key or checkpoint that is malformed, or a signature that does not verify."""


@dataclass(frozen=True, slots=True)
class NoteSignature:
    """One signature line: the signer's key name, its four-byte key id and the signature."""

    name: str
    key_hash: bytes
    signature: bytes

    def line(self) -> str:
        return f"{SIGNATURE_PREFIX}{self.name} {base64.b64encode(self.key_hash + self.signature).decode('ascii')}\n"


@dataclass(frozen=True, slots=True)
class Note:
    """A note's text (what every signature covers, final newline included) and its signature lines."""

    text: str
    signatures: tuple[NoteSignature, ...]

    def serialise(self) -> str:
        return self.text + "\n" + "".join(s.line() for s in self.signatures)


@dataclass(frozen=True, slots=True)
class NoteVerifier:
    """An Ed25519 public key under a name, as a verifier knows it."""

    name: str
    public_key: Ed25519PublicKey

    @property
    def key_hash(self) -> bytes:
        return note_key_hash(self.name, self.public_key)

    def vkey(self) -> str:
        """`<name>+<hex key id>+<base64(0x01 || public key)>`."""
        encoded = base64.b64encode(ED25519_TYPE + self.public_key.public_bytes_raw()).decode("ascii")
        return f"{self.name}+{self.key_hash.hex()}+{encoded}"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What a checkpoint says: the log (`origin`), its size and root hash, and any extension lines."""

    origin: str
    size: int
    root_hash: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        lines = [self.origin, str(self.size), base64.b64encode(self.root_hash).decode("ascii"), *self.extensions]
        return "".join(f"{line}\n" for line in lines)


def _check_name(name: str) -> str:
    if not name or any(c.isspace() or c == "+" for c in name):
        raise NoteError(f"key name {name!r} must be non-empty, with no spaces and no '+'")
    return name


def note_key_hash(name: str, public_key: Ed25519PublicKey) -> bytes:
    """The four-byte key id: SHA-256(name || 0x0A || 0x01 || public key)[:4]."""
    material = _check_name(name).encode("utf-8") + b"\n" + ED25519_TYPE + public_key.public_bytes_raw()
    return hashlib.sha256(material).digest()[:KEY_HASH_SIZE]


def _b64decode(text: str, what: str) -> bytes:
    if not _BASE64_RE.fullmatch(text) or len(text) % 4:
        raise NoteError(f"{what} is not standard base64")
    try:
        decoded = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise NoteError(f"{what} is not standard base64") from None
    if base64.b64encode(decoded).decode("ascii") != text:  # one encoding per value: no malleable padding bits
        raise NoteError(f"{what} is not canonical base64")
    return decoded


def parse_vkey(text: str) -> NoteVerifier:
    """A verifier key `<name>+<hex key id>+<base64(0x01 || public key)>`, checked against its own key id."""
    name, plus, rest = text.partition("+")
    key_hex, plus2, encoded = rest.partition("+")
    if not (plus and plus2) or len(key_hex) != 2 * KEY_HASH_SIZE:
        raise NoteError("a verifier key is <name>+<8 hex digits>+<base64 key>")
    raw = _b64decode(encoded, "the verifier key")
    if len(raw) != 33 or raw[:1] != ED25519_TYPE:
        raise NoteError("the verifier key is not an Ed25519 key (type 0x01 and 32 bytes)")
    verifier = NoteVerifier(_check_name(name), Ed25519PublicKey.from_public_bytes(raw[1:]))
    if verifier.key_hash.hex() != key_hex:
        raise NoteError("the verifier key's id does not match its name and key")
    return verifier


def _check_text(text: str) -> None:
    if not text.endswith("\n"):
        raise NoteError("a note's text must end with a newline")
    if any(c < " " and c != "\n" for c in text):
        raise NoteError("a note must not contain control characters other than newline")


def parse_note(data: str | bytes) -> Note:
    """Split a signed note into its text and signature lines, checking the format (not the signatures)."""
    if isinstance(data, bytes):
        if len(data) > MAX_NOTE_BYTES:
            raise NoteError(f"a note is at most {MAX_NOTE_BYTES} bytes")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise NoteError("a note must be UTF-8") from None
    if len(data.encode("utf-8", "surrogatepass")) > MAX_NOTE_BYTES:
        raise NoteError(f"a note is at most {MAX_NOTE_BYTES} bytes")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in data):
        raise NoteError("a note must be UTF-8")
    _check_text(data)
    split = data.rfind("\n\n")
    if split < 0:
        raise NoteError("a note needs a blank line between its text and its signatures")
    text, lines = data[: split + 1], data[split + 2 :].split("\n")
    if lines[-1] != "" or len(lines) < 2:
        raise NoteError("a note needs at least one signature line, each ending with a newline")
    if len(lines) - 1 > MAX_SIGNATURES:
        raise NoteError(f"a note carries at most {MAX_SIGNATURES} signatures")
    return Note(text=text, signatures=tuple(_signature_line(line) for line in lines[:-1]))


def _signature_line(line: str) -> NoteSignature:
    if not line.startswith(SIGNATURE_PREFIX):
        raise NoteError("a signature line starts with an em dash and a space")
    name, space, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
    if not space:
        raise NoteError("a signature line is '— <name> <base64 signature>'")
    raw = _b64decode(encoded, "a signature")
    if len(raw) <= KEY_HASH_SIZE:
        raise NoteError("a signature is a four-byte key id and the signature")
    return NoteSignature(_check_name(name), raw[:KEY_HASH_SIZE], raw[KEY_HASH_SIZE:])


def note_sign(text: str, *, name: str, private_key: Ed25519PrivateKey) -> NoteSignature:
    """Sign a note's text (ending in a newline) with `private_key` under `name`."""
    _check_text(text)
    if "\n\n" in text or text.startswith("\n"):
        raise NoteError("a note's text must not contain a blank line")
    key_hash = note_key_hash(name, private_key.public_key())
    return NoteSignature(name, key_hash, private_key.sign(text.encode("utf-8")))


def note_verify(note: Note, verifiers: Iterable[NoteVerifier]) -> list[NoteVerifier]:
    """The known keys whose signatures on `note` verify; `NoteError` when none is known, or a known
    key's signature does not verify (unknown keys' signatures are ignored)."""
    known = {(v.name, v.key_hash): v for v in verifiers}
    verified: dict[tuple[str, bytes], NoteVerifier] = {}
    for signature in note.signatures:
        key = (signature.name, signature.key_hash)
        verifier = known.get(key)
        if verifier is None or key in verified:
            continue
        try:
            verifier.public_key.verify(signature.signature, note.text.encode("utf-8"))
        except InvalidSignature:
            raise NoteError(f"the signature of {signature.name} ({signature.key_hash.hex()}) does not verify") from None
        verified[key] = verifier
    if not verified:
        raise NoteError("no signature on the note is by a known key")
    return list(verified.values())


def parse_checkpoint(text: str) -> Checkpoint:
    """The checkpoint a note's text states (origin, size, base64 root hash, extension lines)."""
    _check_text(text)
    lines = text.split("\n")[:-1]
    if len(lines) < 3:
        raise NoteError("a checkpoint has an origin, a tree size and a root hash line")
    origin, size, root, *extensions = lines
    if not origin:
        raise NoteError("a checkpoint's origin line is empty")
    if not _SIZE_RE.fullmatch(size) or int(size) >= 1 << 64:
        raise NoteError("a checkpoint's tree size is a decimal from 0 to 2^64 - 1, without leading zeros")
    root_hash = _b64decode(root, "a checkpoint's root hash")
    if len(root_hash) != HASH_SIZE:
        raise NoteError(f"a checkpoint's root hash is {HASH_SIZE} bytes")
    if any(not line for line in extensions):
        raise NoteError("a checkpoint's extension lines are not empty")
    return Checkpoint(origin=origin, size=int(size), root_hash=root_hash, extensions=tuple(extensions))


def checkpoint_open(data: str | bytes, *, verifiers: Sequence[NoteVerifier], origin: str) -> Checkpoint:
    """A signed checkpoint of log `origin`, checked: its format, its origin, and a known key's signature."""
    note = parse_note(data)
    checkpoint = parse_checkpoint(note.text)
    if checkpoint.origin != origin:
        raise NoteError(f"the checkpoint is of log {checkpoint.origin!r}, not {origin!r}")
    note_verify(note, verifiers)
    return checkpoint
