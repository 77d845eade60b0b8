"""A server process's long-lived heap, out of the garbage collector's way.

A web process holds some 145,000 objects once it has loaded Django, the views and the OpenLineage
schemas, a worker's pool process some 164,000 with the graph driver, and they live as long as the
process does. Python's full collection traverses every tracked object, so each one cost 50-130 ms
here, paid by whichever request or apply batch happened to allocate past the threshold: a batch post
that met one took several times as long as one that did not (`docs/apply-throughput.md`, "Garbage
collection"). `gc.freeze()` moves what the process has loaded into a permanent generation that
collections never traverse; a full collection then costs what the process allocated since it started
serving.
"""

from __future__ import annotations

import gc
import logging

logger = logging.getLogger(__name__)


def heap_freeze() -> None:
    """Collect the garbage start-up left, then freeze every object still alive, and log how many.

    Call it once, when the process has loaded what it serves with and before it serves: objects frozen
    are never freed, so anything frozen later (a cache, a request's leftovers) would stay for good.
    """
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    logger.info("froze the %d objects loaded at start-up", frozen, extra={"fields": {"frozen_objects": frozen}})


def web_worker_heap_freeze() -> None:
    """What a web worker does once it has loaded the application, before it serves (gunicorn's `post_worker_init`,
    and the benchmarks' in-process web process): import the views, which Django would otherwise import on the first
    request (the URLconf and every view module: 0.6 s here, a first request of 0.7 s against 30 ms for the next), so
    that they are loaded before the heap is frozen, then freeze it (`heap_freeze`)."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view module
    heap_freeze()
