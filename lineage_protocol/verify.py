"""`python -m lineage_protocol.verify` (`tributary-verify`): check every line of JSON-Lines event files (the agent's
file transport, the relay's file mode) offline, against public keys."""

from __future__ import annotations

import argparse
import gzip
import sys
from collections import Counter
from collections.abc import Iterator
from io import BufferedIOBase
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from lineage_protocol import (
    EventParseError,
    SignatureProblem,
    VerificationStatus,
    check_event,
    key_id,
    load_public_key,
    parse_event,
)

NOT_JSON = "not JSON"
REASONS = {
    (VerificationStatus.UNSIGNED, None): "unsigned",
    (VerificationStatus.INVALID_SIGNATURE, SignatureProblem.MALFORMED): "malformed signature facet",
    (VerificationStatus.UNKNOWN_KEY, None): "unknown key id",
    (VerificationStatus.INVALID_SIGNATURE, SignatureProblem.MISMATCH): "signature mismatch",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lineage_protocol.verify",
        description=(
            "Verify the signature of every line of JSON-Lines event files (plain or .gz). "
            "Exit 0 only if every line verifies, 1 if any does not, 2 on a usage or I/O error."
        ),
    )
    parser.add_argument(
        "--public-key",
        action="append",
        required=True,
        type=Path,
        metavar="PEM",
        help="a producer's public key; repeat for several keys (picked by keyId)",
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="EVENTS.jsonl")
    return parser


def _open(path: Path) -> BufferedIOBase:
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def _failures(path: Path, keys: dict[str, Ed25519PublicKey], counts: Counter[str]) -> Iterator[str]:
    """One `FILE:LINE: reason` per line of `path` that does not verify; tallies `counts`."""
    with _open(path) as lines:
        for number, line in enumerate(lines, start=1):
            try:
                event = parse_event(line)
            except EventParseError as exc:
                counts[NOT_JSON] += 1
                yield f"{path}:{number}: {NOT_JSON}: {exc}"
                continue
            result = check_event(event, keys=keys)
            if result.ok:
                counts["verified"] += 1
            else:
                reason = REASONS[result.status, result.problem]
                counts[reason] += 1
                yield f"{path}:{number}: {reason}: {result.detail}"


def _summary(counts: Counter[str], files: int) -> str:
    failed = sum(n for reason, n in counts.items() if reason != "verified")
    parts = [f"{counts[reason]} {reason}" for reason in (NOT_JSON, *REASONS.values())]
    return (
        f"{files} file(s), {counts.total()} line(s): {counts['verified']} verified, "
        f"{failed} failed ({', '.join(parts)})"
    )


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    keys: dict[str, Ed25519PublicKey] = {}
    for path in args.public_key:
        try:
            public_key = load_public_key(path)
        except (OSError, ValueError) as exc:
            print(f"verify: cannot load public key {path}: {exc}", file=sys.stderr)
            return 2
        keys[key_id(public_key)] = public_key
    counts: Counter[str] = Counter()
    for path in args.files:
        try:
            for failure in _failures(path, keys, counts):
                print(failure)
        except (OSError, EOFError) as exc:
            print(f"verify: cannot read {path}: {exc}", file=sys.stderr)
            return 2
    print(_summary(counts, len(args.files)))
    if counts.total() == 0:
        print("verify: no events found; nothing was verified", file=sys.stderr)
        return 1
    return 0 if counts["verified"] == counts.total() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
