"""`manage.py create_token --scope ingest|read|admin [--name NAME] [--rate-limit RATE]`: print a new token on stdout."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.services import token_create


class Command(BaseCommand):
    help = "Create an API token and print it (shown once; only its hash is stored)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--scope", required=True, choices=ApiToken.Scope.values)
        parser.add_argument("--name", default="", help="Who or what uses the token.")
        parser.add_argument(
            "--rate-limit",
            default=None,
            help="Its own rate limit, e.g. 600/minute or unlimited (default: its scope's, API_RATE_LIMIT_*).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        scope = options["scope"]
        try:
            _, plaintext = token_create(
                name=options["name"] or f"{scope} token", scope=scope, rate_limit=options["rate_limit"]
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(plaintext)
