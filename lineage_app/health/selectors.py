"""Whether each backing service answers: the database, Redis and the graph engine."""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection

from lineage_app.graph.driver import graph_ping


def _database_up() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:
        return False
    return True


def _redis_up() -> bool:
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
        return bool(client.ping())
    except redis.RedisError:
        return False


def service_health() -> dict[str, str]:
    checks = {"database": _database_up(), "redis": _redis_up(), "graph": graph_ping()}
    return {name: "up" if up else "down" for name, up in checks.items()}
