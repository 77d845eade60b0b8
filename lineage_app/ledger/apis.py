"""Ledger endpoints: producers' streams with their state; the transparency log's checkpoint and proofs."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanRead, CanWitness
from lineage_app.api_errors import error_response
from lineage_app.api_support import (
    ERRORS,
    MAX_PAGE,
    ErrorSerializer,
    QueryInput,
    ResponseSerializer,
    query_params,
    response_of,
)
from lineage_app.instants import utc_text
from lineage_app.ledger.checkpoint_history import checkpoint_history
from lineage_app.ledger.models import WITNESS_ALARM_KINDS
from lineage_app.ledger.proofs import (
    LogQueryError,
    LogTampered,
    checkpoint_answer,
    proof_consistency,
    proof_inclusion,
)
from lineage_app.ledger.selectors import UNCHAINED, ledger_streams
from lineage_app.ledger.witness_reports import cosignature_accept, witness_alarm_raise
from lineage_protocol import LOG_TAMPERED, STREAM_STATES


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
    state = serializers.ChoiceField(choices=STREAM_STATES)
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


def _refused(error: LogQueryError) -> Response:
    answer = error_response(error.code, error.message, path=error.path, http_status=error.status)
    if error.retry_after is not None:
        answer["Retry-After"] = str(error.retry_after)
    return answer


class CheckpointSerializer(ResponseSerializer):
    class Meta:
        ref_name = "LogCheckpoint"

    treeSize = serializers.IntegerField(help_text="leaves the checkpoint covers")
    rootHash = serializers.CharField(help_text="the tree's root hash, base64")
    note = serializers.CharField(help_text="the C2SP signed note: origin, tree size, root hash, blank line, signatures")
    keyId = serializers.CharField(help_text="the server key that signed it (`ed25519:…`)")
    signedAt = serializers.CharField()


class LogKeySerializer(ResponseSerializer):
    class Meta:
        ref_name = "LogKey"

    keyId = serializers.CharField()
    verifierKey = serializers.CharField(help_text="`<name>+<hex key id>+<base64 key>`, the signed-note verifier key")
    publicKey = serializers.CharField(help_text="Ed25519 public key, PEM")


# What the log's proof endpoints answer besides success.
LOG_ERRORS = {
    **ERRORS,
    404: OpenApiResponse(ErrorSerializer, description="no such event or checkpoint (named in `path`)"),
    409: OpenApiResponse(
        ErrorSerializer, description="the event is not in a checkpoint yet: the message and `Retry-After` say when"
    ),
}


class LogCheckpointApi(APIView):
    """`GET /api/v1/ledger/checkpoint`: the transparency log's latest signed checkpoint."""

    permission_classes = [CanWitness]

    class OutputSerializer(CheckpointSerializer):
        class Meta:
            ref_name = "LogCheckpointLatest"

        keys: serializers.ListSerializer[Any] = serializers.ListSerializer(
            child=LogKeySerializer(), help_text="the keys checkpoints may be signed with (rotated ones included)"
        )
        logSize = serializers.IntegerField(help_text="leaves in the log now, checkpointed or not")

    @extend_schema(operation_id="ledger_checkpoint", responses={200: OutputSerializer, **LOG_ERRORS})
    def get(self, request: Request) -> Response:
        try:
            return response_of(self.OutputSerializer, checkpoint_answer())
        except LogQueryError as error:
            return _refused(error)


class LogProofApi(APIView):
    """`GET /api/v1/ledger/proof`: an event's inclusion proof against a checkpoint."""

    permission_classes = [CanRead]

    class InputSerializer(QueryInput):
        event = serializers.RegexField(
            r"^([0-9]{1,18}|[0-9a-f]{64})$",
            max_length=64,
            help_text="the event's id in the event log, or its content hash (64 lowercase hex digits)",
            error_messages={"invalid": "event is an event id or a 64-hex-digit content hash"},
        )
        treeSize = serializers.IntegerField(
            required=False,
            min_value=1,
            max_value=2**63 - 1,
            help_text="a checkpoint's tree size; the latest if left out",
        )

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LogInclusionProof"

        leafIndex = serializers.IntegerField()
        treeSize = serializers.IntegerField()
        contentHash = serializers.CharField()
        acceptedAt = serializers.CharField(help_text="when the server stored the event (part of the leaf)")
        leafHash = serializers.CharField(help_text="SHA-256(0x00 || leaf data), base64")
        pruned = serializers.BooleanField(help_text="retention deleted the event; its leaf stays")
        auditPath = serializers.ListField(child=serializers.CharField(), help_text="RFC 9162 inclusion path, base64")
        checkpoint = CheckpointSerializer()

    @extend_schema(
        operation_id="ledger_proof", parameters=[InputSerializer], responses={200: OutputSerializer, **LOG_ERRORS}
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        try:
            return response_of(
                self.OutputSerializer, proof_inclusion(event=data["event"], tree_size=data.get("treeSize"))
            )
        except LogQueryError as error:
            return _refused(error)


class LogConsistencyApi(APIView):
    """`GET /api/v1/ledger/consistency`: the proof that the log at one size extends the log at a smaller one."""

    permission_classes = [CanWitness]

    # Built by `type`, like `_serializer`'s outputs: a parameter is called `from`.
    InputSerializer = type(
        "LogConsistencyQuery",
        (QueryInput,),
        {
            "from": serializers.IntegerField(min_value=0, max_value=2**63 - 1, help_text="the older tree size"),
            "to": serializers.IntegerField(
                required=False,
                min_value=0,
                max_value=2**63 - 1,
                help_text="the newer tree size, at most the latest checkpoint's (the default)",
            ),
        },
    )

    OutputSerializer = _serializer(
        "LogConsistencyProof",
        **{
            "from": serializers.IntegerField(),
            "to": serializers.IntegerField(),
            "fromRoot": serializers.CharField(help_text="root hash of the tree of size `from`, base64"),
            "toRoot": serializers.CharField(help_text="root hash of the tree of size `to`, base64"),
            "proof": serializers.ListField(child=serializers.CharField(), help_text="RFC 9162 consistency proof"),
            "checkpoint": CheckpointSerializer(allow_null=True, help_text="the checkpoint of size `to`, if any"),
        },
    )

    @extend_schema(
        operation_id="ledger_consistency", parameters=[InputSerializer], responses={200: OutputSerializer, **LOG_ERRORS}
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        try:
            return response_of(self.OutputSerializer, proof_consistency(first=data["from"], second=data.get("to")))
        except LogQueryError as error:
            return _refused(error)
        except LogTampered as error:  # a witness reads this code as "the log cannot prove it": a refusal
            return error_response(LOG_TAMPERED, f"the log's store cannot give this proof: {error}", http_status=409)


COSIGNATURE = _serializer(
    "LogCosignature",
    witness=serializers.CharField(help_text="the witness's key name"),
    keyHash=serializers.CharField(help_text="its cosigner key id, hex"),
    cosignedAt=serializers.CharField(help_text="the time the witness signed into the cosignature"),
    receivedAt=serializers.CharField(),
)
WITNESS_ALARM = _serializer(
    "WitnessAlarm",
    id=serializers.IntegerField(),
    witness=serializers.CharField(),
    kind=serializers.ChoiceField(choices=WITNESS_ALARM_KINDS),
    reason=serializers.CharField(),
    cosignedSize=serializers.IntegerField(help_text="the tree size the witness had cosigned"),
    cosignedRoot=serializers.CharField(allow_null=True),
    offeredSize=serializers.IntegerField(allow_null=True, help_text="the tree size it was offered"),
    offeredRoot=serializers.CharField(allow_null=True),
    firstReportedAt=serializers.CharField(),
    lastReportedAt=serializers.CharField(),
    reports=serializers.IntegerField(help_text="how many times the witness reported this refusal"),
    report=serializers.CharField(help_text="the witness's signed refusal note (evidence)"),
    offered=serializers.CharField(help_text="the checkpoint note the witness was offered (evidence)"),
)


class LogCheckpointListApi(APIView):
    """`GET /api/v1/ledger/checkpoints`: the checkpoints, newest first, each with its cosignatures; open alarms."""

    permission_classes = [CanRead]

    class InputSerializer(QueryInput):
        limit = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=50)
        before = serializers.IntegerField(
            required=False, min_value=1, max_value=2**63 - 1, help_text="list checkpoints smaller than this tree size"
        )

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "LogCheckpointList"

        count = serializers.IntegerField(help_text="all checkpoints")
        next = serializers.IntegerField(allow_null=True, help_text="`before` for the next page; null on the last")
        witnesses = serializers.IntegerField(help_text="registered witnesses, not revoked")
        unwitnessed = serializers.IntegerField(help_text="checkpoints newer than the newest cosigned one")
        alarms: serializers.ListSerializer[Any] = serializers.ListSerializer(
            child=WITNESS_ALARM(), help_text="open alarms: a witness refused a checkpoint"
        )
        results: serializers.ListSerializer[Any] = serializers.ListSerializer(
            child=_serializer(
                "LogCheckpointWitnessed",
                treeSize=serializers.IntegerField(),
                rootHash=serializers.CharField(),
                keyId=serializers.CharField(),
                signedAt=serializers.CharField(),
                witnessed=serializers.BooleanField(help_text="a registered witness cosigned it"),
                cosignatures=serializers.ListSerializer(child=COSIGNATURE()),
                note=serializers.CharField(help_text="the signed note with the cosignatures' lines appended"),
            )()
        )

    @extend_schema(
        operation_id="ledger_checkpoint_list", parameters=[InputSerializer], responses={200: OutputSerializer, **ERRORS}
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        return response_of(self.OutputSerializer, checkpoint_history(limit=data["limit"], before=data.get("before")))


# What the witness endpoints refuse besides the usual.
WITNESS_ERRORS = {
    **ERRORS,
    403: OpenApiResponse(ErrorSerializer, description="not signed by a registered witness (or not allowed at all)"),
    404: OpenApiResponse(ErrorSerializer, description="no checkpoint of that tree size"),
}


class CosignatureSubmitApi(APIView):
    """`POST /api/v1/ledger/cosignatures`: a witness's cosignature of a checkpoint, kept once it verifies."""

    permission_classes = [CanWitness]

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CosignatureSubmit"

        treeSize = serializers.IntegerField(min_value=1, max_value=2**63 - 1, help_text="the checkpoint cosigned")
        cosignature = serializers.CharField(
            max_length=1000, trim_whitespace=False, help_text="the C2SP cosignature line, `— <name> <base64>`"
        )

    OutputSerializer = COSIGNATURE

    @extend_schema(
        operation_id="ledger_cosignature_submit",
        request=InputSerializer,
        responses={201: OutputSerializer, **WITNESS_ERRORS},
    )
    def post(self, request: Request) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            kept = cosignature_accept(
                tree_size=body.validated_data["treeSize"], line=body.validated_data["cosignature"]
            )
        except LogQueryError as error:
            return _refused(error)
        answer = {
            "witness": kept.witness.name,
            "keyHash": kept.witness.key_hash,
            "cosignedAt": utc_text(kept.cosigned_at),
            "receivedAt": utc_text(kept.received_at),
        }
        return response_of(self.OutputSerializer, answer, status=201)


class WitnessAlarmRaiseApi(APIView):
    """`POST /api/v1/ledger/witness-alarms`: a witness's signed refusal of a checkpoint, kept as an open alarm."""

    permission_classes = [CanWitness]

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "WitnessAlarmReport"

        report = serializers.CharField(max_length=8000, trim_whitespace=False, help_text="the signed refusal note")
        offered = serializers.CharField(
            max_length=65536, allow_blank=True, trim_whitespace=False, help_text="the checkpoint note refused"
        )

    class OutputSerializer(ResponseSerializer):
        class Meta:
            ref_name = "WitnessAlarmRaised"

        id = serializers.IntegerField()
        kind = serializers.ChoiceField(choices=WITNESS_ALARM_KINDS)
        reports = serializers.IntegerField()

    @extend_schema(
        operation_id="ledger_witness_alarm_raise",
        request=InputSerializer,
        responses={201: OutputSerializer, **WITNESS_ERRORS},
    )
    def post(self, request: Request) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            alarm = witness_alarm_raise(report=body.validated_data["report"], offered=body.validated_data["offered"])
        except LogQueryError as error:
            return _refused(error)
        return response_of(
            self.OutputSerializer, {"id": alarm.pk, "kind": alarm.kind, "reports": alarm.reports}, status=201
        )
