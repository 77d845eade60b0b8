"""The loopback ports the local stack needs: is one free, which free one to use instead, is Bolt up."""

from __future__ import annotations

import socket
import struct
from collections.abc import Collection
from dataclasses import dataclass

# Bolt's preamble, then four protocol versions the client offers (5.x down to 4.x) as
# `[0, range, minor, major]`; a Bolt server answers with the four bytes of the one it picked.
BOLT_MAGIC = b"\x60\x60\xb0\x17"
BOLT_VERSIONS = struct.pack(">4I", 0x00040405, 0x00000404, 0x00000104, 0x00000003)


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server could listen on `host:port` now (as servers do: with SO_REUSEADDR)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port_after(port: int, *, avoid: Collection[int] = (), host: str = "127.0.0.1") -> int:
    """The first free port above `port` (not in `avoid`), so a suggestion reads like the default."""
    for candidate in range(port + 1, min(port + 200, 65536)):
        if candidate not in avoid and port_free(candidate, host):
            return candidate
    with socket.socket() as sock:  # nothing nearby: let the kernel choose
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def bolt_answers(host: str, port: int, *, timeout: float = 1.0) -> bool:
    """Whether a Bolt server completes the version handshake on `host:port` (no driver, no log lines)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(BOLT_MAGIC + BOLT_VERSIONS)
            reply = b""
            while len(reply) < 4:
                chunk = sock.recv(4 - len(reply))
                if not chunk:
                    return False
                reply += chunk
    except OSError:
        return False
    return reply != b"\x00\x00\x00\x00"  # all zeros: the server speaks none of the offered versions


@dataclass(frozen=True)
class PortNeed:
    """One port the stack is about to listen on: who wants it and how a user moves it."""

    port: int
    what: str  # "web server", "embedded graph engine, Bolt"…
    setting: str  # how to move it, `{port}` standing for a free port, e.g. "set NEO4J_URI=bolt://127.0.0.1:{port}"

    def taken_message(self, suggestion: int) -> str:
        return (
            f"port {self.port} ({self.what}) is in use by another program: "
            f"{self.setting.format(port=suggestion)} or stop that program"
        )
