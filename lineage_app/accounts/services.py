"""Token issuing and checking: `token_create` returns the secret once; only its digest is kept."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.token_cache import verified_token, verified_token_remember, verified_tokens_forget
from lineage_app.rate_limits import rate_limit_parse

TOKEN_MARK = "trb"


def _digest(secret: str) -> str:
    # Tokens carry 256 bits of randomness, so a fast hash is enough to make a leaked
    # table useless; a slow password hash would only slow every request down.
    return hashlib.sha256(secret.encode()).hexdigest()


def token_create(
    *, name: str, scope: str, rate_limit: str | None = None, created_by: User | None = None
) -> tuple[ApiToken, str]:
    """Create a token and return it with its plaintext, which is shown once and never stored.

    `rate_limit` (`600/minute`, `unlimited`) overrides the scope's limit; None keeps the scope's."""
    if scope not in ApiToken.Scope.values:
        raise ValueError(f"unknown scope {scope!r}: expected one of {', '.join(ApiToken.Scope.values)}")
    if rate_limit is not None:
        rate_limit_parse(rate_limit)
    prefix = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        name=name,
        scope=scope,
        rate_limit=rate_limit or None,
        prefix=prefix,
        digest=_digest(secret),
        created_by=created_by,
    )
    return token, f"{TOKEN_MARK}_{prefix}_{secret}"


def token_authenticate(*, plaintext: str) -> ApiToken | None:
    """The active token `plaintext` names, or None for anything malformed, unknown or revoked.

    A token verified in the last `API_TOKEN_CACHE_SECONDS` is answered from this process's
    cache (`token_cache`), so a revocation made elsewhere takes effect within that time.
    """
    mark, _, rest = plaintext.partition("_")
    prefix, _, secret = rest.partition("_")
    if mark != TOKEN_MARK or not prefix or not secret:
        return None
    digest = _digest(secret)
    token = verified_token(prefix=prefix, digest=digest)
    if token is None:
        token = ApiToken.objects.filter(prefix=prefix, revoked_at__isnull=True).first()
        if token is None or not hmac.compare_digest(token.digest, digest):
            return None
        verified_token_remember(prefix=prefix, digest=digest, token=token)
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        # Coarse on purpose: one write a minute per token, not one per request.
        token.last_used_at = now
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def tokens_revoke(*, tokens: QuerySet[ApiToken]) -> int:
    """Revoke the active tokens among `tokens`; returns how many.

    This process refuses them at once; other processes within `API_TOKEN_CACHE_SECONDS`.
    """
    token_ids = set(tokens.filter(revoked_at__isnull=True).values_list("pk", flat=True))
    count = ApiToken.objects.filter(pk__in=token_ids).update(revoked_at=timezone.now())
    verified_tokens_forget(token_ids=token_ids)
    return count
