"""Verified API tokens remembered in this process for `API_TOKEN_CACHE_SECONDS`, so a request needs no query.

Saving or deleting a token (revoking it included) forgets it here at once; other processes
notice within the cache's lifetime, when their entry expires and the next request asks again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from typing import Any

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from lineage_app.accounts.models import ApiToken

_lock = threading.Lock()
# The cache's time source; a test replaces it to expire entries without waiting.
clock: Callable[[], float] = time.monotonic
# (prefix, digest of the secret) -> (monotonic expiry, the token row as verified)
_verified: dict[tuple[str, str], tuple[float, ApiToken]] = {}


def verified_token(*, prefix: str, digest: str) -> ApiToken | None:
    """The token verified for this prefix and secret digest, while its entry is fresh.

    Looked up by the digest, never compared with the secret: a lookup's timing says nothing usable.
    """
    entry = _verified.get((prefix, digest))
    if entry is None or entry[0] <= clock():
        return None
    return entry[1]


def verified_token_remember(*, prefix: str, digest: str, token: ApiToken) -> None:
    with _lock:
        _verified[(prefix, digest)] = (clock() + settings.API_TOKEN_CACHE_SECONDS, token)


def verified_tokens_forget(*, token_ids: Collection[int]) -> None:
    """Forget these tokens: the next request that names one checks it in the database again."""
    with _lock:
        for key, (_, token) in list(_verified.items()):
            if token.pk in token_ids:
                del _verified[key]


@receiver(post_save, sender=ApiToken, dispatch_uid="api-token-cache-saved")
@receiver(post_delete, sender=ApiToken, dispatch_uid="api-token-cache-deleted")
def _forget_changed_token(sender: type[ApiToken], instance: ApiToken, **kwargs: Any) -> None:
    verified_tokens_forget(token_ids={instance.pk})
