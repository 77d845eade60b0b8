"""`manage.py verify_events`: re-verify stored events against today's keys and report, changing nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q

from lineage_app.ingest.management.moments import option_moment
from lineage_app.ingest.models import LineageEvent
from lineage_app.signatures.selectors import SEVERITY, events_check

CHUNK = 500


class Command(BaseCommand):
    help = "Re-verify stored events (without changing them) and report counts per status and the failures."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", help="Only events received at or after this ISO 8601 time.")
        parser.add_argument(
            "--namespace", help="Only events of this job namespace (the dataset namespace for DatasetEvents)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        events = LineageEvent.objects.order_by("id")
        if options["since"]:
            events = events.filter(received_at__gte=option_moment("since", options["since"]))
        if namespace := options["namespace"]:
            events = events.filter(
                Q(job_namespace=namespace) | Q(kind=LineageEvent.Kind.DATASET, payload__dataset__namespace=namespace)
            )
        counts: Counter[str] = Counter()
        failures: list[str] = []
        ids = list(events.values_list("id", flat=True))
        for start in range(0, len(ids), CHUNK):
            chunk = list(LineageEvent.objects.filter(id__in=ids[start : start + CHUNK]).order_by("id"))
            outcomes = events_check(events=chunk)
            for event in chunk:
                outcome = outcomes[event.id]
                counts[outcome.status] += 1
                if not outcome.ok:
                    stored = "" if event.verification == outcome.status else f" (stored: {event.verification or '-'})"
                    failures.append(
                        f"{event.id}\t{event.run_id or '-'}\t{event.job_namespace}:{event.job_name}\t"
                        f"{outcome.status}{stored}\t{outcome.detail}"
                    )
        self.stdout.write(f"verified {len(ids)} event(s)")
        for status in reversed(SEVERITY):
            if counts[status]:
                self.stdout.write(f"  {status:<22} {counts[status]}")
        if failures:
            self.stdout.write(f"\n{len(failures)} event(s) failing:")
            self.stdout.write("id\trun\tjob\tstatus\tdetail")
            for line in failures:
                self.stdout.write(line)
