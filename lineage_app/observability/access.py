"""Who may read metrics: a scrape from `METRICS_ALLOWED_NETWORKS` carrying `METRICS_TOKEN` (when one is set)."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings


def metrics_refusal(*, remote_addr: str, authorization: str) -> int | None:
    """None when this scrape may read the metrics, else the status that refuses it.

    403 when the peer is outside every allowed network (an empty list allows any network), 401 when
    a token is configured and the request does not carry it as `Authorization: Bearer <token>`.
    """
    if settings.METRICS_ALLOWED_NETWORKS and not _address_allowed(remote_addr):
        return 403
    if settings.METRICS_TOKEN:
        scheme, _, offered = authorization.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(offered.strip(), settings.METRICS_TOKEN):
            return 401
    return None


def _address_allowed(remote_addr: str) -> bool:
    try:
        address = ipaddress.ip_address(remote_addr)
    except ValueError:
        return False
    # A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; the configured networks name them as IPv4.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in ipaddress.ip_network(network) for network in settings.METRICS_ALLOWED_NETWORKS)
