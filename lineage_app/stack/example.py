"""The example pipeline under `run_stack`: its signing key, its hand-set owners, and its report in a few lines.

The pipeline declares most owners itself (`ownership` facets). `examples/owners.csv` sets the
rest the way an admin would (the CSV import of `docs/ownership.md`), and overrides one
declared owner: `bronze/customers` is declared `team:data-platform` by its facet and set to
`team:customer-data` by hand, which wins. Dataset names there hold `{lake}`, the lake's
absolute path, known only at run time.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from lineage_app.alerts.services import route_create
from lineage_app.notify.models import Destination
from lineage_app.ownership.models import Owner
from lineage_app.ownership.services import CsvImported, assignments_import_csv
from lineage_app.signatures.models import ProducerKey
from lineage_app.signatures.services import producer_key_register

EXAMPLE_PRODUCER = "tributary-example-pipeline"
EXAMPLE_NAMESPACE = "spark"
KEY_NAME = "example-pipeline"
OWNERS_CSV = Path(settings.BASE_DIR) / "examples" / "owners.csv"
LAKE_PLACEHOLDER = "{lake}"

PIPELINE_LINE = re.compile(r"^\[pipeline\] (?P<job>[^:]+): (?P<outcome>.+)$")
AGENT_LINE = re.compile(
    r"^tributary: (?P<job>\S+) run \S+ (?P<state>[A-Z]+): events_emitted_total=(?P<emitted>\d+) "
    r"events_dropped_total=(?P<dropped>\d+) events_spilled_total=(?P<spilled>\d+)"
)


def example_key_pair(*, keys_dir: Path) -> tuple[Path, Path]:
    """The example's private and public key files, made once with `python -m lineage_protocol.keygen`."""
    private, public = keys_dir / f"{KEY_NAME}.key", keys_dir / f"{KEY_NAME}.pub.pem"
    if not private.exists():
        result = subprocess.run(
            [sys.executable, "-m", "lineage_protocol.keygen", "--out", str(keys_dir), "--name", KEY_NAME],
            capture_output=True,
            text=True,
            check=False,
            cwd=settings.BASE_DIR,
        )
        if result.returncode != 0:
            raise RuntimeError(f"could not create the example's signing key: {result.stderr.strip()}")
    return private, public


def example_signing_key(*, keys_dir: Path) -> tuple[Path, ProducerKey]:
    """The example's private key (`example_key_pair`), its public key registered."""
    private, public = example_key_pair(keys_dir=keys_dir)
    key, _ = producer_key_register(
        producer=EXAMPLE_PRODUCER,
        public_key=public.read_text(),
        allowed_namespaces=[EXAMPLE_NAMESPACE],
        note="Made by `manage.py run_stack` for examples/pipeline.py.",
    )
    return private, key


def example_owners_import(*, lake: Path, csv_path: Path = OWNERS_CSV) -> CsvImported:
    """Import the example's hand-set owners (adds only; running it again changes nothing)."""
    return assignments_import_csv(text=csv_path.read_text().replace(LAKE_PLACEHOLDER, str(lake)))


def example_routes_create(*, destinations: Sequence[Destination]) -> int:
    """Route every owner the example knows (its CSV's, so before the pipeline runs) to `destinations`, so
    `validate_orders`' failure reaches team:finance-analytics and team:data-quality; how many routes."""
    owners = list(Owner.objects.values_list("name", flat=True))
    for owner in owners:
        for destination in destinations:
            route_create(owner=owner, destination=destination.pk)
    return len(owners) * len(destinations)


@dataclass
class ExampleReport:
    """Turns the pipeline's output into one terminal line per job and a summary."""

    write: Callable[[str], None]
    runs: int = 0
    emitted: int = 0
    dropped: int = 0
    jobs: list[tuple[str, bool]] = field(default_factory=list)

    def line(self, text: str) -> None:
        if agent := AGENT_LINE.match(text):
            self.runs += 1
            self.emitted += int(agent["emitted"])
            self.dropped += int(agent["dropped"])
        elif job := PIPELINE_LINE.match(text):
            ok = job["outcome"] == "ok"
            self.jobs.append((job["job"], ok))
            self.write(f"  ✓ {job['job']}" if ok else f"  ✗ {job['job']} — {job['outcome']}")

    def summary(self, *, returncode: int, lineage_url: str, log: str) -> str:
        if returncode != 0:
            return f"Example pipeline: exited with status {returncode}; see {log}"
        if self.dropped:
            return (
                f"Example pipeline: {self.runs} runs, {self.emitted} events sent, {self.dropped} dropped "
                f"(see {log}); lineage at {lineage_url}"
            )
        runs = f"{self.runs} run" if self.runs == 1 else f"{self.runs} runs"
        return f"Example pipeline: {runs} sent, lineage at {lineage_url}"
