"""Agent configuration from `install()` arguments and `TRIBUTARY_*` environment variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

TRANSPORTS = ("http", "file", "http+spill")

# field name -> environment variable
ENV = {
    "url": "TRIBUTARY_URL",
    "token": "TRIBUTARY_TOKEN",
    "namespace": "TRIBUTARY_NAMESPACE",
    "transport": "TRIBUTARY_TRANSPORT",
    "file_path": "TRIBUTARY_FILE_PATH",
    "signing_key_path": "TRIBUTARY_SIGNING_KEY",
    "flush_timeout_s": "TRIBUTARY_FLUSH_TIMEOUT",
    "read_actions": "TRIBUTARY_READ_ACTIONS",
    "dataset_owners": "TRIBUTARY_DATASET_OWNERS",
    "job_owners": "TRIBUTARY_JOB_OWNERS",
    "streaming_progress_interval_s": "TRIBUTARY_STREAMING_INTERVAL",
    "heartbeat_interval_s": "TRIBUTARY_HEARTBEAT_INTERVAL",
}


@dataclass(frozen=True)
class AgentConfig:
    """Everything the agent can be told. Arguments win over environment variables."""

    url: str | None = None
    token: str | None = None
    namespace: str = "spark"
    transport: str | None = None  # default: http if url is set, else file if file_path is set
    file_path: str | None = None
    signing_key_path: str | None = None
    app_name: str | None = None
    flush_timeout_s: float = 10.0
    read_actions: bool = False  # child runs for actions that write nothing (collect, count...)
    # pattern -> owner(s), or the `PATTERN=OWNER[,OWNER];…` text form (see `spark_agent.owners`)
    dataset_owners: Mapping[str, Any] | str | None = None
    job_owners: Mapping[str, Any] | str | None = None
    queue_capacity: int = 10_000
    batch_size: int = 50
    http_timeout_s: float = 5.0
    http_max_retries: int = 4
    file_max_bytes: int = 64 * 2**20
    file_backups: int = 5
    merge_window_s: float = 3.0
    # a streaming query's RUNNING events: the first progress at once, then at most one per interval
    streaming_progress_interval_s: float = 30.0
    # with a signing key: a signed heartbeat announcing the chain's head this often, and at shutdown
    heartbeat_interval_s: float = 300.0

    @property
    def resolved_transport(self) -> str | None:
        if self.transport:
            return self.transport
        if self.url:
            return "http"
        return "file" if self.file_path else None

    def problems(self) -> list[str]:
        """What stops this configuration from delivering events (empty when it is usable)."""
        transport = self.resolved_transport
        if transport is None:
            return ["no destination: set TRIBUTARY_URL or TRIBUTARY_FILE_PATH"]
        if transport not in TRANSPORTS:
            return [f"unknown transport {transport!r} (expected one of {', '.join(TRANSPORTS)})"]
        out = []
        if transport in ("http", "http+spill") and not self.url:
            out.append(f"transport {transport} needs TRIBUTARY_URL")
        if transport in ("file", "http+spill") and not self.file_path:
            out.append(f"transport {transport} needs TRIBUTARY_FILE_PATH")
        return out


def resolve_config(overrides: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> AgentConfig:
    """Build the configuration: `overrides` (non-None) > environment > defaults."""
    env = os.environ if environ is None else environ
    known = {f.name: f for f in fields(AgentConfig)}
    unknown = set(overrides) - set(known)
    if unknown:
        raise TypeError(f"unknown agent option(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for name, var in ENV.items():
        raw = env.get(var)
        if raw not in (None, ""):
            values[name] = _coerce(known[name].default, raw)
    values.update({k: v for k, v in overrides.items() if v is not None})
    return AgentConfig(**values)


def _coerce(default: Any, raw: str) -> Any:
    if isinstance(default, bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, float):
        return float(raw)
    return raw
