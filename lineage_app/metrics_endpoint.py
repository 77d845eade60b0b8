"""`GET /metrics`: the web processes' metrics, the event log's gauges (read through `ingest`) and the
notification outbox's (through `notify`), for Prometheus."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from lineage_app.ingest.selectors import event_log_gauges
from lineage_app.notify.selectors import outbox_gauges
from lineage_app.observability.access import metrics_refusal
from lineage_app.observability.exposition import metrics_exposition

REFUSALS = {
    401: "metrics need METRICS_TOKEN as a bearer token\n",
    403: "metrics are not served to this network (METRICS_ALLOWED_NETWORKS)\n",
}


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    refusal = metrics_refusal(
        remote_addr=request.META.get("REMOTE_ADDR", ""), authorization=request.META.get("HTTP_AUTHORIZATION", "")
    )
    if refusal is not None:
        answer = HttpResponse(REFUSALS[refusal], status=refusal, content_type="text/plain")
        if refusal == 401:
            answer["WWW-Authenticate"] = 'Bearer realm="tributary-metrics"'
        return answer
    return HttpResponse(
        metrics_exposition(event_log=event_log_gauges, outbox=outbox_gauges), content_type=CONTENT_TYPE_LATEST
    )
