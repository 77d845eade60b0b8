"""Instructions one single-event post costs the web process, counted by valgrind: a figure load does not move.

Posts `bench/ingest_throughput.py`'s events one at a time to `POST /api/v1/lineage` through Django's test client,
in this process (the whole request: middleware, authentication, the rate-limit check in Redis, validation, the
accept transaction on a private SQLite, the answer), after 200 warm-up posts and with the start-up heap frozen
as the served processes freeze it. Run under `valgrind --tool=callgrind` twice, with `--posts` and with
`--base-posts` posts, the difference of the two totals over the difference of the posts is one post's
instructions, without start-up. Seconds on a shared machine swing by 2x; these counts repeat within about 1 %
(6.30M, 6.34M and 6.35M in three runs, two of them side by side), so two trees (or a change) compare in one run of
each. Needs valgrind (Debian's `valgrind`) and Redis on
`REDIS_URL` (default `redis://127.0.0.1:6379/9`).

    .venv/bin/python bench/accept_instructions.py                 # this tree
    .venv/bin/python bench/accept_instructions.py --tree ../other  # another checkout, with the same venv
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WARM_UP_POSTS = 200


def _post_events(posts: int) -> None:
    """The measured process: `posts` single-event posts after the warm-up, in the tree it runs in."""
    import django

    django.setup()
    from django.test import Client
    from django.urls import get_resolver

    from bench.ingest_throughput import make_event
    from lineage_app.accounts.services import token_create

    assert get_resolver().url_patterns  # the views imported, as gunicorn's post_worker_init has them
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token_create(name='bench', scope='ingest')[1]}")
    began = datetime(2026, 1, 1, tzinfo=UTC)
    bodies = [json.dumps(make_event(i, began + timedelta(seconds=i))) for i in range(WARM_UP_POSTS + posts)]
    for i, body in enumerate(bodies):
        if i == WARM_UP_POSTS:
            gc.collect()
            gc.freeze()
        answer = client.post("/api/v1/lineage", body, content_type="application/json")
        if answer.status_code != 201:
            raise SystemExit(f"post {i} answered {answer.status_code}: {answer.content[:300]!r}")


def _instructions(tree: Path, posts: int, redis_url: str) -> int:
    """The instructions a fresh process in `tree` executes for the warm-up and `posts` posts, start-up included."""
    with tempfile.TemporaryDirectory(prefix="accept-instructions-") as tmp:
        env = {
            **os.environ,
            "TRIBUTARY_VAR_DIR": tmp,
            "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
            "REDIS_URL": redis_url,
            "LOG_LEVEL": "ERROR",
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
            "PYTHONPATH": str(tree),
        }
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=tree, env=env, check=True)
        measured = [sys.executable, str(Path(__file__).resolve()), "--measured-posts", str(posts)]
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out", *measured],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            raise SystemExit(f"the measured process failed:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
        found = re.search(r"Collected : (\d+)", run.stderr)
        if found is None:
            raise SystemExit(f"valgrind printed no total:\n{run.stderr[-2000:]}")
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=BENCH.parent, help="the checkout to measure (default: this one)")
    parser.add_argument("--posts", type=int, default=450)
    parser.add_argument("--base-posts", type=int, default=50)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/9"))
    parser.add_argument("--measured-posts", type=int, help=argparse.SUPPRESS)  # the process valgrind runs
    args = parser.parse_args()
    if args.measured_posts is not None:
        sys.path.insert(0, os.getcwd())
        _post_events(args.measured_posts)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.posts <= args.base_posts:
        raise SystemExit("--posts must be more than --base-posts")
    tree = args.tree.resolve()
    few = _instructions(tree, args.base_posts, args.redis_url)
    many = _instructions(tree, args.posts, args.redis_url)
    per_post = (many - few) / (args.posts - args.base_posts)
    print(
        f"{tree}: {per_post / 1e6:.2f}M instructions per single-event post ({args.posts} less {args.base_posts} posts)"
    )


if __name__ == "__main__":
    main()
