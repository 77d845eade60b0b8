"""`manage.py notify_receiver --port N --secret-file F [--out FILE]`: receive signed generic webhooks, keep
each as a JSON line."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.notify.receiver import receiver_server


class Command(BaseCommand):
    help = (
        "Receive Tributary's generic webhooks on 127.0.0.1:PORT, refuse any not signed with the secret in "
        "--secret-file, and append each message to --out as a JSON line. `make run` starts one as the "
        "example's destination."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, required=True)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--secret-file", type=Path, required=True, help="The destination's signing secret.")
        parser.add_argument("--out", type=Path, default=Path(settings.VAR_DIR) / "notifications" / "webhook.jsonl")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            secret = options["secret_file"].read_text().strip()
        except OSError as exc:
            raise CommandError(f"cannot read --secret-file: {exc}") from None
        if not secret:
            raise CommandError("--secret-file is empty")
        out: Path = options["out"]
        out.parent.mkdir(parents=True, exist_ok=True)
        lock = threading.Lock()

        def record(message: dict[str, Any]) -> None:
            with lock, out.open("a") as lines:
                lines.write(json.dumps(message, sort_keys=True) + "\n")
            body = message["body"]
            title = body.get("title") or body.get("type") or "message"
            self.stdout.write(f"received {message['idempotencyKey']}: {title} (signature valid)")
            self.stdout.flush()

        server = receiver_server(host=options["host"], port=options["port"], secret=secret, record=record)
        self.stdout.write(f"receiving signed webhooks on http://{options['host']}:{options['port']}/, into {out}")
        self.stdout.flush()
        try:
            server.serve_forever()
        finally:
            server.server_close()
