"""Keep-alive HTTP/1.1 POST load for the ingest benchmark, in a process of its own so it costs the server little.

Reads pre-encoded bodies (one JSON document a line), sends each once, and prints one JSON
object: for every body, in order, `[sent_at (epoch s), latency (s), status, id]`; for a batch body
(`POST /api/v1/lineage/batch`) `id` is the list of its events' ids, from the receipt's `results`.

    python bench/http_load.py URL TOKEN BODIES --clients 4        # closed loop: 4 clients back to back
    python bench/http_load.py URL TOKEN BODIES --rate 200         # open loop: a new post every 1/200 s
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import deque
from pathlib import Path
from urllib.parse import urlsplit

Result = tuple[float, float, int, int | list[int | None] | None]


class Connection:
    """One persistent connection; `post` writes a prepared request and reads its answer."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, request: bytes) -> Result:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        sent_at, started = time.time(), time.perf_counter()
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        lower = head.lower()
        length = int(lower.split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
        body = await self.reader.readexactly(length)
        latency = time.perf_counter() - started
        if b"connection: close" in lower:
            self.writer.close()
            self.writer = None
        status = int(head[9:12])
        return sent_at, latency, status, _ids(json.loads(body)) if status in (200, 201) else None


def _ids(answer: dict) -> int | list[int | None] | None:
    """A single post's event id, or a batch receipt's ids in the order of its events."""
    if "results" in answer:
        return [result["id"] for result in answer["results"]]
    return answer.get("id")


def prepared(url: str, token: str, bodies: list[bytes]) -> tuple[str, int, list[bytes]]:
    parts = urlsplit(url)
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nContent-Length: "
    )
    requests = [f"{head}{len(body)}\r\n\r\n".encode() + body for body in bodies]
    return parts.hostname or "127.0.0.1", parts.port or 80, requests


async def closed_loop(host: str, port: int, requests: list[bytes], clients: int) -> list[Result]:
    results: list[Result | None] = [None] * len(requests)
    pending = deque(enumerate(requests))

    async def client() -> None:
        connection = Connection(host, port)
        while pending:
            index, request = pending.popleft()
            results[index] = await connection.post(request)

    await asyncio.gather(*(client() for _ in range(clients)))
    return [r for r in results if r is not None]


async def open_loop(host: str, port: int, requests: list[bytes], rate: float, connections: int) -> list[Result]:
    results: list[Result | None] = [None] * len(requests)
    idle: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(connections):
        idle.put_nowait(Connection(host, port))

    async def send(index: int, request: bytes) -> None:
        connection = await idle.get()
        try:
            results[index] = await connection.post(request)
        finally:
            idle.put_nowait(connection)

    loop = asyncio.get_running_loop()
    begin, tasks = loop.time(), []
    for index, request in enumerate(requests):
        delay = begin + index / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(send(index, request)))
    await asyncio.gather(*tasks)
    return [r for r in results if r is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("bodies", type=Path)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--clients", type=int)
    mode.add_argument("--rate", type=float)
    parser.add_argument("--connections", type=int, default=32, help="open loop: connections to share")
    args = parser.parse_args()
    host, port, requests = prepared(args.url, args.token, args.bodies.read_bytes().splitlines())
    if args.clients:
        results = asyncio.run(closed_loop(host, port, requests, args.clients))
    else:
        results = asyncio.run(open_loop(host, port, requests, args.rate, args.connections))
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
