"""Where a destination may point: a well-formed http(s) URL or mailbox and, if `NOTIFY_DENY_PRIVATE_ADDRESSES`
is set, never a private, loopback or link-local address."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator

PRIVATE_RULE = "NOTIFY_DENY_PRIVATE_ADDRESSES"

_url_valid = URLValidator(schemes=["http", "https"])
_email_valid = EmailValidator()


class DestinationInvalid(ValueError):
    """A destination's setting (its address, its name) is malformed or not allowed; `field` names the input at fault."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def url_check(url: str, *, field: str = "url") -> None:
    """Refuse a malformed http(s) URL, or under `NOTIFY_DENY_PRIVATE_ADDRESSES` one whose host is or
    resolves to a non-public address."""
    try:
        _url_valid(url)
    except ValidationError:
        raise DestinationInvalid(field, "must be a well-formed http:// or https:// URL") from None
    if settings.NOTIFY_DENY_PRIVATE_ADDRESSES:
        host = urlsplit(url).hostname or ""
        private = _first_private(host)
        if private is not None:
            raise DestinationInvalid(
                field,
                f"{host} is a private, loopback or link-local address ({private}), "
                f"which {PRIVATE_RULE} denies for destinations",
            )


def email_check(address: str, *, field: str = "email") -> None:
    """Refuse a malformed mailbox (the domain's addresses are the mail server's concern, not checked)."""
    try:
        _email_valid(address)
    except ValidationError:
        raise DestinationInvalid(field, "must be a well-formed email address, e.g. oncall@example.com") from None


def _first_private(host: str) -> str | None:
    """The first of `host`'s addresses that is not public, if any; a name that does not resolve has none."""
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
        addresses = [literal]
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None)
        except OSError:
            return None
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    for address in addresses:
        if not address.is_global:
            return str(address)
    return None
