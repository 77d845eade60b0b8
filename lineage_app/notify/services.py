"""Writes of the notify app: destinations, enqueueing a message to the outbox, and delivering it once."""

from __future__ import annotations

import logging
import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from lineage_app.celery import app as celery_app
from lineage_app.notify.addresses import DestinationInvalid, email_check, url_check
from lineage_app.notify.messages import Message
from lineage_app.notify.models import Delivery, Destination
from lineage_app.notify.transports import SendFailed, message_send
from lineage_app.observability.metrics import NOTIFY_DELIVERY_ATTEMPTS

logger = logging.getLogger(__name__)

# The registered name of `lineage_app.notify.tasks.deliver`: sent by name, so services need not import tasks.
DELIVER_TASK = "lineage_app.notify.tasks.deliver"
State = Delivery.State


# --- Destinations ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DestinationInput:
    name: str
    kind: str
    url: str = ""
    email: str = ""
    enabled: bool = True


def destination_check(*, data: DestinationInput, instance: Destination | None = None) -> None:
    """Refuse settings the kind cannot use or a name taken (`DestinationInvalid` names the field and the rule)."""
    others = Destination.objects.exclude(pk=instance.pk) if instance is not None else Destination.objects.all()
    if others.filter(name=data.name).exists():
        raise DestinationInvalid("name", f"a destination named {data.name!r} exists already")
    if data.kind == Destination.Kind.EMAIL:
        if data.url:
            raise DestinationInvalid("url", "an email destination has an `email`, not a `url`")
        email_check(data.email)
    else:
        if data.email:
            raise DestinationInvalid("email", f"a {data.kind} destination has a `url`, not an `email`")
        url_check(data.url)


def destination_create(*, data: DestinationInput, secret: str) -> Destination:
    destination_check(data=data)
    return Destination.objects.create(
        name=data.name, kind=data.kind, url=data.url, email=data.email, enabled=data.enabled, secret=secret
    )


def destination_update(*, destination: Destination, changes: dict[str, Any], secret: str | None) -> Destination:
    """Change the given settings (`name`, `kind`, `url`, `email`, `enabled`), the others kept; `secret`
    None keeps the stored one (it is never read back), "" removes it."""
    current = {name: getattr(destination, name) for name in ("name", "kind", "url", "email", "enabled")}
    data = DestinationInput(**{**current, **changes})
    destination_check(data=data, instance=destination)
    for name, value in vars(data).items():
        setattr(destination, name, value)
    if secret is not None:
        destination.secret = secret
    destination.save()
    return destination


def destination_delete(*, destination: Destination) -> None:
    """Delete the destination and its deliveries (their record goes with it)."""
    destination.delete()


EXAMPLE_WEBHOOK, EXAMPLE_MAILBOX = "example webhook", "example mailbox"


@dataclass(frozen=True, kw_only=True)
class ExampleDestinations:
    webhook: Destination
    mailbox: Destination


def example_destinations_get_or_create(
    *, webhook_url: str, webhook_secret: str, email: str = "oncall@example.com"
) -> ExampleDestinations:
    """`make run`'s destinations: the local receiver's signed webhook at `webhook_url` (it moves with its
    port each start) and a mailbox that the file email backend writes under `var/mail/`."""
    webhook, _ = Destination.objects.update_or_create(
        name=EXAMPLE_WEBHOOK,
        defaults={"kind": Destination.Kind.WEBHOOK, "url": webhook_url, "secret": webhook_secret, "email": ""},
    )
    mailbox, _ = Destination.objects.update_or_create(
        name=EXAMPLE_MAILBOX, defaults={"kind": Destination.Kind.EMAIL, "email": email, "url": ""}
    )
    return ExampleDestinations(webhook=webhook, mailbox=mailbox)


# --- The outbox --------------------------------------------------------------------------------------


def enqueue(*, destination: Destination, message: Message, idempotency_key: str) -> Delivery:
    """Write `message` to the outbox for `destination`, in the caller's transaction; a worker sends it
    once that transaction commits. A second enqueue with the same key and destination returns the first row."""
    delivery, created = _delivery_insert(destination=destination, message=message, idempotency_key=idempotency_key)
    if created:
        delivery_id = delivery.pk
        transaction.on_commit(lambda: delivery_schedule(delivery_id=delivery_id))
    return delivery


def _delivery_insert(*, destination: Destination, message: Message, idempotency_key: str) -> tuple[Delivery, bool]:
    existing = Delivery.objects.filter(destination=destination, idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():  # a savepoint: a lost race leaves the caller's transaction usable
            delivery = Delivery.objects.create(
                destination=destination,
                idempotency_key=idempotency_key,
                message=message.to_json(),
                next_attempt_at=timezone.now(),
            )
    except IntegrityError:
        return Delivery.objects.get(destination=destination, idempotency_key=idempotency_key), False
    return delivery, True


def delivery_schedule(*, delivery_id: int, countdown: float = 0) -> None:
    """Hand a delivery to the workers; if the broker is down the sweeper finds it later."""
    try:
        celery_app.send_task(DELIVER_TASK, args=[delivery_id], countdown=countdown or None)
    except Exception:  # the delivery is already durable: losing this message loses nothing
        logger.warning("broker unavailable; delivery %s left for the sweeper", delivery_id)


def delivery_reschedule(*, delivery: Delivery) -> None:
    """After a failed try, hand the delivery back to the workers for when it is due again."""
    if delivery.state == State.PENDING:
        wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
        delivery_schedule(delivery_id=delivery.pk, countdown=max(wait, 0.0))


def delivery_attempt(*, delivery_id: int) -> Delivery | None:
    """Send the delivery if it is due and no other worker has it: claim it (one guarded UPDATE, so of
    two workers only one wins), send, record the outcome. None when it was not this caller's to send."""
    claimed_at = timezone.now()
    won = Delivery.objects.filter(pk=delivery_id, state=State.PENDING, next_attempt_at__lte=claimed_at).update(
        state=State.SENDING, claimed_at=claimed_at, attempts=F("attempts") + 1
    )
    if not won:
        return None
    delivery = Delivery.objects.select_related("destination").get(pk=delivery_id)
    destination = delivery.destination
    try:
        if not destination.enabled:
            raise SendFailed(f"destination {destination.name!r} is disabled")
        message_send(
            destination=destination,
            message=Message.from_json(delivery.message),
            idempotency_key=delivery.idempotency_key,
        )
    except SendFailed as exc:
        return _delivery_failed(delivery=delivery, claimed_at=claimed_at, error=str(exc))
    except Exception as exc:  # a bug (a message that will not render): counted as a try, so it ends dead, not stuck
        logger.exception("delivery %s could not be sent", delivery.pk)
        return _delivery_failed(delivery=delivery, claimed_at=claimed_at, error=f"internal error: {type(exc).__name__}")
    _delivery_settle(delivery, claimed_at=claimed_at, state=State.SENT, sent_at=timezone.now(), last_error="")
    NOTIFY_DELIVERY_ATTEMPTS.labels(kind=destination.kind, outcome="sent").inc()
    return delivery


def retry_delay(*, attempts: int) -> float:
    """Seconds before the next try after `attempts` failed ones: doubling from the base, capped, with jitter
    so that deliveries failing together do not all come back at once."""
    delay = min(settings.NOTIFY_RETRY_MAX_SECONDS, settings.NOTIFY_RETRY_BASE_SECONDS * 2 ** (attempts - 1))
    return delay * random.uniform(0.8, 1.0)  # spreading retries, not a secret


def _delivery_failed(*, delivery: Delivery, claimed_at: datetime, error: str) -> Delivery:
    kind = delivery.destination.kind
    if delivery.attempts >= settings.NOTIFY_MAX_ATTEMPTS:
        logger.error("delivery %s dead-lettered after %d tries: %s", delivery.pk, delivery.attempts, error)
        _delivery_settle(delivery, claimed_at=claimed_at, state=State.DEAD, last_error=error)
        NOTIFY_DELIVERY_ATTEMPTS.labels(kind=kind, outcome="dead").inc()
    else:
        logger.warning("delivery %s failed (try %d): %s", delivery.pk, delivery.attempts, error)
        due = timezone.now() + timedelta(seconds=retry_delay(attempts=delivery.attempts))
        _delivery_settle(delivery, claimed_at=claimed_at, state=State.PENDING, last_error=error, next_attempt_at=due)
        NOTIFY_DELIVERY_ATTEMPTS.labels(kind=kind, outcome="failed").inc()
    return delivery


def _delivery_settle(delivery: Delivery, *, claimed_at: datetime, **changes: object) -> None:
    """Record the outcome, if the claim is still this caller's (a lapsed claim was handed on: the sweeper)."""
    Delivery.objects.filter(pk=delivery.pk, state=State.SENDING, claimed_at=claimed_at).update(
        claimed_at=None, **changes
    )
    for name, value in {"claimed_at": None, **changes}.items():
        setattr(delivery, name, value)


def deliveries_release_lapsed(*, lease_seconds: float) -> int:
    """Hand back deliveries whose worker died mid-send (claimed longer ago than the lease) to be tried again."""
    lapsed = timezone.now() - timedelta(seconds=lease_seconds)
    return Delivery.objects.filter(state=State.SENDING, claimed_at__lt=lapsed).update(
        state=State.PENDING, claimed_at=None, next_attempt_at=timezone.now()
    )


def delivery_retry(*, delivery: Delivery) -> Delivery:
    """Give a dead-lettered delivery a fresh round of tries, now (admins, after fixing the destination)."""
    Delivery.objects.filter(pk=delivery.pk, state=State.DEAD).update(
        state=State.PENDING, attempts=0, next_attempt_at=timezone.now()
    )
    delivery.refresh_from_db()
    delivery_id = delivery.pk
    transaction.on_commit(lambda: delivery_schedule(delivery_id=delivery_id))
    return delivery


TEST_MESSAGE = Message(
    title="Tributary test message",
    summary="This destination is set up: Tributary's alerts will reach it.",
    severity="info",
    facts=(("Sent by", "Tributary"),),
    event={"type": "test", "message": "This destination is set up: Tributary's alerts will reach it."},
)


def destination_test(*, destination: Destination) -> Delivery:
    """Send a test message now, in this process, and answer the delivery as it stands after one try (a
    failed try is retried by the workers like any other)."""
    delivery, _ = _delivery_insert(
        destination=destination, message=TEST_MESSAGE, idempotency_key=f"test:{destination.pk}:{uuid.uuid4()}"
    )
    after = delivery_attempt(delivery_id=delivery.pk)
    if after is not None:
        delivery_reschedule(delivery=after)
    delivery.refresh_from_db()
    return delivery
