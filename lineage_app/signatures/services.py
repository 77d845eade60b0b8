"""Signature writes: register producer keys."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError

from lineage_app.signatures.models import ProducerKey, pem_key_id


def producer_key_register(
    *, producer: str, public_key: str, allowed_namespaces: Iterable[str] = (), note: str = ""
) -> tuple[ProducerKey, bool]:
    """Register `public_key` (Ed25519 PEM) for `producer`; returns the key and whether it is new.

    Registering the same key for the same producer again changes nothing, so a setup script may
    call this on every start. `ValidationError` for a PEM that is not an Ed25519 public key, or
    a key already registered for another producer.
    """
    kid = pem_key_id(public_key)
    existing = ProducerKey.objects.filter(key_id=kid).first()
    if existing is not None:
        if existing.producer != producer:
            raise ValidationError(f"key {kid} is already registered for producer {existing.producer!r}")
        return existing, False
    key = ProducerKey(
        producer=producer,
        public_key=public_key,
        key_id=kid,
        allowed_namespaces="\n".join(allowed_namespaces),
        note=note,
    )
    key.full_clean()
    key.save()
    return key, True
