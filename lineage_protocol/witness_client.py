"""One witness round against a Tributary server over HTTP: fetch, check, cosign and submit, or refuse and report.

Shared by both kinds of witness, the edge relay (`--witness-log-key`) and a second installation
(`manage.py witness`); it needs the standard library and `cryptography` only.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_protocol.merkle import ProofError, hashes_from_text
from lineage_protocol.note import Checkpoint, NoteVerifier
from lineage_protocol.wire import (
    CHECKPOINT_PATH,
    CONSISTENCY_PATH,
    COSIGNATURE_PATH,
    LOG_TAMPERED,
    WITNESS_ALARM_PATH,
)
from lineage_protocol.witness import (
    WitnessRefusal,
    WitnessState,
    WitnessStateError,
    cosign,
    cosigner_key_hash,
    cosigner_vkey,
    refusal_note,
    witness_check,
    witness_state_load,
    witness_state_save,
)


class LogUnreachable(Exception):
    """The log did not answer usefully (network, authentication, server error): nothing was decided; try later.
    `code` is the error code of the log's answer, if it gave one."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class LogClient:
    """The log's HTTP API, as a witness uses it: a base URL and a bearer token (ingest or read scope)."""

    url: str
    token: str
    timeout_s: float = 30.0

    def _call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            self.url.rstrip("/") + path,
            data=None if body is None else json.dumps(body).encode("utf-8"),
            method="GET" if body is None else "POST",
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            answer = _json_or_none(error.read())
            answer = answer if isinstance(answer, dict) else {}
            message = f"{request.get_method()} {path}: HTTP {error.code} {answer.get('message') or error.reason}"
            raise LogUnreachable(message, code=answer.get("error")) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise LogUnreachable(f"{request.get_method()} {path}: {error}") from None

    def checkpoint(self) -> str:
        """The latest signed checkpoint's note."""
        answer = self._call(CHECKPOINT_PATH)
        if not isinstance(answer, dict) or not isinstance(answer.get("note"), str):
            raise LogUnreachable(f"GET {CHECKPOINT_PATH}: no note in the answer")
        return str(answer["note"])

    def consistency(self, first: int, second: int) -> list[bytes]:
        """The log's consistency proof from size `first` to `second` (`ProofError` if it is malformed)."""
        try:
            answer = self._call(f"{CONSISTENCY_PATH}?{urlencode({'from': first, 'to': second})}")
        except LogUnreachable as error:
            if error.code == LOG_TAMPERED:  # the log says its own store cannot give the proof
                raise ProofError(str(error)) from None
            raise
        proof = answer.get("proof") if isinstance(answer, dict) else None
        if not isinstance(proof, list) or not all(isinstance(h, str) for h in proof):
            raise ProofError("the consistency answer has no list of hashes")
        return hashes_from_text(proof)

    def cosignature_submit(self, *, tree_size: int, line: str) -> None:
        self._call(COSIGNATURE_PATH, {"treeSize": tree_size, "cosignature": line})

    def refusal_report(self, *, report: str, offered: str) -> None:
        self._call(WITNESS_ALARM_PATH, {"report": report, "offered": offered})


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


class Outcome(StrEnum):
    COSIGNED = "cosigned"
    REFUSED = "refused"


@dataclass(frozen=True)
class WitnessRound:
    """What one round did: cosigned `checkpoint`, or refused (`refusal`, reported to the log when `reported`)."""

    outcome: Outcome
    checkpoint: Checkpoint | None
    refusal: WitnessRefusal | None = None
    reported: bool = False

    def describe(self) -> str:
        """One line for the witness's log."""
        if self.refusal is None:
            assert self.checkpoint is not None
            return f"cosigned the checkpoint of tree size {self.checkpoint.size}"
        told = "reported to the log" if self.reported else "the log did not take the report"
        return f"REFUSED the checkpoint ({self.refusal.kind.value}): {self.refusal.reason}; {told}"


@dataclass(frozen=True)
class Witness:
    """A witness of one log (`log`: its verifier key, whose name is the log's origin), signing as `name`."""

    client: LogClient
    log: NoteVerifier
    name: str
    private_key: Ed25519PrivateKey
    state_path: Path
    clock: Callable[[], float] = field(default=time.time)

    def __post_init__(self) -> None:
        cosigner_key_hash(self.name, self.private_key.public_key())  # `NoteError` now for a name it cannot sign as

    @property
    def vkey(self) -> str:
        """This witness's verifier key, which the log's admin registers."""
        return cosigner_vkey(self.name, self.private_key.public_key())

    def round(self) -> WitnessRound:
        """Fetch the latest checkpoint; cosign and submit it if it extends the last one cosigned, else refuse and
        report. `LogUnreachable` when the log did not answer; `WitnessStateError` when the state is unusable."""
        state = witness_state_load(self.state_path)
        if state is not None and state.origin != self.log.name:
            raise WitnessStateError(
                f"{self.state_path} is the state of log {state.origin!r}, not {self.log.name!r}: one state file per log"
            )
        note = self.client.checkpoint()
        try:
            checkpoint = witness_check(note, log=self.log, state=state, consistency=self.client.consistency)
        except WitnessRefusal as refusal:
            return self._refuse(refusal, state=state, offered=note)
        text = checkpoint.text()
        # The state is on disk before the cosignature leaves: a restart never forgets what was vouched for.
        witness_state_save(self.state_path, WitnessState(self.log.name, checkpoint.size, checkpoint.root_hash))
        line = cosign(text, name=self.name, private_key=self.private_key, timestamp=int(self.clock())).line()
        self.client.cosignature_submit(tree_size=checkpoint.size, line=line)
        return WitnessRound(Outcome.COSIGNED, checkpoint)

    def _refuse(self, refusal: WitnessRefusal, *, state: WitnessState | None, offered: str) -> WitnessRound:
        report = refusal_note(
            refusal,
            origin=self.log.name,
            state=state,
            name=self.name,
            private_key=self.private_key,
            timestamp=int(self.clock()),
        )
        try:
            self.client.refusal_report(report=report, offered=offered)
        except LogUnreachable:
            return WitnessRound(Outcome.REFUSED, refusal.offered, refusal, reported=False)
        return WitnessRound(Outcome.REFUSED, refusal.offered, refusal, reported=True)
