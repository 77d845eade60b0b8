"""What witnesses send: cosignatures, each verified against the stored checkpoint before it is kept, and refusals,
each verified as signed by a registered witness before it raises an alarm."""

from __future__ import annotations

import base64
import hashlib
import logging
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.utils import timezone

from lineage_app.ledger.models import Cosignature, LogCheckpoint, WitnessAlarm, WitnessKey
from lineage_app.ledger.proofs import LogQueryError
from lineage_protocol import (
    NoteError,
    NoteSignature,
    NoteVerifier,
    cosignature_verify,
    note_verify,
    parse_note,
    refusal_read,
)

# A witness's clock may run a little ahead of the server's; a cosignature from further ahead is refused.
CLOCK_SKEW = timedelta(minutes=5)
logger = logging.getLogger(__name__)


def _witness(name: str, key_hash: bytes, *, path: str) -> WitnessKey:
    witness = WitnessKey.objects.filter(name=name, key_hash=key_hash.hex(), revoked_at__isnull=True).first()
    if witness is None:
        raise LogQueryError(
            403,
            "unknown_witness",
            f"no registered witness key is named {name!r} with key id {key_hash.hex()} (an admin registers "
            "witnesses' verifier keys in the Django admin, Ledger, Witness keys)",
            path=path,
        )
    return witness


def _signature_line(line: str, *, path: str) -> NoteSignature:
    """The one signature line `line`, parsed as the note format reads signature lines."""
    try:
        signatures = parse_note("x\n\n" + (line if line.endswith("\n") else line + "\n")).signatures
    except NoteError as error:
        raise LogQueryError(400, "invalid", f"not a signature line: {error}", path=path) from None
    if len(signatures) != 1:
        raise LogQueryError(400, "invalid", "send one signature line", path=path)
    return signatures[0]


def cosignature_accept(*, tree_size: int, line: str) -> Cosignature:
    """Keep a witness's cosignature of the checkpoint of `tree_size` once it verifies: by a registered witness,
    over that checkpoint's text, timed no later than now (give or take `CLOCK_SKEW`)."""
    signature = _signature_line(line, path="cosignature")
    witness = _witness(signature.name, signature.key_hash, path="cosignature")
    checkpoint = LogCheckpoint.objects.filter(size=tree_size).first()
    if checkpoint is None:
        raise LogQueryError(404, "not_found", f"no checkpoint has tree size {tree_size}", path="treeSize")
    text = parse_note(checkpoint.note).text
    try:
        timestamp = cosignature_verify(text, signature, name=witness.name, public_key=witness.public_key)
    except NoteError as error:
        raise LogQueryError(
            400, "invalid_cosignature", f"{error} over the checkpoint of tree size {tree_size}", path="cosignature"
        ) from None
    cosigned_at = datetime.fromtimestamp(timestamp, tz=UTC)
    if cosigned_at > timezone.now() + CLOCK_SKEW:
        raise LogQueryError(
            400,
            "invalid_cosignature",
            f"the cosignature is dated {cosigned_at.isoformat()}, in the future",
            path="cosignature",
        )
    cosignature, _ = Cosignature.objects.update_or_create(
        checkpoint=checkpoint,
        witness=witness,
        defaults={"line": signature.line(), "cosigned_at": cosigned_at, "received_at": timezone.now()},
    )
    return cosignature


def _b64(value: bytes | None) -> str:
    return base64.b64encode(value).decode("ascii") if value else ""


def witness_alarm_raise(*, report: str, offered: str) -> WitnessAlarm:
    """Record a witness's refusal as an alarm, once its report verifies under a registered witness's key; the
    same refusal reported again counts on the open alarm."""
    try:
        note = parse_note(report)
    except NoteError as error:
        raise LogQueryError(400, "invalid", f"the report is not a signed note: {error}", path="report") from None
    witness = next((w for s in note.signatures if (w := _reporter(s)) is not None), None)
    if witness is None:
        names = ", ".join(f"{s.name} ({s.key_hash.hex()})" for s in note.signatures)
        raise LogQueryError(
            403, "unknown_witness", f"the report is signed by no registered witness: {names}", path="report"
        )
    try:
        note_verify(note, [NoteVerifier(witness.name, witness.public_key)])
        refusal = refusal_read(note)
    except NoteError as error:
        raise LogQueryError(400, "invalid_report", str(error), path="report") from None
    identity = {
        "witness": witness,
        "kind": refusal.kind.value,
        "cosigned_size": refusal.cosigned_size,
        "cosigned_root": _b64(refusal.cosigned_root),
        "offered_size": refusal.offered_size,
        "offered_root": _b64(refusal.offered_root),
    }
    now = timezone.now()
    with transaction.atomic():
        alarm = WitnessAlarm.objects.select_for_update().filter(**identity, resolved_at__isnull=True).first()
        if alarm is None:
            alarm = WitnessAlarm.objects.create(**identity, reason=refusal.reason, report=report, offered=offered)
            logger.error(
                "witness %s refused the log (%s): %s; evidence kept as alarm %d (report sha256 %s)",
                witness.name,
                refusal.kind.value,
                refusal.reason,
                alarm.pk,
                hashlib.sha256(report.encode()).hexdigest()[:16],
            )
        else:
            WitnessAlarm.objects.filter(pk=alarm.pk).update(last_reported_at=now, reports=alarm.reports + 1)
            alarm.refresh_from_db()
    return alarm


def _reporter(signature: NoteSignature) -> WitnessKey | None:
    """The registered witness whose refusal-note key (signed-note type 0x01) made `signature`."""
    for witness in WitnessKey.objects.filter(name=signature.name, revoked_at__isnull=True):
        if NoteVerifier(witness.name, witness.public_key).key_hash == signature.key_hash:
            return witness
    return None
