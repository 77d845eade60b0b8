"""The address a request came from, behind the reverse proxies the settings trust (`TRUSTED_PROXY_COUNT`)."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """`REMOTE_ADDR`, or behind `TRUSTED_PROXY_COUNT` proxies the address the outermost one saw.

    Each proxy appends the address it saw to `X-Forwarded-For`, so the entries a client may have sent
    itself come first: the client's address is read counting from the right, never the left.
    A header with fewer entries, or an entry that is not an address, is not trusted.
    """
    remote = str(request.META.get("REMOTE_ADDR", ""))
    hops = settings.TRUSTED_PROXY_COUNT
    if hops <= 0:
        return remote
    forwarded = [part.strip() for part in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",")]
    forwarded = [part for part in forwarded if part]
    if len(forwarded) < hops:
        return remote
    try:
        return str(ipaddress.ip_address(forwarded[-hops]))
    except ValueError:
        return remote
