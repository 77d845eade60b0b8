"""`python -m lineage_relay.ship` (`tributary-ship`): send every complete line of the JSON-Lines files in a
directory (the `file` transport's output, rotated files included) to the server's batch endpoint, once; what was
delivered is recorded in the directory, so a later run resumes where this one stopped."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import suppress
from pathlib import Path
from stat import S_ISREG

from lineage_relay.transports import Sink
from lineage_relay.transports.http import HttpSink
from lineage_relay.transports.ledger import Delivery, Ledger, file_deliver, file_key

STATE_NAME = ".tributary-ship.json"


def ship_files(directory: Path, *, pattern: str) -> list[Path]:
    """The visible regular files of `directory` matching `pattern`, oldest first (a rotated file
    before the one it was rotated from); hidden files, such as the state file, are passed by."""
    found: list[tuple[int, str, Path]] = []
    for path in directory.glob(pattern):
        if path.name.startswith("."):
            continue
        try:
            stat = path.stat()
        except FileNotFoundError:  # rotated away since the listing
            continue
        if S_ISREG(stat.st_mode):
            found.append((stat.st_mtime_ns, path.name, path))
    return [path for _, _, path in sorted(found)]


def directory_ship(directory: Path, *, sink: Sink, pattern: str = "*", batch_size: int = 500) -> Delivery:
    """Deliver what `directory` holds that was not delivered yet; stops at the first batch the server
    does not take (unreachable, or refusing the token): the next run resumes there."""
    ledger = Ledger(directory / STATE_NAME)
    delivery = Delivery()
    for path in ship_files(directory, pattern=pattern):
        file_deliver(path, ledger=ledger, sink=sink, batch_size=batch_size, deadline=lambda: None, delivery=delivery)
        if delivery.stopped:
            break
    present = set()
    for path in ship_files(directory, pattern=pattern):
        with suppress(FileNotFoundError):
            present.add(file_key(path.stat()))
    ledger.keep_only(present)
    return delivery


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lineage_relay.ship",
        description=(
            "Send each complete line of the JSON-Lines files in DIR to the Tributary batch endpoint, once. "
            f"Progress is kept in DIR/{STATE_NAME} (per file, surviving rotation renames): run it again "
            "after a failure, or when the files have grown, and it sends only what is new."
        ),
    )
    parser.add_argument("directory", type=Path, metavar="DIR")
    parser.add_argument("--url", default=os.environ.get("TRIBUTARY_URL"), help="server URL (TRIBUTARY_URL)")
    parser.add_argument("--token", default=os.environ.get("TRIBUTARY_TOKEN"), help="ingest token (TRIBUTARY_TOKEN)")
    parser.add_argument("--pattern", default="*", help="only files matching this glob (default: every visible file)")
    parser.add_argument("--batch-size", type=int, default=500, help="events per request (the server takes 1000)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    parser.add_argument("--retries", type=int, default=4, help="retries of a request the server did not answer")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not args.url:
        print("ship: give --url or set TRIBUTARY_URL", file=sys.stderr)
        return 2
    if not args.directory.is_dir():
        print(f"ship: {args.directory} is not a directory", file=sys.stderr)
        return 2
    sink = HttpSink(args.url, args.token, timeout_s=args.timeout, max_retries=args.retries)
    delivery = directory_ship(args.directory, sink=sink, pattern=args.pattern, batch_size=args.batch_size)
    for problem in delivery.bad_lines:
        print(f"ship: skipped {problem}", file=sys.stderr)
    for where in delivery.torn:
        print(f"ship: {where}: last line not complete yet; it goes with a later run", file=sys.stderr)
    print(
        f"ship: {delivery.delivered} event(s) delivered, {delivery.rejected} rejected by the server, "
        f"{len(delivery.bad_lines)} bad line(s) skipped, {len(delivery.torn)} torn line(s) waiting"
    )
    if delivery.stopped:
        print(f"ship: {sink.endpoint} did not take a batch; run again to resume", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
