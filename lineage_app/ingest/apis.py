"""The OpenLineage HTTP transport endpoints: one event, or a batch with per-event results."""

from __future__ import annotations

import logging
import zlib
from collections import Counter
from typing import Any, cast

from django.conf import settings
from django.db import OperationalError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.permissions import CanIngest, CanRead
from lineage_app.api_errors import error_response
from lineage_app.api_support import ERRORS, ErrorSerializer, RequiredBodySchema, ResponseSerializer, response_of
from lineage_app.ingest import services
from lineage_app.ingest.json_body import NotAJsonArray, json_array_items, json_decode
from lineage_app.ingest.selectors import events_admit, facet_warning_counts
from lineage_app.ingest.validation import CheckedEvent, EventInvalid
from lineage_app.observability.logs import log_fields_add
from lineage_app.observability.metrics import INGEST_EVENTS
from lineage_protocol import RECEIPT_STATUSES, FailedEvent, batch_receipt

logger = logging.getLogger(__name__)

# What a batch's events get when the event log cannot be written, and when to send them again.
STORE_UNAVAILABLE = "server error: the event log is unavailable, nothing of this batch was stored; send it again"
STORE_RETRY_AFTER_S = 5
# The metric reason of each per-event outcome that is not a success.
_FAILURE_REASONS = {"rejected": "invalid_event", "unavailable": "store_unavailable"}


class RawJsonParser(BaseParser):
    """Leaves the body as bytes: the API itself decodes it, to give precise errors and keep the raw bytes."""

    media_type = "application/json"

    def parse(  # type: ignore[override]  # bytes, not parsed data: on purpose
        self, stream: Any, media_type: str | None = None, parser_context: Any = None
    ) -> bytes:
        return stream.read() if stream is not None else b""


def _request_json_bytes(request: Request, *, limit: int) -> bytes | Response:
    """The checked body of an ingest request, or the error response that says what is wrong."""
    if (problem := _body_checks(request, limit=limit)) is not None:
        return problem
    return _body(request, limit=limit)


def _body_checks(request: Request, *, limit: int) -> Response | None:
    content_type = request.content_type.split(";")[0].strip().lower()
    if content_type != "application/json":
        return error_response(
            "unsupported_media_type",
            f"send the event as application/json (got {content_type or 'no content type'})",
            http_status=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
        )
    declared = request.META.get("CONTENT_LENGTH")
    if declared and declared.isdigit() and int(declared) > limit:
        return _too_large(int(declared), limit)
    return None


def _body(request: Request, *, limit: int) -> bytes | Response:
    """The request's JSON bytes, inflated when gzip-encoded (the OpenLineage HTTP transport's
    `compression: gzip`), bounded by `limit` before and after inflating; or an error response."""
    raw = request.body
    if len(raw) > limit:
        return _too_large(len(raw), limit)
    encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
    if encoding in ("", "identity"):
        return raw
    if encoding not in ("gzip", "x-gzip"):
        return error_response(
            "unsupported_media_type",
            f"unsupported Content-Encoding {encoding!r}: send the body plain or gzip-compressed",
            http_status=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
        )
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        inflated = inflater.decompress(raw, limit + 1)
    except zlib.error as exc:
        return _invalid(EventInvalid(f"body is not valid gzip: {exc}"))
    if len(inflated) > limit:
        return error_response(
            "payload_too_large",
            f"body inflates to more than {limit} bytes; the limit is {limit} bytes",
            http_status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if not inflater.eof:
        return _invalid(EventInvalid("body is not valid gzip: it ends before the compressed stream does"))
    return inflated


def _too_large(size: int, limit: int) -> Response:
    return error_response(
        "payload_too_large",
        f"body is {size} bytes; the limit is {limit} bytes",
        http_status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    )


def _token(request: Request) -> ApiToken:
    """The ingest token the request authenticated with (`CanIngest` let nothing else through)."""
    return cast(ApiToken, request.auth)


def _counted(answer: Response) -> Response:
    """Count the events an ingest answer accepted, found duplicate or rejected (a body refused as a whole
    is one rejection, by its error code), and name the ids in the request's log line."""
    if "error" in answer.data:
        INGEST_EVENTS.labels(outcome="rejected", reason=answer.data["error"]).inc()
        return answer
    results = answer.data.get("results", [answer.data])
    for outcome, count in Counter(result["status"] for result in results).items():
        reason = _FAILURE_REASONS.get(outcome, "")
        INGEST_EVENTS.labels(outcome="rejected" if reason else outcome, reason=reason).inc(count)
    log_fields_add(
        event_ids=[result["id"] for result in results if result["status"] == "accepted"],
        duplicate_ids=[result["id"] for result in results if result["status"] == "duplicate"],
    )
    return answer


def _invalid(exc: EventInvalid) -> Response:
    return error_response("invalid_event", exc.message, path=exc.path or "$", http_status=400)


class EventProblemSerializer(ResponseSerializer):
    path = serializers.CharField(help_text="where in the event, e.g. `run.runId`; `$` for the event as a whole")
    message = serializers.CharField()


class EventAnswerSerializer(ResponseSerializer):
    class Meta:
        ref_name = "LineageEventAnswer"

    id = serializers.IntegerField(help_text="the event's row in the event log")
    status = serializers.ChoiceField(choices=["accepted", "duplicate"])
    leafIndex = serializers.IntegerField(
        allow_null=True, help_text="the event's leaf in the transparency log (a duplicate: the original's)"
    )
    warnings = EventProblemSerializer(many=True, help_text="facets that failed their schema: stored, not applied")


class BatchReceiptSerializer(ResponseSerializer):
    """OpenLineage's batch receipt (`status`, `summary`, `failed_events`), plus Tributary's `results`."""

    class Meta:
        ref_name = "LineageBatchReceipt"

    class SummarySerializer(ResponseSerializer):
        class Meta:
            ref_name = "LineageBatchSummary"

        received = serializers.IntegerField(help_text="events in the array")
        successful = serializers.IntegerField(help_text="stored now or already stored (duplicates)")
        failed = serializers.IntegerField(help_text="not stored")
        retriable = serializers.IntegerField(help_text="failed, and may succeed when sent again unchanged")
        non_retriable = serializers.IntegerField(help_text="failed, and will fail the same way when sent again")

    class FailedEventSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LineageBatchFailedEvent"

        index = serializers.IntegerField(help_text="the event's position in the array")
        reason = serializers.CharField(help_text="why it was not stored")
        retriable = serializers.BooleanField(help_text="whether sending it again unchanged can succeed")

    class ItemSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LineageBatchItem"

        index = serializers.IntegerField(help_text="the event's position in the array")
        status = serializers.ChoiceField(choices=["accepted", "duplicate", "rejected", "unavailable"])
        id = serializers.IntegerField(
            allow_null=True, help_text="the event's row in the event log; null when not stored"
        )
        leafIndex = serializers.IntegerField(
            allow_null=True, help_text="the event's leaf in the transparency log (a duplicate: the original's)"
        )
        errors = EventProblemSerializer(many=True)  # type: ignore[assignment]  # the API's `errors` shadows DRF's
        warnings = EventProblemSerializer(many=True, help_text="facets that failed their schema: stored, not applied")

    status = serializers.ChoiceField(choices=RECEIPT_STATUSES, help_text="`partial_success` when any event failed")
    summary = SummarySerializer()
    failed_events = FailedEventSerializer(many=True, help_text="the events not stored, in array order")
    results = ItemSerializer(
        many=True, help_text="Tributary's own answer for each event, in the order sent: its id, duplicate, warnings"
    )


# What both ingest routes answer besides success (a 400 names the problem's `path`, e.g. `eventTime`).
INGEST_ERRORS = {
    code: OpenApiResponse(ErrorSerializer, description=text)
    for code, text in {
        400: "malformed JSON, or not an acceptable event / batch (`path` says where)",
        401: "no credentials, or an unknown token",
        403: "the token may not ingest",
        413: "the body (or, inflated, its gzip) is too large, or the batch has too many events",
        415: "not `application/json`, or an unsupported `Content-Encoding`",
    }.items()
}


class LineageEventCreateApi(APIView):
    """`POST /api/v1/lineage`: store one OpenLineage event; 201 when new, 200 when already stored."""

    permission_classes = [CanIngest]
    parser_classes = [RawJsonParser]
    schema = RequiredBodySchema()

    @extend_schema(
        operation_id="lineage_event_create",
        description="Store one OpenLineage event (the OpenLineage HTTP transport's endpoint; `ingest`-scope token).",
        request={"application/json": OpenApiTypes.OBJECT},
        responses={
            201: OpenApiResponse(EventAnswerSerializer, description="stored"),
            200: OpenApiResponse(EventAnswerSerializer, description="already stored (duplicate)"),
            **INGEST_ERRORS,
        },
    )
    def post(self, request: Request) -> Response:
        return _counted(self._store(request))

    def _store(self, request: Request) -> Response:
        raw = _request_json_bytes(request, limit=settings.INGEST_MAX_EVENT_BYTES)
        if isinstance(raw, Response):
            return raw
        try:
            value = json_decode(raw)
        except EventInvalid as exc:
            return _invalid(exc)
        # A facet that fails its schema is a warning, unless the namespace's facet policy is strict.
        checked = events_admit(items=[(value, raw)])[0]
        if isinstance(checked, EventInvalid):
            return _invalid(checked)
        accepted = services.event_accept(checked=checked, raw=raw, token=_token(request))
        return response_of(
            EventAnswerSerializer,
            {
                "id": accepted.id,
                "status": "duplicate" if accepted.duplicate else "accepted",
                "leafIndex": accepted.leaf_index,
                "warnings": [w.as_dict() for w in checked.warnings],
            },
            status=status.HTTP_200_OK if accepted.duplicate else status.HTTP_201_CREATED,
        )


class LineageBatchCreateApi(APIView):
    """`POST /api/v1/lineage/batch`: a JSON array of events; each is accepted or rejected on its own, and the
    answer is OpenLineage's batch receipt with Tributary's per-event `results` beside it."""

    permission_classes = [CanIngest]
    parser_classes = [RawJsonParser]
    schema = RequiredBodySchema()

    @extend_schema(
        operation_id="lineage_batch_create",
        description="Store a JSON array of OpenLineage events, each accepted or rejected on its own "
        "(`ingest`-scope token), and answer with OpenLineage's batch receipt: an element that is not an "
        "event (not even an object) is a non-retriable failure, the rest still stored. When the event log "
        "cannot be written, nothing is stored: 503 with `Retry-After`, the acceptable events retriable.",
        request={"application/json": {"type": "array", "items": {}, "minItems": 1}},
        responses={
            200: OpenApiResponse(BatchReceiptSerializer, description="the receipt: every event stored, or some failed"),
            503: OpenApiResponse(
                BatchReceiptSerializer,
                description="the event log could not be written: nothing stored; send the retriable events again "
                "after `Retry-After` seconds",
            ),
            **INGEST_ERRORS,
        },
    )
    def post(self, request: Request) -> Response:
        return _counted(self._store(request))

    def _store(self, request: Request) -> Response:
        raw = _request_json_bytes(request, limit=settings.INGEST_MAX_BATCH_BYTES)
        if isinstance(raw, Response):
            return raw
        try:
            items = json_array_items(raw, max_depth=settings.INGEST_MAX_JSON_DEPTH)
        except NotAJsonArray as exc:
            return error_response("invalid_batch", exc.message, path="$", http_status=400)
        except EventInvalid as exc:
            return _invalid(exc)
        if len(items) > settings.INGEST_MAX_BATCH_EVENTS:
            return error_response(
                "payload_too_large",
                f"batch has {len(items)} events; the limit is {settings.INGEST_MAX_BATCH_EVENTS}",
                http_status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            )
        if not items:
            return error_response(
                "invalid_batch", "the batch is empty: send an array of at least one event", path="$", http_status=400
            )
        return _batch_receipt(items=items, token=_token(request))


def _batch_receipt(*, items: list[tuple[Any, bytes]], token: ApiToken) -> Response:
    """Check each element, store the acceptable ones in one commit, and answer with the receipt.

    An element that is not an acceptable event is a non-retriable failure. When the event log cannot
    be written (a passing database failure) none of the batch is stored: the acceptable events are
    retriable failures, and the answer is a 503 with `Retry-After`, never a 2xx for events not stored.
    """
    results: list[dict[str, Any]] = [{} for _ in items]
    failed: list[FailedEvent] = []
    valid: list[tuple[int, tuple[CheckedEvent, bytes]]] = []
    for index, ((_, event_raw), outcome) in enumerate(zip(items, events_admit(items=items), strict=True)):
        if isinstance(outcome, EventInvalid):
            results[index] = _item(index, "rejected", errors=[outcome.as_dict()])
            failed.append(FailedEvent(index=index, reason=_reason(outcome), retriable=False))
        else:
            valid.append((index, (outcome, event_raw)))
    try:
        accepted = services.events_accept(items=[item for _, item in valid], token=token) if valid else []
    except OperationalError:
        logger.exception("the event log could not store a batch of %d events", len(valid))
        for index, _ in valid:
            results[index] = _item(index, "unavailable", errors=[{"path": "$", "message": STORE_UNAVAILABLE}])
            failed.append(FailedEvent(index=index, reason=STORE_UNAVAILABLE, retriable=True))
        unavailable = response_of(
            BatchReceiptSerializer,
            {**batch_receipt(received=len(items), failed=failed), "results": results},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
        unavailable["Retry-After"] = str(STORE_RETRY_AFTER_S)
        return unavailable
    for (index, (checked, _)), stored in zip(valid, accepted, strict=True):
        results[index] = _item(
            index,
            "duplicate" if stored.duplicate else "accepted",
            id=stored.id,
            leaf_index=stored.leaf_index,
            warnings=[w.as_dict() for w in checked.warnings],
        )
    return response_of(
        BatchReceiptSerializer, {**batch_receipt(received=len(items), failed=failed), "results": results}
    )


def _item(
    index: int,
    outcome: str,
    *,
    id: int | None = None,
    leaf_index: int | None = None,
    errors: list[dict[str, str]] | None = None,
    warnings: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    return {
        "index": index,
        "status": outcome,
        "id": id,
        "leafIndex": leaf_index,
        "errors": errors or [],
        "warnings": warnings or [],
    }


def _reason(invalid: EventInvalid) -> str:
    """A failed event's `reason`: the problem, and where in the event it is."""
    return f"{invalid.message} (at {invalid.path or '$'})"


class FacetWarningListApi(APIView):
    """`GET /api/v1/facet-warnings`: how many stored events had each facet left out, per producer
    and facet, most first: which producer ships which imperfect facet."""

    permission_classes = [CanRead]

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "FacetWarningList"

        class CountSerializer(ResponseSerializer):
            class Meta:
                ref_name = "FacetWarningCount"

            producer = serializers.CharField(allow_blank=True, help_text="the events' `producer` URI")
            facet = serializers.CharField(help_text="the facet left out (its key)")
            events = serializers.IntegerField(help_text="stored events that had it left out")

        results = CountSerializer(many=True)

    @extend_schema(operation_id="facet_warning_list", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        return response_of(self.OutputSerializer, {"results": facet_warning_counts()})
