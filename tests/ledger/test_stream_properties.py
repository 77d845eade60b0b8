"""Properties of the ledger: the same events give the same stream state whatever their order, batching or
repetition; and any single deletion, reordering, insertion or fork of a signed stream is detected."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineage_app.ingest.models import LineageEvent
from lineage_app.ledger.models import Stream, Unchained
from lineage_protocol import StreamChain
from tests.ledger.chains import KEY, contents, record, register, states

pytestmark = pytest.mark.django_db

PROPERTY = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
INSTANCE = "prop:1"


def fresh() -> None:
    """Each example starts from an empty log and ledger (the test's transaction spans all examples)."""
    LineageEvent.objects.all().delete()
    Stream.objects.all().delete()
    Unchained.objects.all().delete()
    register()


def history(items: list[dict[str, Any]]) -> tuple[StreamChain, list[dict[str, Any]]]:
    chain = StreamChain(KEY, INSTANCE)
    return chain, [chain.sign(item) for item in items]


def expected(seqs: set[int], announced: int) -> dict[str, Any]:
    """The state by definition, for a stream with no fork: the missing ranges below the highest seq, and the tail
    a heartbeat announced beyond it."""
    high = max(seqs, default=0)
    gaps, start = [], None
    for seq in range(1, high + 2):
        if seq not in seqs and seq <= high and start is None:
            start = seq
        elif (seq in seqs or seq > high) and start is not None:
            gaps.append((start, seq - 1))
            start = None
    truncated = (high + 1, announced) if announced > high else None
    state = "gap" if gaps else "truncated" if truncated else "contiguous"
    return {"state": state, "high": high, "gaps": gaps, "forks": [], "truncated": truncated}


def recorded(batches: list[list[dict[str, Any]]]) -> dict[str, Any]:
    fresh()
    for batch in batches:
        record(batch)
    (stream,) = states().values()
    return {key: stream[key] for key in ("state", "high", "gaps", "forks", "truncated")}


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[list[dict[str, Any]], set[int], int, list[list[dict[str, Any]]]]:
    """A stream of up to 10 events and a heartbeat; some of them delivered, repeated, shuffled and batched."""
    n = draw(st.integers(1, 10))
    _, events = history(contents(n))
    beat_at = draw(st.integers(1, n))
    beat = StreamChain(KEY, INSTANCE)
    for item in contents(beat_at):
        beat.sign(item)
    heartbeat = beat.heartbeat()
    kept = draw(st.lists(st.integers(0, n - 1), min_size=1, unique=True))
    with_beat = draw(st.booleans())
    chosen = [events[i] for i in kept] + ([heartbeat] if with_beat else [])
    repeated = chosen + draw(st.lists(st.sampled_from(chosen), max_size=4))
    shuffled = draw(st.permutations(repeated))
    cuts = sorted(draw(st.lists(st.integers(1, max(1, len(shuffled) - 1)), max_size=3, unique=True)))
    bounds = [0, *cuts, len(shuffled)]
    batches = [list(shuffled[a:b]) for a, b in pairwise(bounds) if shuffled[a:b]]
    return chosen, {i + 1 for i in kept}, beat_at if with_beat else 0, batches


@PROPERTY
@given(deliveries())
def test_any_arrival_order_batching_or_repetition_gives_the_same_state(delivery: Any) -> None:
    chosen, seqs, announced, batches = delivery
    assert recorded(batches) == recorded([chosen]) == expected(seqs, announced)


FAULTS = ("delete", "delete_and_resign", "insert_and_resign", "reorder_and_resign", "fork")


@PROPERTY
@given(n=st.integers(2, 8), fault=st.sampled_from(FAULTS), data=st.data())
def test_any_single_deletion_reordering_insertion_or_fork_is_detected(n: int, fault: str, data: Any) -> None:
    """The producer signed `n` events and a heartbeat of its head; what arrives has one fault. Re-signing (a
    thief with the key rewriting the history from some point on) still shows: the heartbeat names another head."""
    items = contents(n)
    chain, events = history(items)
    heartbeat = chain.heartbeat()
    at = data.draw(st.integers(0, n - 1), label="at")
    if fault == "delete":
        delivered = events[:at] + events[at + 1 :]
    elif fault == "delete_and_resign":
        delivered = history(items[:at] + items[at + 1 :])[1]
    elif fault == "insert_and_resign":
        delivered = history([*items[:at], *contents(1, tag="inserted"), *items[at:]])[1]
    elif fault == "reorder_and_resign":
        at = min(at, n - 2)
        delivered = history([*items[:at], items[at + 1], items[at], *items[at + 2 :]])[1]
    else:
        other = history([*items[:at], *contents(1, tag="forked")])[1]
        delivered = [*events, other[at]]
    state = recorded([[*delivered, heartbeat]])
    assert state["state"] != "contiguous", (fault, at, state)
    assert recorded([[*events, heartbeat]])["state"] == "contiguous"
