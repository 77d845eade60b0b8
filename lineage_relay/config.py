"""The relay's configuration: command-line flags, each with a `TRIBUTARY_RELAY_*` (or shared `TRIBUTARY_*`) variable."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_PORT = 5050


@dataclass(frozen=True)
class RelayConfig:
    server_url: str | None  # None in file mode
    output_dir: Path | None  # file mode: where the events are written instead of forwarded
    file_max_bytes: int
    file_max_seconds: float
    token: str | None
    signing_key: Path
    host: str
    port: int
    buffer: Path
    producer_token: str | None
    max_buffer_bytes: int
    max_event_bytes: int
    max_batch_bytes: int
    batch_events: int
    keep_rejected: int
    timeout_s: float
    retry_max_s: float
    heartbeat_s: float
    witness_log_key: str | None  # set: the relay also witnesses the server's log (docs/relay.md)
    witness_name: str | None
    witness_key: Path | None
    witness_state: Path | None
    witness_s: float
    log_level: str


@dataclass(frozen=True)
class _Option:
    flag: str
    env: tuple[str, ...]  # the first one set wins
    kind: Callable[[str], Any]
    default: Any
    help: str


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
        return value

    parse.__name__ = kind.__name__
    return parse


# The server's URL, token and the node's signing key fall back to the agent's variables, so one
# environment serves both; TRIBUTARY_RELAY_* wins where the agent on the same node points at the relay.
_OPTIONS = {
    "server_url": _Option(
        "--server-url", ("TRIBUTARY_RELAY_SERVER_URL", "TRIBUTARY_URL"), str, None, "the Tributary server's base URL"
    ),
    "output_dir": _Option(
        "--output-dir",
        ("TRIBUTARY_RELAY_OUTPUT_DIR",),
        Path,
        None,
        "file mode, instead of --server-url: write the events to rotated JSON-Lines files in this directory",
    ),
    "file_max_bytes": _Option(
        "--file-max-bytes",
        ("TRIBUTARY_RELAY_FILE_MAX_BYTES",),
        _positive(int),
        64 * 1024**2,
        "file mode: a file is closed before it would pass this size",
    ),
    "file_max_seconds": _Option(
        "--file-max-seconds",
        ("TRIBUTARY_RELAY_FILE_MAX_SECONDS",),
        _positive(float),
        3600.0,
        "file mode: a file is closed this long after its first event, even if nothing more arrives",
    ),
    "token": _Option(
        "--token", ("TRIBUTARY_RELAY_TOKEN", "TRIBUTARY_TOKEN"), str, None, "the server's ingest-scope API token"
    ),
    "signing_key": _Option(
        "--signing-key",
        ("TRIBUTARY_RELAY_SIGNING_KEY", "TRIBUTARY_SIGNING_KEY"),
        Path,
        None,
        "the node's Ed25519 private key (PKCS#8 PEM, from `python -m lineage_protocol.keygen`)",
    ),
    "host": _Option("--host", ("TRIBUTARY_RELAY_HOST",), str, "127.0.0.1", "address to listen on"),
    "port": _Option("--port", ("TRIBUTARY_RELAY_PORT",), int, DEFAULT_PORT, "port to listen on"),
    "buffer": _Option(
        "--buffer", ("TRIBUTARY_RELAY_BUFFER",), Path, Path("tributary-relay.sqlite3"), "the buffer's SQLite file"
    ),
    "producer_token": _Option(
        "--producer-token",
        ("TRIBUTARY_RELAY_PRODUCER_TOKEN",),
        str,
        None,
        "if set, producers must send `Authorization: Bearer` this token",
    ),
    "max_buffer_bytes": _Option(
        "--max-buffer-bytes",
        ("TRIBUTARY_RELAY_MAX_BUFFER_BYTES",),
        _positive(int),
        1024**3,
        "pending events beyond this many bytes are refused with 503",
    ),
    "max_event_bytes": _Option(
        "--max-event-bytes", ("TRIBUTARY_RELAY_MAX_EVENT_BYTES",), _positive(int), 1024**2, "largest event (413)"
    ),
    "max_batch_bytes": _Option(
        "--max-batch-bytes", ("TRIBUTARY_RELAY_MAX_BATCH_BYTES",), _positive(int), 16 * 1024**2, "largest batch (413)"
    ),
    "batch_events": _Option(
        "--batch-size",
        ("TRIBUTARY_RELAY_BATCH_SIZE",),
        _positive(int),
        500,
        "most events forwarded in one request (the server takes up to 1000)",
    ),
    "keep_rejected": _Option(
        "--keep-rejected",
        ("TRIBUTARY_RELAY_KEEP_REJECTED",),
        _positive(int),
        1000,
        "how many of the latest events the server refused are kept for inspection",
    ),
    "timeout_s": _Option(
        "--timeout", ("TRIBUTARY_RELAY_TIMEOUT",), _positive(float), 30.0, "seconds to wait for the server's answer"
    ),
    "retry_max_s": _Option(
        "--retry-max-seconds",
        ("TRIBUTARY_RELAY_RETRY_MAX_SECONDS",),
        _positive(float),
        30.0,
        "longest pause between attempts while the server is unavailable",
    ),
    "heartbeat_s": _Option(
        "--heartbeat-seconds",
        ("TRIBUTARY_RELAY_HEARTBEAT_SECONDS",),
        _positive(float),
        60.0,
        "how often the relay sends a signed heartbeat announcing its stream's head (docs/ledger.md)",
    ),
    "witness_log_key": _Option(
        "--witness-log-key",
        ("TRIBUTARY_RELAY_WITNESS_LOG_KEY",),
        str,
        None,
        "witness the server's transparency log: its checkpoint verifier key, got out of band (docs/ledger.md)",
    ),
    "witness_name": _Option(
        "--witness-name",
        ("TRIBUTARY_RELAY_WITNESS_NAME",),
        str,
        None,
        "the witness's name, no spaces (default: <host>/tributary-relay)",
    ),
    "witness_key": _Option(
        "--witness-key",
        ("TRIBUTARY_RELAY_WITNESS_KEY",),
        Path,
        None,
        "the witness's Ed25519 private key (default: --signing-key)",
    ),
    "witness_state": _Option(
        "--witness-state",
        ("TRIBUTARY_RELAY_WITNESS_STATE",),
        Path,
        None,
        "where the witness keeps the last checkpoint it cosigned (default: <buffer>.witness.json)",
    ),
    "witness_s": _Option(
        "--witness-seconds",
        ("TRIBUTARY_RELAY_WITNESS_SECONDS",),
        _positive(float),
        300.0,
        "how often the witness checks and cosigns the server's latest checkpoint",
    ),
    "log_level": _Option("--log-level", ("TRIBUTARY_RELAY_LOG_LEVEL",), str.upper, "INFO", "logging level"),
}

# The largest forwarded batch, in bytes: well under the server's batch limit (16 MiB by default).
FORWARD_BATCH_BYTES = 4 * 1024**2


def relay_config_parse(*, argv: list[str], environ: Mapping[str, str]) -> RelayConfig:
    """Flags win over variables, variables over defaults; exits with status 2 and a message when unusable."""
    parser = argparse.ArgumentParser(
        prog="python -m lineage_relay",
        allow_abbrev=False,  # a flag is given in full (file mode checks whether --server-url was)
        description="An OpenLineage HTTP endpoint (POST /api/v1/lineage and /api/v1/lineage/batch) that signs each "
        "event with this node's key, keeps it in a local SQLite buffer and forwards it to the Tributary server "
        "(--server-url) or, where no server can be reached, writes it to JSON-Lines files (--output-dir).",
    )
    for dest, option in _OPTIONS.items():
        env_value = next((environ[name] for name in option.env if environ.get(name)), None)
        default = option.default
        if env_value is not None:
            try:
                default = option.kind(env_value)
            except (ValueError, argparse.ArgumentTypeError) as exc:
                parser.error(f"{option.env[0]}: {exc}")
        variables = " or ".join(f"${name}" for name in option.env)
        shown = "" if option.default is None else f"; default {option.default}"
        parser.add_argument(
            option.flag,
            dest=dest,
            type=option.kind,
            default=default,
            metavar=option.flag.removeprefix("--").upper().replace("-", "_"),
            help=f"{option.help} ({variables}{shown})",
        )
    args = parser.parse_args(argv)
    if args.output_dir is not None:
        flagged = any(arg == "--server-url" or arg.startswith("--server-url=") for arg in argv)
        if flagged or environ.get("TRIBUTARY_RELAY_SERVER_URL"):
            parser.error("give --server-url (forward to the server) or --output-dir (write files), not both")
        # The agent's TRIBUTARY_URL on the same node may point at this relay: it does not make a server.
        args.server_url = None
        if args.witness_log_key:
            parser.error("--witness-log-key needs --server-url: a relay writing files has no log to witness")
    for dest in ("server_url", "signing_key"):
        if getattr(args, dest) is None and not (dest == "server_url" and args.output_dir is not None):
            option = _OPTIONS[dest]
            parser.error(
                f"{option.flag} (or ${option.env[0]}) is required, or --output-dir for file mode"
                if dest == "server_url"
                else f"{option.flag} (or ${option.env[0]}) is required"
            )
    return RelayConfig(**vars(args))
