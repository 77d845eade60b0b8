"""Events accepted before the transparency log existed become its first leaves, in the order they were received."""

from __future__ import annotations

from typing import Any

from django.db import migrations

from lineage_app.ledger.tree import Frontier, frontier_append
from lineage_protocol import event_leaf_hash

CHUNK = 5000


def leaves_backfill(apps: Any, schema_editor: Any) -> None:
    event_model = apps.get_model("ingest", "LineageEvent")
    head_model, leaf_model = apps.get_model("ledger", "LogHead"), apps.get_model("ledger", "LogLeaf")
    head, _ = head_model.objects.get_or_create(pk=1)
    frontier = Frontier.unpack(head.size, bytes(head.frontier))
    events = event_model.objects.order_by("received_at", "id").values_list("id", "content_hash", "received_at")
    rows = list(events)
    for start in range(0, len(rows), CHUNK):
        part = rows[start : start + CHUNK]
        hashes = [event_leaf_hash(content_hash=h, accepted_at=at) for _, h, at in part]
        before = frontier.size
        frontier, completes = frontier_append(frontier, hashes)
        leaf_model.objects.bulk_create(
            leaf_model(
                leaf_index=before + i, content_hash=h, event_id=pk, accepted_at=at, hash=leaf, completes=done
            )
            for i, ((pk, h, at), leaf, done) in enumerate(zip(part, hashes, completes, strict=True))
        )
    head_model.objects.filter(pk=1).update(size=frontier.size, frontier=frontier.pack())


class Migration(migrations.Migration):
    dependencies = [("ingest", "0007_alter_lineageevent_kind"), ("ledger", "0002_transparency_log")]

    operations = [migrations.RunPython(leaves_backfill, migrations.RunPython.noop)]
