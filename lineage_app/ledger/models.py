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


# --- The transparency log over everything accepted (docs/ledger.md, "The transparency log") ---------------


class LogHead(models.Model):
    """The log's one head row: its size and frontier (`ledger.tree.Frontier`), and the origin its checkpoints
    name. Every append locks it, so leaf indexes are handed out in commit order with no gap."""

    size = models.PositiveBigIntegerField(default=0)
    frontier = models.BinaryField(
        default=b"", help_text="Roots of the complete subtrees covering the log, largest first."
    )
    origin = models.CharField(max_length=200, blank=True, help_text="Set at the first checkpoint, never changed.")


class LogLeaf(models.Model):
    """One accepted event's leaf: SHA-256(0x00 || `leaf_data`), plus the roots of the subtrees it completes.

    Kept when retention prunes the event (`pruned_by`), so proofs made before still verify."""

    leaf_index = models.PositiveBigIntegerField(primary_key=True)
    content_hash = models.CharField(max_length=64, db_index=True)
    event_id = models.PositiveBigIntegerField(db_index=True, help_text="The event log's row id when accepted.")
    accepted_at = models.DateTimeField()
    hash = models.BinaryField()
    completes = models.BinaryField(default=b"", help_text="Roots of the subtrees this leaf completes, level 1 up.")
    pruned_by = models.ForeignKey("LogPrune", null=True, blank=True, on_delete=models.PROTECT, related_name="leaves")


class LogKey(models.Model):
    """A public key the server has signed checkpoints with: kept after rotation so older checkpoints still verify."""

    key_id = models.CharField(max_length=41, unique=True)
    name = models.CharField(max_length=200, help_text="The signed-note key name: the log's origin.")
    public_key = models.TextField(help_text="Ed25519 public key, SubjectPublicKeyInfo PEM.")
    verifier_key = models.TextField(help_text="`<name>+<hex key id>+<base64 key>`, as note verifiers read it.")
    first_used = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True, help_text="Compromised: no longer listed as valid.")

    class Meta:
        ordering = ["-first_used"]

    def __str__(self) -> str:
        return self.key_id


class LogCheckpoint(models.Model):
    """A signed checkpoint of the log: the C2SP signed note, with its size and root hash for queries."""

    size = models.PositiveBigIntegerField(unique=True)
    root_hash = models.BinaryField()
    note = models.TextField()
    key = models.ForeignKey(LogKey, on_delete=models.PROTECT, related_name="+")
    signed_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-size"]
        get_latest_by = "size"


class LogPrune(models.Model):
    """A signed record of one retention prune: how many leaves' events were deleted, and a digest of which."""

    pruned_at = models.DateTimeField(default=timezone.now)
    tree_size = models.PositiveBigIntegerField()
    leaf_count = models.PositiveBigIntegerField()
    note = models.TextField(help_text="The signed note (docs/ledger.md, 'Pruning').")
    key = models.ForeignKey(LogKey, on_delete=models.PROTECT, related_name="+")


class LogAudit(models.Model):
    """One check of the stored leaves against the event log (`ledger_check_log`); the newest is in `/metrics`."""

    checked_at = models.DateTimeField(default=timezone.now, db_index=True)
    tree_size = models.PositiveBigIntegerField()
    missing = models.PositiveBigIntegerField(help_text="Leaves whose event is gone from the log, not pruned.")
    mismatched = models.PositiveBigIntegerField(help_text="Leaves whose event no longer hashes to the leaf.")
    detail = models.JSONField(default=list, help_text="The first few leaves found wrong: [{leafIndex, problem}].")

    class Meta:
        get_latest_by = "checked_at"
