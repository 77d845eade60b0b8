"""Ledger endpoint: each producer's streams with their state, gaps, forks and truncation."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead
from lineage_app.api_support import ERRORS, MAX_PAGE, QueryInput, ResponseSerializer, query_params, response_of
from lineage_app.ledger.selectors import STATES, UNCHAINED, ledger_streams


def _serializer(name: str, **fields: Any) -> type[ResponseSerializer]:
    """An output object named `name` in the schema; built by `type` because one of its fields is called `from`."""
    return type(name, (ResponseSerializer,), {**fields, "Meta": type("Meta", (), {"ref_name": name})})


GAP = _serializer(
    "LedgerGap",
    **{
        "from": serializers.IntegerField(help_text="first missing seq"),
        "to": serializers.IntegerField(help_text="last missing seq"),
        "noticedAt": serializers.CharField(help_text="when the server first saw that these seqs were missing"),
        "openSince": serializers.CharField(allow_null=True, help_text="eventTime of the last event before the gap"),
    },
)
FORK = _serializer(
    "LedgerFork",
    seq=serializers.IntegerField(),
    events=serializers.ListField(
        child=serializers.CharField(), help_text="content hashes of the events that arrived at this seq"
    ),
    noticedAt=serializers.CharField(),
)
TRUNCATION = _serializer(
    "LedgerTruncation",
    **{
        "from": serializers.IntegerField(help_text="first seq announced but not arrived"),
        "to": serializers.IntegerField(help_text="the seq the newest heartbeat announced"),
        "announcedAt": serializers.CharField(allow_null=True),
    },
)
HEARTBEAT = _serializer("LedgerHeartbeat", seq=serializers.IntegerField(), at=serializers.CharField(allow_null=True))


class StreamSerializer(ResponseSerializer):
    class Meta:
        ref_name = "LedgerStream"

    producer = serializers.CharField()
    stream = serializers.CharField(help_text="`<keyId>/<instance>`")
    keyId = serializers.CharField()
    state = serializers.ChoiceField(choices=STATES)
    high = serializers.IntegerField(help_text="the highest seq arrived")
    contiguousTo = serializers.IntegerField(help_text="every seq from 1 to this one arrived")
    gapCount = serializers.IntegerField()
    gaps: serializers.ListSerializer[Any] = serializers.ListSerializer(child=GAP(), help_text="the first 100 open gaps")
    forkCount = serializers.IntegerField()
    forks: serializers.ListSerializer[Any] = serializers.ListSerializer(
        child=FORK(), help_text="the first 100 forked seqs"
    )
    truncated = TRUNCATION(allow_null=True, help_text="seqs a heartbeat announced that never arrived")
    heartbeat = HEARTBEAT(allow_null=True, help_text="the newest heartbeat's seq and time")
    follows = serializers.CharField(allow_null=True, help_text="the head (content hash) this stream continues")
    firstSeen = serializers.CharField()
    lastSeen = serializers.CharField()


class UnchainedSerializer(ResponseSerializer):
    class Meta:
        ref_name = "LedgerUnchained"

    producer = serializers.CharField()
    state = serializers.ChoiceField(choices=[UNCHAINED])
    events = serializers.IntegerField()
    lastEventTime = serializers.CharField()


class LedgerStreamListApi(APIView):
    """`GET /api/v1/ledger/streams`: every stream (of `producer`), its state and the seq ranges that make it so."""

    permission_classes = [CanRead]

    class InputSerializer(QueryInput):
        producer = serializers.CharField(
            required=False, help_text="A registered producer's name (or an unchained producer's `producer` URI)."
        )
        limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=50)

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LedgerStreamList"

        count = serializers.IntegerField(help_text="all matching streams, not only those listed")
        results: serializers.ListSerializer[Any] = serializers.ListSerializer(child=StreamSerializer())
        unchained: serializers.ListSerializer[Any] = serializers.ListSerializer(child=UnchainedSerializer())

    @extend_schema(
        operation_id="ledger_stream_list", parameters=[InputSerializer], responses={200: OutputSerializer, **ERRORS}
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_of(self.OutputSerializer, ledger_streams(producer=data.get("producer"), limit=data["limit"]))
