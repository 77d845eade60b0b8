"""The ledger's store: each stream's links (one row per event and seq), its open gaps, forked seqs and heartbeats.

Links are a set: a stream's state is what the set implies (its gaps, its forks, a heartbeat beyond
its highest seq), so the order, batching or repetition in which events arrive cannot change it.
`Stream` keeps the aggregates that the incremental update (`ledger.services.ledger_record`) maintains
under the stream's row lock, and `Gap` the missing ranges, so no answer rescans the links.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from lineage_protocol import NoteError, cosigner_key_hash, parse_cosigner_vkey


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


# --- Witnesses (docs/ledger.md, "Witnesses") ----------------------------------------------------------------


class WitnessKey(models.Model):
    """A witness an admin registered: its name and Ed25519 key, as its verifier key (`python -m lineage_relay
    --witness-log-key …` and `manage.py witness` print it). Only registered, unrevoked witnesses are heard."""

    verifier_key = models.TextField(help_text="`<name>+<hex key id>+<base64(0x04 || key)>`, as the witness prints it.")
    name = models.CharField(max_length=200, editable=False, help_text="Read from the verifier key.")
    key_hash = models.CharField(max_length=8, editable=False, help_text="The cosigner key id, hex, from the key.")
    note = models.TextField(blank=True, help_text="Who runs it, where.")
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True, help_text="From then on its reports are refused.")

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["name", "key_hash"], name="ledger_witness_key_unique")]

    def __str__(self) -> str:
        return f"{self.name} {self.key_hash}"

    def _read_key(self) -> None:
        """Name and key id from the verifier key (`NoteError` if it is not a witness's)."""
        name, public_key = parse_cosigner_vkey(self.verifier_key)
        self.verifier_key, self.name = self.verifier_key.strip(), name
        self.key_hash = cosigner_key_hash(name, public_key).hex()

    def clean(self) -> None:
        try:
            self._read_key()
        except NoteError as error:
            raise ValidationError({"verifier_key": str(error)}) from None
        if WitnessKey.objects.filter(name=self.name, key_hash=self.key_hash).exclude(pk=self.pk).exists():
            raise ValidationError({"verifier_key": "This witness key is already registered."})

    def save(self, *args: Any, **kwargs: Any) -> None:
        self._read_key()
        super().save(*args, **kwargs)

    @property
    def public_key(self) -> Ed25519PublicKey:
        return parse_cosigner_vkey(self.verifier_key)[1]


class Cosignature(models.Model):
    """A witness's verified cosignature of a checkpoint (the newest it sent for that checkpoint)."""

    checkpoint = models.ForeignKey(LogCheckpoint, on_delete=models.CASCADE, related_name="cosignatures")
    witness = models.ForeignKey(WitnessKey, on_delete=models.PROTECT, related_name="cosignatures")
    line = models.TextField(help_text="The signature line, as it is appended to the checkpoint's note.")
    cosigned_at = models.DateTimeField(help_text="The time the witness signed into it.")
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["witness__name"]
        constraints = [
            models.UniqueConstraint(fields=["checkpoint", "witness"], name="ledger_cosignature_unique"),
        ]


class WitnessAlarm(models.Model):
    """A witness refused a checkpoint: the log offered a rolled-back, forked or unprovable history.
    Kept with the witness's signed report and the checkpoint it was offered, as evidence; open until an
    admin resolves it."""

    class Kind(models.TextChoices):
        ROLLBACK = "rollback"
        FORK = "fork"
        INCONSISTENT = "inconsistent"
        UNVERIFIED = "unverified"

    witness = models.ForeignKey(WitnessKey, on_delete=models.PROTECT, related_name="alarms")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reason = models.TextField()
    cosigned_size = models.PositiveBigIntegerField(help_text="The size the witness had cosigned.")
    cosigned_root = models.CharField(max_length=44, blank=True, help_text="Its root, base64.")
    offered_size = models.PositiveBigIntegerField(null=True, blank=True)
    offered_root = models.CharField(max_length=44, blank=True)
    report = models.TextField(help_text="The witness's signed refusal note.")
    offered = models.TextField(blank=True, help_text="The checkpoint note the witness was offered.")
    first_reported_at = models.DateTimeField(default=timezone.now)
    last_reported_at = models.DateTimeField(default=timezone.now)
    reports = models.PositiveIntegerField(default=1)
    resolved_at = models.DateTimeField(null=True, blank=True, help_text="Set by an admin once explained.")

    class Meta:
        ordering = ["-last_reported_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["witness", "kind", "cosigned_size", "cosigned_root", "offered_size", "offered_root"],
                condition=models.Q(resolved_at__isnull=True),
                name="ledger_witness_alarm_open_unique",
            )
        ]


WITNESS_ALARM_KINDS = tuple(WitnessAlarm.Kind.values)
