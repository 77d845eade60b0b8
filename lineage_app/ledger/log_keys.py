"""The server's checkpoint signing key: configured (`LEDGER_SIGNING_KEY`), or made once under var/keys."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from django.conf import settings

from lineage_app.ledger.models import LogKey
from lineage_protocol import (
    NoteVerifier,
    generate_private_key,
    key_id,
    load_private_key,
    private_key_pem,
    public_key_pem,
)


def log_signing_key() -> Ed25519PrivateKey:
    """The key checkpoints are signed with now."""
    if settings.LEDGER_SIGNING_KEY:
        key = load_pem_private_key(settings.LEDGER_SIGNING_KEY.encode("ascii"), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("LEDGER_SIGNING_KEY is not an Ed25519 private key")
        return key
    path = Path(settings.LEDGER_SIGNING_KEY_PATH)
    if not path.exists():
        _create(path)
    return load_private_key(path)


def _create(path: Path) -> None:
    """Write a new key, readable by this user only; a concurrent process that made it first wins."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="ascii") as key_file:
        key_file.write(private_key_pem(generate_private_key()))


def log_key_record(*, private_key: Ed25519PrivateKey, origin: str) -> LogKey:
    """The row of the key that is about to sign: recorded at its first use, kept after it is rotated out."""
    public = private_key.public_key()
    key, _ = LogKey.objects.get_or_create(
        key_id=key_id(public),
        defaults={
            "name": origin,
            "public_key": public_key_pem(public),
            "verifier_key": NoteVerifier(origin, public).vkey(),
        },
    )
    return key
