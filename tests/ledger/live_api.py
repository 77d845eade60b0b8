"""The ledger's HTTP API as a witness or producer calls it on a live server: JSON in, status, JSON and headers out."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def api_call(url: str, token: str, path: str, body: Any = None) -> tuple[int, Any, dict[str, str]]:
    """GET `path` (or POST `body` as JSON) on the server at `url` with bearer `token`: the status, the JSON
    answer and the headers, for an error status too."""
    request = urllib.request.Request(
        f"{url}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method="GET" if body is None else "POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), dict(error.headers)
