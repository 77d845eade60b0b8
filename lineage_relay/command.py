"""`python -m lineage_relay` (`tributary-relay`): run the edge relay in the foreground until SIGTERM or SIGINT."""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import sqlite3
import sys
import threading
import uuid
from types import FrameType
from typing import Any

from lineage_protocol import (
    LogClient,
    LogUnreachable,
    NoteError,
    StreamChain,
    Witness,
    WitnessStateError,
    load_private_key,
    parse_vkey,
)
from lineage_relay.buffer import BufferRefused, EventBuffer
from lineage_relay.config import FORWARD_BATCH_BYTES, RelayConfig, relay_config_parse
from lineage_relay.drain import Drain
from lineage_relay.forwarder import Forwarder, ServerClient, ServerStatus
from lineage_relay.server import Relay, RelayHttpServer
from lineage_relay.writer import FileWriter, OutputStatus, directory_lock, output_sink

log = logging.getLogger("lineage_relay")

_STOP_TIMEOUT_S = 60.0  # how long the batch in flight may take to be answered at shutdown
_BACKOFF_BASE_S = 0.2


def main(argv: list[str] | None = None) -> int:
    config = relay_config_parse(argv=sys.argv[1:] if argv is None else argv, environ=os.environ)
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        key = load_private_key(config.signing_key)
        client = None
        if config.output_dir is not None:
            directory_lock(config.output_dir)  # held until the process ends
        else:
            assert config.server_url is not None
            client = ServerClient(url=config.server_url, token=config.token, timeout_s=config.timeout_s)
        witness = _witness(config) if config.witness_log_key else None
        buffer = EventBuffer(path=config.buffer, max_bytes=config.max_buffer_bytes, keep_rejected=config.keep_rejected)
    except (OSError, ValueError, sqlite3.Error) as exc:
        print(f"relay: {exc}", file=sys.stderr)
        return 2
    status, drain, destination = _drain(config, buffer, client)
    # A new stream per start, following the head the buffer kept from the last one (docs/ledger.md).
    chain = StreamChain(key, relay_instance(), after=buffer.chain_head())
    relay = Relay(
        buffer=buffer,
        chain=chain,
        status=status,
        drain=drain,
        max_event_bytes=config.max_event_bytes,
        max_batch_bytes=config.max_batch_bytes,
        producer_token=config.producer_token,
    )
    try:
        http = RelayHttpServer((config.host, config.port), relay)
    except OSError as exc:
        print(f"relay: cannot listen on {config.host}:{config.port}: {exc}", file=sys.stderr)
        buffer.close()
        return 2

    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    drain.start()
    serving = threading.Thread(target=http.serve_forever, name="relay-http", daemon=True)
    serving.start()
    beating = threading.Thread(
        target=_heartbeats, args=(relay, stop, config.heartbeat_s), name="relay-heartbeat", daemon=True
    )
    beating.start()
    if witness is not None:
        log.info("relay: witnessing the server's log as %s", witness.vkey)
        threading.Thread(
            target=_witnessing, args=(witness, stop, config.witness_s), name="relay-witness", daemon=True
        ).start()
    backlog = buffer.backlog()
    log.info(
        "relay: listening on http://%s:%d, signing as stream %s, %s (%d events pending in %s)",
        config.host,
        http.server_address[1],
        chain.stream,
        destination,
        backlog.events,
        config.buffer,
    )
    stop.wait()
    log.info("relay: stopping")
    http.shutdown()
    http.server_close()
    beating.join()
    _heartbeat(relay)  # the final head, so a tail withheld after the last periodic heartbeat shows too
    drain.stop(timeout_s=_STOP_TIMEOUT_S)
    left = buffer.backlog().events
    buffer.close()
    log.info("relay: stopped; %d events stay buffered for the next start", left)
    return 0


def relay_instance() -> str:
    """This relay process's stream instance: `relay:<host>:<random>` (a restart is a new stream)."""
    host = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname())[:60] or "host"
    return f"relay:{host}:{uuid.uuid4().hex[:12]}"


def _witness(config: RelayConfig) -> Witness:
    """The relay as a witness of the server's log (`--witness-log-key`); `ValueError` if misconfigured."""
    assert config.witness_log_key is not None and config.server_url is not None
    try:
        log_key = parse_vkey(config.witness_log_key)
        host = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname())[:60] or "host"
        witness = Witness(
            client=LogClient(url=config.server_url, token=config.token or "", timeout_s=config.timeout_s),
            log=log_key,
            name=config.witness_name or f"{host}/tributary-relay",
            private_key=load_private_key(config.witness_key or config.signing_key),
            state_path=config.witness_state or config.buffer.with_name(config.buffer.name + ".witness.json"),
        )
    except NoteError as exc:
        raise ValueError(f"witness: {exc}") from None
    return witness


def _witnessing(witness: Witness, stop: threading.Event, every_s: float) -> None:
    """A round now and every `every_s`; a state file it cannot read stops the witness, never the relay."""
    while not stop.is_set():
        try:
            result = witness.round()
        except WitnessStateError as exc:
            log.error("relay: witness stopped: %s", exc)
            return
        except LogUnreachable as exc:
            log.warning("relay: witness: the log did not answer: %s", exc)
        else:
            (log.info if result.refusal is None else log.error)("relay: witness: %s", result.describe())
        stop.wait(every_s)


def _heartbeats(relay: Relay, stop: threading.Event, every_s: float) -> None:
    while not stop.wait(every_s):
        _heartbeat(relay)


def _heartbeat(relay: Relay) -> None:
    try:
        relay.heartbeat()
    except BufferRefused as exc:  # full or closing: the next one announces the same head, or a later one
        log.warning("relay: heartbeat not buffered: %s", exc.message)


def _drain(
    config: RelayConfig, buffer: EventBuffer, client: ServerClient | None
) -> tuple[ServerStatus | OutputStatus, Drain, str]:
    """What empties the buffer: the forwarder to the server, or in file mode the writer of the output files."""
    parts: dict[str, Any] = {
        "buffer": buffer,
        "batch_events": config.batch_events,
        "batch_bytes": FORWARD_BATCH_BYTES,
        "backoff_base_s": _BACKOFF_BASE_S,
        "backoff_max_s": config.retry_max_s,
    }
    if client is None:
        assert config.output_dir is not None
        sink = output_sink(config.output_dir, max_bytes=config.file_max_bytes, max_age_s=config.file_max_seconds)
        output = OutputStatus(sink=sink)
        return output, FileWriter(status=output, **parts), f"writing files to {config.output_dir}"
    assert config.server_url is not None
    status = ServerStatus(url=config.server_url)
    forwarder = Forwarder(client=client, status=status, **parts)
    return status, forwarder, f"forwarding to {config.server_url}"
