"""The OpenLineage HTTP transport endpoints: one event, or a batch with per-event results."""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any, cast

from django.conf import settings
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
    if answer.status_code >= 400:
        INGEST_EVENTS.labels(outcome="rejected", reason=answer.data["error"]).inc()
        return answer
    results = answer.data.get("results", [answer.data])
    for outcome, count in Counter(result["status"] for result in results).items():
        INGEST_EVENTS.labels(outcome=outcome, reason="invalid_event" if outcome == "rejected" else "").inc(count)
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
    warnings = EventProblemSerializer(many=True, help_text="facets that failed their schema: stored, not applied")


class BatchAnswerSerializer(ResponseSerializer):
    class Meta:
        ref_name = "LineageBatchAnswer"

    class ItemSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LineageBatchItem"

        index = serializers.IntegerField(help_text="the event's position in the array")
        status = serializers.ChoiceField(choices=["accepted", "duplicate", "rejected"])
        id = serializers.IntegerField(allow_null=True, help_text="null when rejected")
        errors = EventProblemSerializer(many=True)  # type: ignore[assignment]  # the API's `errors` shadows DRF's
        warnings = EventProblemSerializer(many=True, help_text="facets that failed their schema: stored, not applied")

    accepted = serializers.IntegerField()
    duplicate = serializers.IntegerField()
    rejected = serializers.IntegerField()
    results = ItemSerializer(many=True, help_text="one per event, in the order sent")


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
                "warnings": [w.as_dict() for w in checked.warnings],
            },
            status=status.HTTP_200_OK if accepted.duplicate else status.HTTP_201_CREATED,
        )


class LineageBatchCreateApi(APIView):
    """`POST /api/v1/lineage/batch`: a JSON array of events; each is accepted or rejected on its own."""

    permission_classes = [CanIngest]
    parser_classes = [RawJsonParser]
    schema = RequiredBodySchema()

    @extend_schema(
        operation_id="lineage_batch_create",
        description="Store a JSON array of OpenLineage events, each accepted or rejected on its own "
        "(`ingest`-scope token); an element that is not an event (not even an object) is "
        "rejected in its result, the rest still stored.",
        request={"application/json": {"type": "array", "items": {}}},
        responses={200: BatchAnswerSerializer, **INGEST_ERRORS},
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
        results: list[dict[str, Any]] = [{} for _ in items]
        valid: list[tuple[int, tuple[CheckedEvent, bytes]]] = []
        for index, ((_, event_raw), outcome) in enumerate(zip(items, events_admit(items=items), strict=True)):
            if isinstance(outcome, EventInvalid):
                results[index] = {
                    "index": index,
                    "status": "rejected",
                    "id": None,
                    "errors": [outcome.as_dict()],
                    "warnings": [],
                }
            else:
                valid.append((index, (outcome, event_raw)))
        accepted = services.events_accept(items=[item for _, item in valid], token=_token(request))
        for (index, (checked, _)), answer in zip(valid, accepted, strict=True):
            results[index] = {
                "index": index,
                "status": "duplicate" if answer.duplicate else "accepted",
                "id": answer.id,
                "errors": [],
                "warnings": [w.as_dict() for w in checked.warnings],
            }
        counts = {s: sum(1 for r in results if r["status"] == s) for s in ("accepted", "duplicate", "rejected")}
        return response_of(BatchAnswerSerializer, {**counts, "results": results})


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
