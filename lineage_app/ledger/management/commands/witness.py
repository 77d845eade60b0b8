"""`manage.py witness`: this installation witnesses another Tributary's transparency log (docs/ledger.md)."""

from __future__ import annotations

import os
import re
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_protocol import (
    LogClient,
    LogUnreachable,
    NoteError,
    Witness,
    WitnessStateError,
    cosigner_vkey,
    load_private_key,
    parse_vkey,
)

TOKEN_VARIABLE = "TRIBUTARY_WITNESS_TOKEN"


class Command(BaseCommand):
    help = (
        "Witness a Tributary log: fetch its latest checkpoint, check that it extends the last one this witness "
        "cosigned, then cosign it and send the cosignature; or refuse, report why, and exit 1. The last cosigned "
        "checkpoint is kept in --state. --every repeats it. --print-key prints the key the log's admin registers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--log", help="the witnessed server's base URL, e.g. https://lineage.example.com")
        parser.add_argument(
            "--log-key", help="its checkpoint verifier key (`<origin>+<key id>+<key>`), got out of band"
        )
        parser.add_argument("--key", required=True, type=Path, help="this witness's Ed25519 private key (PKCS#8 PEM)")
        parser.add_argument("--name", required=True, help="this witness's name, e.g. witness.example.com/w1")
        parser.add_argument("--token", help=f"an API token of the witnessed server (or ${TOKEN_VARIABLE})")
        parser.add_argument("--state", type=Path, help="the state file (default: var/witness/<origin>.json)")
        parser.add_argument("--every", type=float, default=0.0, help="seconds between rounds; 0 (default): one round")
        parser.add_argument("--print-key", action="store_true", help="print this witness's verifier key and exit")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            private_key = load_private_key(options["key"])
        except (OSError, ValueError) as error:
            raise CommandError(f"--key: {error}") from None
        try:
            vkey = cosigner_vkey(options["name"], private_key.public_key())
        except NoteError as error:
            raise CommandError(f"--name: {error}") from None
        if options["print_key"]:
            self.stdout.write(vkey)
            return
        if not (options["log"] and options["log_key"]):
            raise CommandError("--log and --log-key are needed to witness a log")
        try:
            log = parse_vkey(options["log_key"])
        except NoteError as error:
            raise CommandError(f"--log-key: {error}") from None
        token = options["token"] or os.environ.get(TOKEN_VARIABLE, "")
        if not token:
            raise CommandError(f"--token (or ${TOKEN_VARIABLE}) is needed: an API token of the witnessed server")
        state = (
            options["state"] or Path(settings.VAR_DIR) / "witness" / f"{re.sub(r'[^A-Za-z0-9.-]', '_', log.name)}.json"
        )
        witness = Witness(
            client=LogClient(url=options["log"], token=token),
            log=log,
            name=options["name"],
            private_key=private_key,
            state_path=state,
        )
        if options["every"] <= 0:
            self._round(witness, once=True)
            return
        stop = threading.Event()

        def request_stop(signum: int, frame: FrameType | None) -> None:
            stop.set()

        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        while not stop.is_set():
            self._round(witness, once=False)
            stop.wait(options["every"])

    def _round(self, witness: Witness, *, once: bool) -> None:
        try:
            result = witness.round()
        except WitnessStateError as error:
            raise CommandError(str(error)) from None
        except LogUnreachable as error:
            if once:
                raise CommandError(f"the log did not answer: {error}", returncode=3) from None
            self.stderr.write(f"witness: the log did not answer: {error}")
            return
        if result.refusal is not None:
            if once:
                raise CommandError(f"witness: {result.describe()}")
            self.stderr.write(f"witness: {result.describe()}")
            return
        self.stdout.write(f"witness: {result.describe()}")
