"""Shared API plumbing: the documented error responses, query-parameter validation, pagination, response shaping,
and the serializers more than one read app answers with."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import cache, cached_property
from typing import Any, TypeVar
from urllib.parse import unquote_plus

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.core.validators import MaxLengthValidator, MinLengthValidator, RegexValidator
from django.db.models import Model, QuerySet
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from lineage_app.graph.model import Moment, RunState
from lineage_app.graph.quality import QUALITY_STATUSES
from lineage_app.instants import utc_text

MAX_PAGE = 500
# A run's state, as output serializers declare it (an enum in the schema).
RUN_STATES = [state.value for state in RunState]
QUALITY_STATUS_HELP = (
    "failing: a check failed; warning: a check of severity `warn` failed; passing: every check passed; "
    "unknown: never checked (docs/quality.md)"
)


class QualityStatusField(serializers.ChoiceField):
    """A dataset's data-quality status (`graph.quality`), as the quality API, lineage and impact reports answer it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=QUALITY_STATUSES, **kwargs)


# Deeper pages than this are not browsing; past it offsets overflow what the graph engine will skip.
MAX_OFFSET = 1_000_000
# The longest text one query parameter may carry (a node id, a name, a search string, a time).
MAX_TEXT = 2_000


class InstantField(serializers.DateTimeField):
    """An ISO 8601 moment, as UTC. One that falls outside the years 1 to 9999 once in UTC
    (`0001-01-01T00:00+01:00`) is the first (or the last) moment there is: as an `asOf` or a bound
    it still means "from the start" or "to the end", where the plain field answers 400."""

    def enforce_timezone(self, value: datetime) -> datetime:
        if timezone.is_aware(value):
            try:
                return value.astimezone(UTC)
            except OverflowError:
                edge = datetime.min if value.year == datetime.min.year else datetime.max
                return edge.replace(tzinfo=UTC)
        return super().enforce_timezone(value)


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
    path = serializers.CharField(required=False)


ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="a parameter is malformed or out of range (named in `path`)"),
    401: OpenApiResponse(ErrorSerializer, description="no credentials, or an unknown token"),
    403: OpenApiResponse(ErrorSerializer, description="the caller may not read (e.g. an ingest-only token)"),
    404: OpenApiResponse(ErrorSerializer, description="no node with that id"),
}


# An API token past its rate limit (`accounts.throttling`, docs/security.md) is refused with this.
RATE_LIMITED = {
    "description": "the token's rate limit is used up: retry after `Retry-After` seconds (docs/security.md)",
    "headers": {
        "Retry-After": {"schema": {"type": "integer", "minimum": 1}, "description": "seconds to wait before retrying"}
    },
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}


def rate_limited_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook: every operation an API token may call may also answer 429 (its rate limit)."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if any("bearerAuth" in requirement for requirement in operation.get("security", [])):
                operation.setdefault("responses", {})["429"] = RATE_LIMITED
    return result


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """Documents `Authorization: Bearer <token>` (an API token) in the served schema."""

    target_class = "lineage_app.accounts.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "an API token (`read` or `ingest` scope)"}


# DRF refuses NUL in text (`ProhibitNullCharactersValidator`); this says so in the schema too.
_NO_NUL = RegexValidator(r"^[^\x00]*$", message="Null characters are not allowed.")


class RequiredBodySchema(AutoSchema):
    """Documents a view's request body as required: without one, the request is refused (e.g. a 415)."""

    def _get_request_body(self, direction: str = "request") -> dict[str, Any] | None:
        body = super()._get_request_body(direction)
        if body is not None:
            body["required"] = True
        return body


def _bounded(field: serializers.Field) -> serializers.Field:
    """`field` with its text bounded by `MAX_TEXT` (unless it says its own) and free of NUL, in the schema too."""
    if isinstance(field, serializers.ListField):
        _bounded(field.child)
    elif isinstance(field, serializers.CharField):
        if field.max_length is None:
            field.max_length = MAX_TEXT
            field.validators.append(MaxLengthValidator(MAX_TEXT, message=f"at most {MAX_TEXT} characters"))
        if not field.allow_blank and field.min_length is None:
            field.min_length = 1  # said in the schema of a list's items too, not only of a single value
            field.validators.append(MinLengthValidator(1, message="may not be empty"))
        field.validators.append(_NO_NUL)
        # An id or a name is matched as sent: trimming would turn " " into a blank the schema allows.
        field.trim_whitespace = False
    return field


class QueryInput(serializers.Serializer):
    """The base of every query-parameter serializer: each text parameter is bounded (`MAX_TEXT`), and an
    empty value (`?since=`) is refused unless the parameter allows blank text: left out, it takes its default."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {name: _bounded(field) for name, field in super().get_fields().items()}

    def to_internal_value(self, data: Any) -> Any:
        # DRF reads an empty query value as "not given"; the schema (and so a client) says it is invalid.
        for name, field in self.fields.items():
            values = data.getlist(name) if hasattr(data, "getlist") else [data.get(name)]
            if "" in values and not getattr(field, "allow_blank", False):
                raise serializers.ValidationError({name: ["may not be empty: give a value or leave it out"]})
        return super().to_internal_value(data)


def query_params(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    """The request's query parameters, validated (a 400 naming the parameter otherwise)."""
    try:
        query = request.query_params
    except TooManyFieldsSent:
        # Django's own answer would be an HTML 400; name the parameter repeated most instead.
        names = Counter(unquote_plus(part.partition("=")[0]) for part in request.META["QUERY_STRING"].split("&"))
        name = names.most_common(1)[0][0]
        raise serializers.ValidationError(
            {name: [f"more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} query parameters"]}
        ) from None
    params = serializer_class(data=query)
    if not params.is_valid():
        name, problem = next(iter(params.errors.items()))
        raise serializers.ValidationError({name: [_first_message(problem)]})
    return dict(params.validated_data)


def _first_message(problem: Any) -> str:
    """The first message in a field's errors, however nested (a list parameter's are keyed by position)."""
    while isinstance(problem, (list, dict)) and problem:
        problem = next(iter(problem.values())) if isinstance(problem, dict) else problem[0]
    return str(problem)


class PageInput(QueryInput):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=50)
    offset = serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0)


class ResponseIncomplete(LookupError):
    """An answer lacks a field its output serializer declares required: a bug, answered as a 500."""


# The base of every output serializer: it turns a selector's answer (a mapping) into exactly the
# declared fields, which is also what the served schema says. A key the serializer does not declare is
# left out. A declared field the answer lacks is an error (`ResponseIncomplete`), unless it is declared
# `required=False`: then it is left out too, as the schema says by not listing it as required (plain DRF
# would write `null` for a nullable one). Values pass as they are: scalars are not converted, only the
# nested shapes are walked, so a large answer costs a dictionary per object and no more.
# (No docstring: drf-spectacular would show it as the description of every response.)
class ResponseSerializer(serializers.Serializer):
    @cached_property
    def _plan(self) -> list[tuple[str, bool, Callable[[Any], Any] | None]]:
        readable = [field for field in self.fields.values() if not field.write_only]
        return [(str(field.field_name), field.required, _converter(field)) for field in readable]

    @cached_property
    def _required(self) -> frozenset[str]:
        return frozenset(name for name, required, _ in self._plan if required)

    @cached_property
    def _flat(self) -> frozenset[str] | None:
        """The field names, when every value passes as it is (no nested object): the fast path."""
        return None if any(convert for _, _, convert in self._plan) else frozenset(name for name, _, _ in self._plan)

    def to_representation(self, instance: Mapping[str, Any]) -> dict[str, Any]:
        keys = instance.keys()
        if not keys >= self._required:
            raise ResponseIncomplete(f"{type(self).__name__}: the answer has no {sorted(self._required - keys)}")
        declared = self._flat
        if declared is not None and keys <= declared and isinstance(instance, dict):
            # Already a declared shape, nothing nested: it passes as it is, not copied (a lineage answer
            # has thousands of these, its node data and edges).
            return instance
        answer: dict[str, Any] = {}
        for name, _, convert in self._plan:
            if name in instance:
                value = instance[name]
                answer[name] = value if convert is None or value is None else convert(value)
        return answer


# Fields whose value is JSON as the selectors give it: passed through unconverted.
_PLAIN = (
    serializers.CharField,
    serializers.IntegerField,
    serializers.FloatField,
    serializers.BooleanField,
    serializers.ChoiceField,
    serializers.DictField,
)


def _converter(field: serializers.Field) -> Callable[[Any], Any] | None:
    """How `field`'s value is shaped: None when it passes as it is, else a function (nested objects)."""
    if isinstance(field, ResponseSerializer):
        return field.to_representation
    if isinstance(field, (serializers.ListSerializer, serializers.ListField)) and field.child is not None:
        item = _converter(field.child)
        return None if item is None else (lambda values: [item(value) for value in values])
    if isinstance(field, _PLAIN):
        return None
    # A plain `Serializer` (or another field) would convert by DRF's rules: declare it as a ResponseSerializer.
    raise TypeError(f"{field.field_name!r}: an output field must be a ResponseSerializer or plain JSON, not {field!r}")


def response_of(
    serializer_class: type[ResponseSerializer], answer: Mapping[str, Any], *, status: int = 200
) -> Response:
    """`answer` shaped by `serializer_class` (the view's documented output), as the response."""
    return Response(_shaper(serializer_class).to_representation(answer), status=status)


@cache
def _shaper(serializer_class: type[ResponseSerializer]) -> ResponseSerializer:
    """One instance of `serializer_class` per process, to shape every answer with: a new one per response would
    copy its declared fields and plan them again (about a tenth of a single event post's CPU)."""
    return serializer_class()


def page_of(name: str, item: ResponseSerializer, **extra: serializers.Field) -> type[ResponseSerializer]:
    """The output serializer of one page of a list, named `name`: `extra`, then `{"count", "results": [item…]}`."""
    fields = {
        **extra,
        "count": serializers.IntegerField(help_text="all matches, not only this page's"),
        "results": serializers.ListSerializer(child=item),
    }
    return type(name, (ResponseSerializer,), fields)


class ColumnEdgeSerializer(ResponseSerializer):
    """What a column-lineage edge (`DERIVES`) says: the job that derived the field, and how."""

    job = serializers.CharField(allow_null=True)
    transformation = serializers.CharField(allow_null=True, help_text="OpenLineage type, e.g. `DIRECT`")
    subtype = serializers.CharField(allow_null=True, help_text="e.g. `IDENTITY`, `AGGREGATION`")
    indirect = serializers.BooleanField()


class FieldRenameSerializer(ResponseSerializer):
    """A field that left a schema and one that took its place and type (`graph.schema_fields`): read as a
    rename, which the two fields also stand as in `removed` and `added`."""

    to = serializers.CharField()

    def get_fields(self) -> dict[str, serializers.Field]:
        # `from` is a Python keyword, so the field is added by name.
        return {"from": serializers.CharField(), **super().get_fields()}


class EdgeValiditySerializer(ResponseSerializer):
    """When a lineage edge held (docs/time.md): event times, never arrival times."""

    firstSeen = serializers.CharField(allow_null=True, help_text="the earliest event that named it")
    lastSeen = serializers.CharField(allow_null=True, help_text="the latest event that named it")
    current = serializers.BooleanField(help_text="no later completed run of its job left it out (after the grace)")
    staleSince = serializers.CharField(
        allow_null=True, help_text="the end of the completed run that retired it; null while current"
    )


class MomentInput(QueryInput):
    """Which edges a lineage-shaped answer follows (docs/time.md): current ones unless asked about an
    instant (`at`), stale ones only with `includeStale`, inferred inputs unless `includeInferred` is false.
    `asOf` is `at`'s former, deprecated name."""

    at = InstantField(
        required=False,
        default=None,
        help_text="ISO 8601: the graph as it was then (edges first seen by then and not yet stale then)",
    )
    asOf = InstantField(required=False, default=None, help_text="deprecated: the same as `at`, which wins")
    includeStale = serializers.BooleanField(
        required=False,
        default=False,
        help_text="also edges the job's latest completed run no longer confirms (at `at`, those stale then), "
        "each with `current: false` and its `staleSince`",
    )
    includeInferred = serializers.BooleanField(
        required=False,
        default=True,
        help_text="`false` leaves out inputs inferred from column lineage (a dataset a job's column lineage names "
        "as a source, which no event listed as an input: docs/dbt.md)",
    )


def moment_of(data: Mapping[str, Any]) -> Moment:
    """The `Moment` a validated `MomentInput` asks about."""
    instant = data.get("at") or data.get("asOf")
    return Moment(
        at=utc_text(instant) if instant else None,
        stale=bool(data.get("includeStale")),
        inferred=data.get("includeInferred", True) is not False,
    )


M = TypeVar("M", bound=Model)


def path_id(name: str, what: str) -> OpenApiParameter:
    """The schema of a row id in a path. Such ids are matched as text (`<str:…>`), so that `/…/x` is the JSON 404
    an unknown number gets, not Django's page; this documents them as the integers they are."""
    return OpenApiParameter(name, int, OpenApiParameter.PATH, description=f"{what}'s id")


def row_or_404(queryset: QuerySet[M], raw_id: str, what: str) -> M:
    """The row `raw_id` names, or a 404 saying so (an id that is no number, or a number too large, names none)."""
    found = queryset.filter(pk=int(raw_id)).first() if raw_id.isdigit() and len(raw_id) <= 18 else None
    if found is None:
        raise NotFound(f"no {what} with id {raw_id!r}")
    return found
