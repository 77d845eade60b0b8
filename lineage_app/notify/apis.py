"""Destination and delivery endpoints under `/api/v1/alerts/`: admins manage destinations, send test
messages, read deliveries (dead-lettered ones too) and retry them. Secrets are accepted, never answered."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import CanAdminister
from lineage_app.api_errors import error_response
from lineage_app.api_support import (
    ERRORS,
    PageInput,
    ResponseSerializer,
    page_of,
    path_id,
    query_params,
    response_of,
    row_or_404,
)
from lineage_app.notify import selectors, services
from lineage_app.notify.addresses import DestinationInvalid
from lineage_app.notify.models import Delivery, Destination

KIND_HELP = "email: `email` is the mailbox; slack, teams, webhook: `url` is the webhook's URL"


class DestinationOutput(ResponseSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=Destination.Kind.values)
    url = serializers.CharField(
        allow_blank=True,
        help_text="a generic webhook's URL; of a Slack or Teams webhook only the host (its URL is its key)",
    )
    email = serializers.CharField(allow_blank=True)
    hasSecret = serializers.BooleanField(
        help_text="whether a signing secret is set; the secret itself is never answered"
    )
    enabled = serializers.BooleanField()
    deadDeliveries = serializers.IntegerField(help_text="its dead-lettered deliveries")
    createdAt = serializers.CharField()
    updatedAt = serializers.CharField()


class DestinationInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=Destination.Kind.values, help_text=KIND_HELP)
    url = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    email = serializers.CharField(max_length=254, required=False, allow_blank=True, default="")
    secret = serializers.CharField(
        max_length=500,
        required=False,
        allow_blank=True,
        write_only=True,
        trim_whitespace=False,
        help_text="a generic webhook's signing secret (HMAC-SHA256); write-only. "
        "On update: left out keeps it, empty removes it",
    )
    enabled = serializers.BooleanField(required=False, default=True)


class DestinationPatchInput(DestinationInput):
    """The fields to change; those left out keep their value (a left-out `secret` too)."""

    name = serializers.CharField(max_length=200, required=False)
    kind = serializers.ChoiceField(choices=Destination.Kind.values, required=False, help_text=KIND_HELP)
    url = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    email = serializers.CharField(max_length=254, required=False, allow_blank=True)
    enabled = serializers.BooleanField(required=False)


class DestinationRef(ResponseSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=Destination.Kind.values)


class DeliveryOutput(ResponseSerializer):
    id = serializers.IntegerField()
    destination = DestinationRef()
    idempotencyKey = serializers.CharField(
        help_text="sent as `Idempotency-Key` (webhooks) or in the Message-ID (email)"
    )
    title = serializers.CharField(allow_blank=True)
    state = serializers.ChoiceField(choices=Delivery.State.values)
    attempts = serializers.IntegerField()
    lastError = serializers.CharField(allow_blank=True)
    createdAt = serializers.CharField()
    nextAttemptAt = serializers.CharField(allow_null=True, help_text="when a pending delivery is tried next")
    sentAt = serializers.CharField(allow_null=True)


DESTINATION_ID = path_id("destination_id", "a destination")
DELIVERY_ID = path_id("delivery_id", "a delivery")


def _invalid(exc: DestinationInvalid) -> Response:
    return error_response("invalid", f"{exc.field}: {exc.reason}", path=exc.field, http_status=400)


def _valid(serializer_class: type[serializers.Serializer], raw: Any) -> dict[str, Any]:
    body = serializer_class(data=raw)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


class DestinationListApi(APIView):
    """`GET /api/v1/alerts/destinations`: every destination, by name; `POST`: a new one (201). Admins only."""

    permission_classes = [CanAdminister]
    PageSerializer = page_of("DestinationPage", DestinationOutput())

    @extend_schema(
        operation_id="alert_destination_list", parameters=[PageInput], responses={200: PageSerializer, **ERRORS}
    )
    def get(self, request: Request) -> Response:
        data = query_params(PageInput, request)
        destinations = selectors.destination_list()
        page = destinations[data["offset"] : data["offset"] + data["limit"]]
        answer = {"count": destinations.count(), "results": [selectors.destination_row(d) for d in page]}
        return response_of(self.PageSerializer, answer)

    @extend_schema(
        operation_id="alert_destination_create",
        request=DestinationInput,
        responses={201: DestinationOutput, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        data = _valid(DestinationInput, request.data)
        secret = data.pop("secret", "")
        try:
            destination = services.destination_create(data=services.DestinationInput(**data), secret=secret)
        except DestinationInvalid as exc:
            return _invalid(exc)
        return response_of(DestinationOutput, selectors.destination_row(destination, dead=0), status=201)


class DestinationDetailApi(APIView):
    """`/api/v1/alerts/destinations/<id>`: `GET` one, `PATCH` the settings given, `DELETE` it (204). Admins only."""

    permission_classes = [CanAdminister]

    @extend_schema(
        operation_id="alert_destination_detail",
        parameters=[DESTINATION_ID],
        responses={200: DestinationOutput, **ERRORS},
    )
    def get(self, request: Request, destination_id: str) -> Response:
        destination = row_or_404(selectors.destination_list(), destination_id, "destination")
        return response_of(DestinationOutput, selectors.destination_row(destination))

    @extend_schema(
        operation_id="alert_destination_update",
        parameters=[DESTINATION_ID],
        request=DestinationPatchInput,
        responses={200: DestinationOutput, **ERRORS},
    )
    def patch(self, request: Request, destination_id: str) -> Response:
        destination = row_or_404(Destination.objects.all(), destination_id, "destination")
        changes = _valid(DestinationPatchInput, request.data)
        secret = changes.pop("secret", None)
        try:
            services.destination_update(destination=destination, changes=changes, secret=secret)
        except DestinationInvalid as exc:
            return _invalid(exc)
        return response_of(
            DestinationOutput, selectors.destination_row(selectors.destination_list().get(pk=destination.pk))
        )

    @extend_schema(
        operation_id="alert_destination_delete", parameters=[DESTINATION_ID], responses={204: None, **ERRORS}
    )
    def delete(self, request: Request, destination_id: str) -> Response:
        services.destination_delete(destination=row_or_404(Destination.objects.all(), destination_id, "destination"))
        return Response(status=204)


class DestinationTestApi(APIView):
    """`POST /api/v1/alerts/destinations/<id>/test`: send a test message now and answer how it went
    (`state` `sent`, or `pending` with `lastError` when the try failed: the workers retry it). Admins only."""

    permission_classes = [CanAdminister]

    @extend_schema(
        operation_id="alert_destination_test",
        parameters=[DESTINATION_ID],
        request=None,
        responses={200: DeliveryOutput, **ERRORS},
    )
    def post(self, request: Request, destination_id: str) -> Response:
        destination = row_or_404(Destination.objects.all(), destination_id, "destination")
        delivery = services.destination_test(destination=destination)
        return response_of(DeliveryOutput, selectors.delivery_row(delivery))


class DeliveryListInput(PageInput):
    state = serializers.ChoiceField(choices=Delivery.State.values, required=False, default=None)
    destination = serializers.IntegerField(required=False, default=None, help_text="a destination's id")


class DeliveryListApi(APIView):
    """`GET /api/v1/alerts/deliveries?state=dead`: deliveries, newest first (`state=dead`: the dead letters).
    Admins only."""

    permission_classes = [CanAdminister]
    PageSerializer = page_of("DeliveryPage", DeliveryOutput())

    @extend_schema(
        operation_id="alert_delivery_list", parameters=[DeliveryListInput], responses={200: PageSerializer, **ERRORS}
    )
    def get(self, request: Request) -> Response:
        data = query_params(DeliveryListInput, request)
        deliveries = selectors.delivery_list(state=data["state"], destination_id=data["destination"])
        page = deliveries[data["offset"] : data["offset"] + data["limit"]]
        answer = {"count": deliveries.count(), "results": [selectors.delivery_row(d) for d in page]}
        return response_of(self.PageSerializer, answer)


class DeliveryRetryApi(APIView):
    """`POST /api/v1/alerts/deliveries/<id>/retry`: a dead-lettered delivery gets a fresh round of tries
    (409 unless it is dead). Admins only."""

    permission_classes = [CanAdminister]

    @extend_schema(
        operation_id="alert_delivery_retry",
        parameters=[DELIVERY_ID],
        request=None,
        responses={200: DeliveryOutput, **ERRORS},
    )
    def post(self, request: Request, delivery_id: str) -> Response:
        delivery = row_or_404(Delivery.objects.select_related("destination"), delivery_id, "delivery")
        if delivery.state != Delivery.State.DEAD:
            return error_response(
                "conflict", f"only a dead-lettered delivery is retried; this one is {delivery.state}", http_status=409
            )
        with transaction.atomic():
            services.delivery_retry(delivery=delivery)
        return response_of(DeliveryOutput, selectors.delivery_row(delivery))
