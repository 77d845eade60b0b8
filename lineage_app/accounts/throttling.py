"""Per-token API rate limits: a DRF throttle that counts each token's requests in Redis, shared by every web process.

The limit is the token's own `rate_limit`, else its scope's (`API_RATE_LIMITS`). Counting is a sliding
window counter from the `limits` library: one Lua script per request, run atomically by Redis, so
concurrent requests in several gunicorn processes are counted exactly; a refused request is not counted.
Logged-in users (sessions: the web UI) and anonymous callers are not rate limited here.

Redis being unreachable must not stop ingestion (an accepted event is committed to the database, not to
Redis): the throttle then lets requests through, says so in the log and `tributary_rate_limit_unavailable`,
and asks Redis again only after `UNAVAILABLE_PAUSE_SECONDS`, so a dead Redis costs requests nothing.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

import redis
from django.conf import settings
from limits import RateLimitItem
from limits.storage import RedisStorage
from limits.strategies import SlidingWindowCounterRateLimiter
from redis.backoff import NoBackoff
from redis.retry import Retry
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from lineage_app.accounts.models import ApiToken
from lineage_app.observability.logs import log_fields_add
from lineage_app.observability.metrics import API_THROTTLED, RATE_LIMIT_UNAVAILABLE
from lineage_app.rate_limits import rate_limit_parse

log = logging.getLogger(__name__)

KEY_PREFIX = "tributary:rate"
# A request waits at most this long for Redis before it is let through uncounted.
REDIS_TIMEOUT_SECONDS = 0.25
UNAVAILABLE_PAUSE_SECONDS = 5.0

_lock = threading.Lock()
_limiter: tuple[str, SlidingWindowCounterRateLimiter] | None = None  # (REDIS_URL it was made for, limiter)
_unavailable_until = 0.0


def token_rate_limit(token: ApiToken) -> RateLimitItem | None:
    """The limit `token` is held to (its own, else its scope's), or None when it has none."""
    return rate_limit_parse(token.rate_limit or settings.API_RATE_LIMITS[token.scope])


def _rate_limiter() -> SlidingWindowCounterRateLimiter:
    """This process's limiter, on a connection pool to `REDIS_URL` (made again if the setting changes)."""
    global _limiter
    url = settings.REDIS_URL
    current = _limiter
    if current is None or current[0] != url:
        with _lock:
            current = _limiter
            if current is not None and current[0] == url:
                return current[1]  # another thread made it meanwhile
            pool = redis.ConnectionPool.from_url(
                url,
                socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
                socket_timeout=REDIS_TIMEOUT_SECONDS,
                retry=Retry(NoBackoff(), 0),  # one try: a check not answered at once lets the request through
            )
            storage = RedisStorage(url, connection_pool=pool, key_prefix=KEY_PREFIX)
            current = _limiter = (url, SlidingWindowCounterRateLimiter(storage))
    return current[1]


class TokenRateThrottle(BaseThrottle):
    """Refuses a token's request past its limit with `Throttled` (429, `Retry-After`, the usual JSON error)."""

    def allow_request(self, request: Request, view: Any) -> bool:
        global _unavailable_until
        token = request.auth
        if not isinstance(token, ApiToken):
            return True
        item = token_rate_limit(token)
        if item is None or time.monotonic() < _unavailable_until:
            return True
        limiter = _rate_limiter()
        key = token.prefix  # unique, and never reused as a row id could be
        try:
            if limiter.hit(item, key):
                return True
            reset_at = limiter.get_window_stats(item, key).reset_time
        except redis.RedisError as exc:
            _unavailable_until = time.monotonic() + UNAVAILABLE_PAUSE_SECONDS
            RATE_LIMIT_UNAVAILABLE.inc()
            log.warning(
                "rate limits not enforced for %.0f s: Redis does not answer (%s)",
                UNAVAILABLE_PAUSE_SECONDS,
                exc,
                extra={"fields": {"redis_error": str(exc)}},
            )
            return True
        wait = max(1, math.ceil(reset_at - time.time()))
        API_THROTTLED.labels(scope=token.scope).inc()
        log_fields_add(rate_limit=str(item), retry_after=wait)
        raise Throttled(wait=wait, detail=f"this token's rate limit ({item}) is used up.")
