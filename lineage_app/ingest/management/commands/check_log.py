"""`manage.py check_log`: check the transparency log against the event log and its own signed checkpoints."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.ingest.log_check import LogMismatch, log_check
from lineage_app.ledger.checkpoints import checkpoint_sign
from lineage_app.ledger.proofs import LogTampered


class Command(BaseCommand):
    help = (
        "Check that every leaf of the transparency log still has its event, unchanged (retention's pruned "
        "ones aside), and that the stored tree extends the latest signed checkpoint; exit 1 naming what is "
        "wrong. --sign also signs a checkpoint if the log grew."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--quick", action="store_true", help="Compare counts only; read leaves if they differ.")
        parser.add_argument("--sign", action="store_true", help="Sign a checkpoint afterwards if the log grew.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            audit = log_check(full=not options["quick"])
            checkpoint = checkpoint_sign() if options["sign"] else None
        except (LogMismatch, LogTampered) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{audit.tree_size} leaves checked: every event is stored as its leaf says")
        if checkpoint is not None:
            self.stdout.write(f"signed a checkpoint at tree size {checkpoint.size}")
