"""`python -m lineage_protocol.keygen` (`tributary-keygen`): create a producer's Ed25519 signing key pair (the
agent's, a relay's) and print its key id."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from lineage_protocol import generate_private_key, key_id, private_key_pem, public_key_pem

DEFAULT_NAME = "agent"


def _key_name(value: str) -> str:
    if not value or value.startswith(".") or Path(value).name != value:
        raise argparse.ArgumentTypeError(f"{value!r} is not a plain file name")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lineage_protocol.keygen",
        description=(
            "Write DIR/NAME.key (private key, PKCS#8 PEM, mode 0600) and DIR/NAME.pub.pem "
            "(public key, PEM), then print the key id on stdout."
        ),
    )
    parser.add_argument("--out", required=True, type=Path, metavar="DIR")
    parser.add_argument("--name", default=DEFAULT_NAME, type=_key_name, metavar="NAME")
    return parser


def _create(path: Path, mode: int) -> int:
    """Open a new file with `mode` from the start; `FileExistsError` if it is already there."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    private_path = args.out / f"{args.name}.key"
    public_path = args.out / f"{args.name}.pub.pem"
    try:
        args.out.mkdir(mode=0o700, parents=True, exist_ok=True)
        private_fd = _create(private_path, 0o600)
        try:
            public_fd = _create(public_path, 0o644)
        except OSError:
            os.close(private_fd)
            private_path.unlink()
            raise
    except FileExistsError as exc:
        print(f"keygen: {exc.filename} already exists; refusing to overwrite a key", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"keygen: {exc}", file=sys.stderr)
        return 2
    private_key = generate_private_key()
    with os.fdopen(private_fd, "w", encoding="ascii") as private_file:
        private_file.write(private_key_pem(private_key))
    with os.fdopen(public_fd, "w", encoding="ascii") as public_file:
        public_file.write(public_key_pem(private_key.public_key()))
    print(f"keygen: wrote {private_path} and {public_path}", file=sys.stderr)
    print(key_id(private_key.public_key()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
