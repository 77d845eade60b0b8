"""The OpenAPI schema committed for the UI's generated types is the one the server describes now."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "frontend" / "src" / "api" / "openapi.json"
REGENERATE = (
    "`python manage.py spectacular --format openapi-json --file frontend/src/api/openapi.json`, "
    "then `cd frontend && npm run gen:api` (and commit both files)"
)


def test_committed_openapi_file_matches_the_servers_schema() -> None:
    # A subprocess runs the very command that regenerates the file, with the settings it runs with.
    produced = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--format", "openapi-json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert produced.returncode == 0, produced.stderr
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    assert json.loads(produced.stdout) == committed, (
        "frontend/src/api/openapi.json is not the schema the server describes now; "
        f"regenerate it and the UI's types with: {REGENERATE}"
    )
