"""The ledger's store: each stream's links (one row per event and seq), its open gaps, forked seqs and heartbeats.

Links are a set: a stream's state is what the set implies (its gaps, its forks, a heartbeat beyond
its highest seq), so the order, batching or repetition in which events arrive cannot change it.
`Stream` keeps the aggregates that the incremental update (`ledger.services.ledger_record`) maintains
under the stream's row lock, and `Gap` the missing ranges, so no answer rescans the links.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Stream(models.Model):
    """One producer instance's chain (`<keyId>/<instance>`), with what its links and heartbeats add up to."""

    stream = models.CharField(max_length=200, unique=True)
    key_id = models.CharField(max_length=41, db_index=True)
    producer = models.CharField(max_length=200, db_index=True, help_text="The key's producer, else its key id.")
    first_seen = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)
    high = models.PositiveBigIntegerField(default=0, help_text="The highest seq arrived.")
    seqs = models.PositiveBigIntegerField(default=0, help_text="Distinct seqs arrived.")
    announced = models.PositiveBigIntegerField(default=0, help_text="The highest seq a heartbeat announced.")
    announced_at = models.DateTimeField(null=True, blank=True, help_text="That heartbeat's eventTime.")
    follows = models.CharField(max_length=64, blank=True, help_text="`prev` of seq 1: the head it continues.")

    class Meta:
        ordering = ["producer", "stream"]

    def __str__(self) -> str:
        return self.stream


class Link(models.Model):
    """One verified chained event: its seq in its stream, its content hash and the `prev` it names."""

    stream = models.ForeignKey(Stream, on_delete=models.CASCADE, related_name="links")
    seq = models.PositiveBigIntegerField()
    content_hash = models.CharField(max_length=64)
    prev = models.CharField(max_length=64, blank=True)
    event_time = models.DateTimeField()
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["stream", "seq", "content_hash"], name="ledger_link_unique")]


class Gap(models.Model):
    """Seqs `from_seq`..`to_seq` of a stream that have not arrived though a later one has; deleted when filled."""

    stream = models.ForeignKey(Stream, on_delete=models.CASCADE, related_name="gaps")
    from_seq = models.PositiveBigIntegerField()
    to_seq = models.PositiveBigIntegerField()
    noticed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["from_seq"]
        indexes = [models.Index(fields=["stream", "from_seq"])]


class Fork(models.Model):
    """A seq of a stream with two different events, seen directly or through a `prev` that names another one."""

    stream = models.ForeignKey(Stream, on_delete=models.CASCADE, related_name="forks")
    seq = models.PositiveBigIntegerField()
    noticed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["stream", "seq"], name="ledger_fork_unique")]


class Heartbeat(models.Model):
    """A verified heartbeat: the stream had signed up to `seq`, whose event hashes to `head`, at `event_time`."""

    stream = models.ForeignKey(Stream, on_delete=models.CASCADE, related_name="heartbeats")
    seq = models.PositiveBigIntegerField()
    head = models.CharField(max_length=64, blank=True)
    event_time = models.DateTimeField()
    content_hash = models.CharField(max_length=64, unique=True)


class Unchained(models.Model):
    """An event with no verified chain position (an older agent, an unsigned producer): labelled, never refused."""

    content_hash = models.CharField(max_length=64, unique=True)
    producer = models.CharField(max_length=200, db_index=True)
    event_time = models.DateTimeField()
