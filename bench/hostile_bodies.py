"""How long both ingest endpoints take to refuse hostile bodies: nested as deep as they can be, or one
string of escaped quotes that never ends. p50 / p95 / max per body and endpoint, and the answer.

Sets Django up against a private SQLite database (migrated, one ingest token) and posts through the
web process's own WSGI application: every middleware, authentication, DRF, the error rendered.
No graph engine or broker is needed, since nothing refused reaches them. `--levels` says how many
times each body repeats its unit (`[`, `{"a":`, `\\"`); `max` fills `INGEST_MAX_EVENT_BYTES` (1 MiB).

    .venv/bin/python bench/hostile_bodies.py                          # 1 MiB bodies, 15 runs each
    .venv/bin/python bench/hostile_bodies.py --levels 10000,30000 --runs 3

It runs against any commit that has both endpoints, so a checkout of an older one gives its figures.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.wsgi_client import WsgiAnswer, WsgiClient  # noqa: E402

ENDPOINTS = {"event": "/api/v1/lineage", "batch": "/api/v1/lineage/batch"}


@dataclass(frozen=True)
class Form:
    """A hostile body: `opening` repeated, `middle`, `closing` as often as `opening`, then `tail`."""

    name: str
    opening: bytes
    middle: bytes
    closing: bytes
    tail: bytes = b""

    def body(self, levels: int) -> bytes:
        return self.opening * levels + self.middle + self.closing * levels + self.tail

    def levels_within(self, size: int) -> int:
        return (size - len(self.middle) - len(self.tail)) // (len(self.opening) + len(self.closing))


FORMS = [
    Form("arrays   [[[…]]]", b"[", b"", b"]"),
    Form('objects  {"a":{"a":…1}}', b'{"a":', b"1", b"}"),
    # One string that escaped quotes keep open, brackets after it: too many to skip the depth check.
    Form('escapes  {"a":"\\"\\"…[[[', b"", b'{"a":"', b'\\"', b"[" * 100),
]


def said(answer: WsgiAnswer) -> str:
    """The error's code and message, as the API writes them."""
    error = answer.json()
    return f"{error['error']}: {error['message'][:70]}"


def poster(var: Path) -> WsgiClient:
    """Django set up on a private SQLite database under `var`, migrated, with an ingest token."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
            "TRIBUTARY_VAR_DIR": str(var),
            "DATABASE_URL": f"sqlite:///{var / 'bench.sqlite3'}",
        }
    )
    import django

    warnings.filterwarnings("ignore", "No directory at")  # no collected static files: none are served here
    django.setup()
    logging.disable(logging.WARNING)  # Django logs each refused body ("Bad Request"): not wanted per post
    from django.core.management import call_command

    from lineage_app.accounts.services import token_create

    call_command("migrate", verbosity=0)
    from lineage_app.wsgi import application

    return WsgiClient(application, token_create(name="bench", scope="ingest")[1])


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(client: WsgiClient, path: str, body: bytes, runs: int) -> tuple[list[float], WsgiAnswer]:
    timings, answer = [], WsgiAnswer(0, b"")
    for _ in range(runs):
        began = time.perf_counter()
        answer = client.post(path, body)
        timings.append((time.perf_counter() - began) * 1000)
    if not 400 <= answer.status_code < 500:
        raise SystemExit(f"{path} answered {answer.status_code} to a hostile body: {answer.content[:200]!r}")
    return sorted(timings), answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="max", help="comma-separated repetitions of each body's unit, or max")
    parser.add_argument("--runs", type=int, default=15, help="posts per body and endpoint")
    parser.add_argument("--forms", default="arrays,objects,escapes", help="which bodies: arrays, objects, escapes")
    args = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="tributary-bench-var-"))
    try:
        client = poster(var)
        from django.conf import settings

        limit = settings.INGEST_MAX_EVENT_BYTES
        print(
            f"Python {sys.version.split()[0]}; INGEST_MAX_EVENT_BYTES {limit}; "
            f"INGEST_MAX_JSON_DEPTH {getattr(settings, 'INGEST_MAX_JSON_DEPTH', '-')}; {args.runs} runs per line"
        )
        for path in ENDPOINTS.values():
            client.post(path, b"[[1]]")  # warm each path once
        forms = [form for form in FORMS if form.name.split()[0] in args.forms.split(",")]
        for form in forms:
            for given in args.levels.split(","):
                levels = form.levels_within(limit) if given == "max" else int(given)
                body = form.body(levels)
                for endpoint, path in ENDPOINTS.items():
                    timings, answer = measure(client, path, body, args.runs)
                    print(
                        f"  {form.name:<36} {levels:>7} levels {len(body) / 1024:7.0f} KiB  {endpoint:<5}  "
                        f"p50 {statistics.median(timings):9.1f} ms  p95 {percentile(timings, 0.95):9.1f} ms  "
                        f"max {timings[-1]:9.1f} ms  -> {answer.status_code} {said(answer)}",
                        flush=True,
                    )
    finally:
        shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
