"""Sending one rendered message: an email through Django's email backend, or an HTTP POST to a webhook."""

from __future__ import annotations

import hashlib
import time
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.core.mail import EmailMultiAlternatives

from lineage_app.notify.addresses import DestinationInvalid, url_check
from lineage_app.notify.messages import Message
from lineage_app.notify.models import Destination
from lineage_app.notify.rendering import email_render, json_body, slack_render, teams_render, webhook_render
from lineage_app.notify.signing import IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signature_header

RENDERERS = {
    Destination.Kind.SLACK: slack_render,
    Destination.Kind.TEAMS: teams_render,
    Destination.Kind.WEBHOOK: webhook_render,
}


class SendFailed(Exception):
    """The destination did not take the message; the reason is kept as the delivery's last error."""


def message_send(*, destination: Destination, message: Message, idempotency_key: str) -> None:
    """Send `message` to `destination` once; `SendFailed` says why it did not arrive."""
    if destination.kind == Destination.Kind.EMAIL:
        _email_send(destination=destination, message=message, idempotency_key=idempotency_key)
    else:
        _post(destination=destination, message=message, idempotency_key=idempotency_key)


def message_id(*, destination: Destination, idempotency_key: str) -> str:
    """The email's Message-ID: the same for every retry of one delivery, so mail clients show it once."""
    digest = hashlib.sha256(f"{destination.pk}:{idempotency_key}".encode()).hexdigest()[:40]
    return f"<{digest}@{settings.NOTIFY_MESSAGE_ID_DOMAIN}>"


def _email_send(*, destination: Destination, message: Message, idempotency_key: str) -> None:
    rendered = email_render(message)
    mail = EmailMultiAlternatives(
        subject=rendered.subject,
        body=rendered.text,
        from_email=settings.NOTIFY_EMAIL_FROM,
        to=[destination.email],
        headers={"Message-ID": message_id(destination=destination, idempotency_key=idempotency_key)},
    )
    mail.attach_alternative(rendered.html, "text/html")
    try:
        mail.send(fail_silently=False)
    except Exception as exc:  # SMTP errors, refused connections, timeouts: all worth a retry
        raise SendFailed(f"email to {destination.email}: {type(exc).__name__}: {exc}") from exc


def _post(*, destination: Destination, message: Message, idempotency_key: str) -> None:
    try:
        url_check(destination.url)  # again at send time: the name may resolve elsewhere by now
    except DestinationInvalid as exc:
        raise SendFailed(exc.reason) from None
    body = json_body(RENDERERS[Destination.Kind(destination.kind)](message))
    headers = {"Content-Type": "application/json", IDEMPOTENCY_HEADER: idempotency_key, "User-Agent": "Tributary"}
    if destination.kind == Destination.Kind.WEBHOOK and destination.secret:
        headers[SIGNATURE_HEADER] = signature_header(secret=destination.secret, body=body, timestamp=int(time.time()))
    try:
        # No redirects: a redirect could lead past the address rule, and a webhook that moved should be edited.
        answer = requests.post(
            destination.url, data=body, headers=headers, timeout=settings.NOTIFY_TIMEOUT_SECONDS, allow_redirects=False
        )
    except requests.RequestException as exc:
        raise SendFailed(_redacted(f"{type(exc).__name__}: {exc}", destination.url)) from exc
    if not 200 <= answer.status_code < 300:
        raise SendFailed(_redacted(f"HTTP {answer.status_code}: {answer.text[:200]}", destination.url))


def _redacted(error: str, url: str) -> str:
    """`error` without the URL's path and query: a Slack or Teams webhook's URL is its credential, and
    errors are shown to admins beside deliveries (the host is kept, to say where it failed)."""
    parts = urlsplit(url)
    for secret_part in sorted({url, parts.path, f"{parts.path}?{parts.query}"} - {"", "/", "?"}, key=len, reverse=True):
        error = error.replace(secret_part, "/…")
    return error
