"""`manage.py audit_bundle`: write an offline audit bundle (docs/ledger.md, "Offline audit") to a file."""

from __future__ import annotations

import gzip
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.ingest.audit_bundle import AuditSelection, BundleRefused, audit_bundle_write
from lineage_app.ingest.management.moments import option_moment


class Command(BaseCommand):
    help = (
        "Write an audit bundle: the selected events as accepted, the checkpoints that cover them, an inclusion "
        "proof per event, consistency proofs, and the log's and producers' public keys, sealed with the log's "
        "key. `python -m spark_agent audit verify BUNDLE` checks it with no server."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--producer", help="Only events of this producer (its registered name).")
        parser.add_argument("--namespace", help="Only events of this job namespace.")
        parser.add_argument("--from", dest="since", help="Only events accepted at or after this ISO 8601 time.")
        parser.add_argument("--to", dest="until", help="Only events accepted before this ISO 8601 time.")
        parser.add_argument(
            "-o", "--output", default="-", help="File to write (gzip-compressed if it ends .gz); - for stdout."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        selection = AuditSelection(
            producer=options["producer"],
            namespace=options["namespace"],
            since=option_moment("from", options["since"]),
            until=option_moment("to", options["until"]),
        )
        target: str = options["output"]
        partial = Path(f"{target}.partial")
        try:
            with ExitStack() as stack:
                if target == "-":
                    write = sys.stdout.buffer.write
                elif target.endswith(".gz"):
                    handle = stack.enter_context(partial.open("wb"))
                    write = stack.enter_context(gzip.GzipFile(filename="", mode="wb", fileobj=handle, mtime=0)).write
                else:
                    write = stack.enter_context(partial.open("wb")).write
                written = audit_bundle_write(selection=selection, write=write)
        except BundleRefused as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(str(exc)) from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        if target != "-":
            os.replace(partial, target)
        self.stderr.write(
            f"wrote {written.events} event(s) with proofs against the checkpoint of tree size {written.checkpoint}"
            + (f" to {target}" if target != "-" else "")
        )
