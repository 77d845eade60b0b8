"""What the deployment tests share: a fresh PostgreSQL database, as production runs on."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest

POSTGRES = os.environ.get("TRIBUTARY_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="module")
def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this module, dropped afterwards."""
    try:
        admin = psycopg.connect(POSTGRES, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL at {POSTGRES}: {exc}")
    name = f"tributary_deploy_{uuid.uuid4().hex[:8]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    yield POSTGRES.rsplit("/", 1)[0] + "/" + name
    admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    admin.close()
