"""Failed sign-ins and lockouts in the log and the metrics; django-axes counts the failures and does the locking.

Axes marks the request it handles: `axes_locked_out` once a lockout refuses it, and
`axes_failures_since_start` once it has counted the failure. A sign-in refused by a lockout already in
place is marked locked out and never counted (`AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False`);
a wrong password is counted, and is marked locked out too when its count reaches the limit. The
receivers below tell the cases apart by those marks, whichever runs first, axes' receiver or these.
"""

from __future__ import annotations

import logging
from typing import Any

from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from lineage_app.client_address import client_ip
from lineage_app.observability.metrics import LOGIN_FAILURES, LOGIN_LOCKOUTS

log = logging.getLogger(__name__)

INVALID_CREDENTIALS, LOCKED_OUT = "invalid_credentials", "locked_out"


def _refused_by_lockout(request: HttpRequest) -> bool:
    """A lockout in place refused this sign-in (its password was not even checked)."""
    return (
        bool(getattr(request, "axes_locked_out", False)) and getattr(request, "axes_failures_since_start", None) is None
    )


def _who(request: HttpRequest | None, username: Any) -> dict[str, Any]:
    return {
        "username": str(username)[:150] if username is not None else None,
        "client_ip": getattr(request, "axes_ip_address", None) or (client_ip(request) if request is not None else None),
        "path": request.path if request is not None else None,
    }


@receiver(user_login_failed, dispatch_uid="tributary-login-failed")
def _login_failed(sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any) -> None:
    reason = LOCKED_OUT if request is not None and _refused_by_lockout(request) else INVALID_CREDENTIALS
    LOGIN_FAILURES.labels(reason=reason).inc()
    fields = {"event": "login_failed", "reason": reason, **_who(request, credentials.get("username"))}
    log.warning(
        "sign-in failed for %r from %s (%s)", fields["username"], fields["client_ip"], reason, extra={"fields": fields}
    )


@receiver(user_locked_out, dispatch_uid="tributary-login-locked-out")
def _locked_out(sender: Any, request: HttpRequest, username: Any = None, ip_address: Any = None, **kwargs: Any) -> None:
    if _refused_by_lockout(request):
        return  # a lockout already in place, counted and logged when it began
    LOGIN_LOCKOUTS.inc()
    minutes = settings.LOGIN_LOCKOUT_MINUTES
    fields = {
        "event": "login_lockout",
        **_who(request, username),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "lockout_minutes": minutes or None,
    }
    log.warning(
        "sign-in locked out: %d failures for %r or from %s; locked %s",
        settings.AXES_FAILURE_LIMIT,
        fields["username"],
        fields["client_ip"],
        f"until {minutes} minutes after the last failure" if minutes else "until an admin unlocks it",
        extra={"fields": fields},
    )
