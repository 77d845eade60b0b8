"""DRF authentication by `Authorization: Bearer <token>`."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.services import token_authenticate


class TokenPrincipal:
    """The caller behind an API token: authenticated, but not a Django user."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False

    def __init__(self, token: ApiToken) -> None:
        self.token = token
        self.username = f"token:{token.name}"

    def __str__(self) -> str:
        return self.username


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        keyword, _, plaintext = header.partition(" ")
        if keyword.lower() != self.keyword.lower():
            return None
        token = token_authenticate(plaintext=plaintext.strip())
        if token is None:
            raise exceptions.AuthenticationFailed("unknown or revoked API token")
        return TokenPrincipal(token), token

    def authenticate_header(self, request: Request) -> str:
        return f'{self.keyword} realm="tributary"'
