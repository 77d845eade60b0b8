"""Alerts endpoints: incidents (list, detail, acknowledge, resolve), rules, routes, declared deadlines and each
user's subscriptions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineage_app.accounts.permissions import (
    CanAdminister,
    CanHandleIncidents,
    CanRead,
    IsSignedInUser,
    ReadsOrAdministers,
)
from lineage_app.alerts import selectors, services
from lineage_app.alerts.models import Deadline, Incident, IncidentEvent, Route, Rule, Subscription
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
from lineage_app.instants import utc_text


class BlastCountsOutput(ResponseSerializer):
    datasets = serializers.IntegerField()
    jobs = serializers.IntegerField()
    columns = serializers.IntegerField(help_text="downstream fields")
    owners = serializers.IntegerField()


class BlastRadiusOutput(ResponseSerializer):
    datasets = serializers.ListField(child=serializers.CharField(), help_text="node ids, the root first")
    jobs = serializers.ListField(child=serializers.CharField())
    columns = serializers.ListField(child=serializers.CharField(), help_text="downstream fields affected (node ids)")
    owners = serializers.ListField(child=serializers.CharField())
    counts = BlastCountsOutput()
    truncated = serializers.BooleanField()
    depth = serializers.IntegerField()


class IncidentOutput(ResponseSerializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Rule.Kind.values)
    state = serializers.ChoiceField(choices=Incident.State.values)
    rootId = serializers.CharField(help_text="the root cause's node id")
    title = serializers.CharField()
    cause = serializers.CharField(allow_blank=True)
    classification = serializers.CharField(allow_blank=True)
    runId = serializers.CharField(allow_blank=True)
    owners = serializers.ListField(child=serializers.CharField(), help_text="every owner the incident concerns")
    occurrences = serializers.IntegerField()
    openedAt = serializers.CharField()
    lastSeenAt = serializers.CharField()
    acknowledgedAt = serializers.CharField(allow_null=True)
    acknowledgedBy = serializers.CharField(allow_blank=True)
    resolvedAt = serializers.CharField(allow_null=True)
    resolvedBy = serializers.CharField(allow_blank=True)
    blastRadius = BlastRadiusOutput()
    verification = serializers.DictField(child=serializers.IntegerField(), help_text="signature status -> events")


class TimelineOutput(ResponseSerializer):
    at = serializers.CharField()
    kind = serializers.ChoiceField(choices=IncidentEvent.Kind.values)
    text = serializers.CharField()
    actor = serializers.CharField(allow_blank=True)


class IncidentDeliveryOutput(ResponseSerializer):
    id = serializers.IntegerField()
    destination = serializers.CharField(help_text="the destination's name")
    destinationKind = serializers.CharField()
    state = serializers.CharField(help_text="pending, sending, sent or dead")
    attempts = serializers.IntegerField()
    lastError = serializers.CharField(allow_blank=True)
    createdAt = serializers.CharField()
    sentAt = serializers.CharField(allow_null=True)


class IncidentDetailOutput(IncidentOutput):
    timeline: serializers.ListSerializer = serializers.ListSerializer(child=TimelineOutput())
    deliveries: serializers.ListSerializer = serializers.ListSerializer(child=IncidentDeliveryOutput())


def _when(value: Any) -> str | None:
    return utc_text(value) if value else None


def _incident(incident: Incident) -> dict[str, Any]:
    return {
        "id": incident.pk,
        "kind": incident.kind,
        "state": incident.state,
        "rootId": incident.root,
        "title": incident.title,
        "cause": incident.cause,
        "classification": incident.classification,
        "runId": incident.run_id,
        "owners": incident.owners,
        "occurrences": incident.occurrences,
        "openedAt": utc_text(incident.opened_at),
        "lastSeenAt": utc_text(incident.last_seen_at),
        "acknowledgedAt": _when(incident.acknowledged_at),
        "acknowledgedBy": incident.acknowledged_by,
        "resolvedAt": _when(incident.resolved_at),
        "resolvedBy": incident.resolved_by,
        "blastRadius": {
            "datasets": [],
            "jobs": [],
            "columns": [],
            "owners": [],
            "counts": {"datasets": 0, "jobs": 0, "columns": 0, "owners": 0},
            "truncated": False,
            "depth": 0,
            **incident.blast_radius,
        },
        "verification": incident.verification,
    }


def _incident_detail(incident: Incident) -> dict[str, Any]:
    return {
        **_incident(incident),
        "timeline": [
            {"at": utc_text(e.at), "kind": e.kind, "text": e.text, "actor": e.actor}
            for e in selectors.incident_timeline(incident=incident)
        ],
        "deliveries": [
            {
                "id": d.pk,
                "destination": d.destination.name,
                "destinationKind": d.destination.kind,
                "state": d.state,
                "attempts": d.attempts,
                "lastError": d.last_error,
                "createdAt": utc_text(d.created_at),
                "sentAt": _when(d.sent_at),
            }
            for d in selectors.incident_deliveries(incident=incident)
        ],
    }


INCIDENT_ID = path_id("incident_id", "an incident")
ROUTE_ID = path_id("route_id", "a route")
SUBSCRIPTION_ID = path_id("subscription_id", "a subscription")
DEADLINE_ID = path_id("deadline_id", "a declared deadline")


def _invalid(exc: services.AlertsInvalid) -> Response:
    return error_response("invalid", str(exc), path=exc.field, http_status=400)


class IncidentListApi(APIView):
    """`GET /api/v1/incidents`: incidents, the most recently seen first."""

    permission_classes = [CanRead]

    class InputSerializer(PageInput):
        state = serializers.ChoiceField(choices=Incident.State.values, required=False, default=None)
        team = serializers.CharField(required=False, default=None, help_text="an owner name, e.g. `team:payments`")
        kind = serializers.ChoiceField(choices=Rule.Kind.values, required=False, default=None)

    PageSerializer = page_of("IncidentPage", IncidentOutput())

    @extend_schema(
        operation_id="incident_list", parameters=[InputSerializer], responses={200: PageSerializer, **ERRORS}
    )
    def get(self, request: Request) -> Response:
        data = query_params(self.InputSerializer, request)
        incidents = selectors.incident_list(state=data["state"], team=data["team"], kind=data["kind"])
        page = incidents[data["offset"] : data["offset"] + data["limit"]]
        return response_of(self.PageSerializer, {"count": incidents.count(), "results": [_incident(i) for i in page]})


class IncidentDetailApi(APIView):
    """`GET /api/v1/incidents/<id>`: an incident with its timeline and its deliveries."""

    permission_classes = [CanRead]

    @extend_schema(
        operation_id="incident_detail", parameters=[INCIDENT_ID], responses={200: IncidentDetailOutput, **ERRORS}
    )
    def get(self, request: Request, incident_id: str) -> Response:
        incident = row_or_404(Incident.objects.all(), incident_id, "incident")
        return response_of(IncidentDetailOutput, _incident_detail(incident))


class _IncidentActionApi(APIView):
    """`POST /api/v1/incidents/<id>/<action>`: `act` the incident, answer its detail as it is now."""

    permission_classes = [CanHandleIncidents]
    act: Callable[..., Incident]  # a service taking the incident and the actor

    def post(self, request: Request, incident_id: str) -> Response:
        incident = row_or_404(Incident.objects.all(), incident_id, "incident")
        try:
            self.act(incident=incident, actor=str(request.user))
        except services.AlertsInvalid as exc:
            return _invalid(exc)
        return response_of(IncidentDetailOutput, _incident_detail(incident))


def _action_schema(operation_id: str) -> Callable[[type[_IncidentActionApi]], type[_IncidentActionApi]]:
    return extend_schema_view(
        post=extend_schema(
            operation_id=operation_id,
            parameters=[INCIDENT_ID],
            request=None,
            responses={200: IncidentDetailOutput, **ERRORS},
        )
    )


@_action_schema("incident_acknowledge")
class IncidentAcknowledgeApi(_IncidentActionApi):
    """`POST /api/v1/incidents/<id>/acknowledge`: someone is on it (an open incident only)."""

    act = staticmethod(services.incident_acknowledge)


@_action_schema("incident_resolve")
class IncidentResolveApi(_IncidentActionApi):
    """`POST /api/v1/incidents/<id>/resolve`: resolve it by hand; its owners hear so."""

    act = staticmethod(services.incident_resolve)


class RuleOutput(ResponseSerializer):
    kind = serializers.ChoiceField(choices=Rule.Kind.values)
    description = serializers.CharField()
    enabled = serializers.BooleanField()
    namespaces = serializers.ListField(child=serializers.CharField())
    owners = serializers.ListField(child=serializers.CharField())


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "kind": rule.kind,
        "description": rule.get_kind_display(),
        "enabled": rule.enabled,
        "namespaces": rule.namespaces,
        "owners": rule.owners,
    }


class RuleListApi(APIView):
    """`GET /api/v1/alerts/rules`: every trigger, on or off, with its scope."""

    permission_classes = [CanRead]
    PageSerializer = page_of("RulePage", RuleOutput())

    @extend_schema(operation_id="alert_rule_list", responses={200: PageSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        rules = [_rule(rule) for rule in selectors.rules_by_kind().values()]
        return response_of(self.PageSerializer, {"count": len(rules), "results": rules})


class RuleUpdateApi(APIView):
    """`PATCH /api/v1/alerts/rules/<kind>`: switch a rule on or off, or scope it (admins)."""

    permission_classes = [CanAdminister]

    class InputSerializer(serializers.Serializer):
        enabled = serializers.BooleanField(required=False)
        namespaces = serializers.ListField(child=serializers.CharField(max_length=500), required=False, max_length=200)
        owners = serializers.ListField(child=serializers.CharField(max_length=200), required=False, max_length=200)

    @extend_schema(operation_id="alert_rule_update", request=InputSerializer, responses={200: RuleOutput, **ERRORS})
    def patch(self, request: Request, kind: str) -> Response:
        rule = selectors.rules_by_kind().get(kind)
        if rule is None:
            return error_response(
                "not_found", f"no rule {kind!r}: one of {', '.join(Rule.Kind.values)}", http_status=404
            )
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            services.rule_update(
                rule=rule, enabled=data.get("enabled"), namespaces=data.get("namespaces"), owners=data.get("owners")
            )
        except services.AlertsInvalid as exc:
            return _invalid(exc)
        return response_of(RuleOutput, _rule(rule))


class RouteOutput(ResponseSerializer):
    id = serializers.IntegerField()
    owner = serializers.CharField()
    destination = serializers.IntegerField()
    destinationName = serializers.CharField()


def _route(route: Route) -> dict[str, Any]:
    return {
        "id": route.pk,
        "owner": route.owner.name,
        "destination": route.destination_id,
        "destinationName": route.destination.name,
    }


class RouteInput(serializers.Serializer):
    owner = serializers.CharField(max_length=200, help_text="an owner's name, e.g. `team:payments`")
    destination = serializers.IntegerField(help_text="a destination's id (`/api/v1/alerts/destinations`)")


class RoutesApi(APIView):
    """`/api/v1/alerts/routes`: GET the owner -> destination routes; POST one (admins)."""

    permission_classes = [ReadsOrAdministers]
    PageSerializer = page_of("RoutePage", RouteOutput())

    @extend_schema(operation_id="alert_route_list", responses={200: PageSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        routes = [_route(r) for r in Route.objects.select_related("owner", "destination")]
        return response_of(self.PageSerializer, {"count": len(routes), "results": routes})

    @extend_schema(operation_id="alert_route_create", request=RouteInput, responses={201: RouteOutput, **ERRORS})
    def post(self, request: Request) -> Response:
        body = RouteInput(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            route = services.route_create(**body.validated_data)
        except services.AlertsInvalid as exc:
            return _invalid(exc)
        return response_of(RouteOutput, _route(route), status=201)


class RouteDeleteApi(APIView):
    """`DELETE /api/v1/alerts/routes/<id>` (admins)."""

    permission_classes = [CanAdminister]

    @extend_schema(operation_id="alert_route_delete", parameters=[ROUTE_ID], responses={204: None, **ERRORS})
    def delete(self, request: Request, route_id: str) -> Response:
        route = row_or_404(Route.objects.all(), route_id, "route")
        services.route_delete(route=route)
        return Response(status=204)


class DeadlineOutput(ResponseSerializer):
    id = serializers.IntegerField()
    namespace = serializers.CharField(help_text="the job's namespace")
    name = serializers.CharField(help_text="the job's name")
    expectedBy = serializers.CharField(allow_null=True, help_text="`HH:MM` UTC: completed by then every day")
    everyMinutes = serializers.IntegerField(allow_null=True, help_text="or completed this often")
    graceMinutes = serializers.IntegerField()
    createdAt = serializers.CharField()


def _deadline(deadline: Deadline) -> dict[str, Any]:
    return {
        "id": deadline.pk,
        "namespace": deadline.job_namespace,
        "name": deadline.job_name,
        "expectedBy": f"{deadline.expected_by:%H:%M}" if deadline.expected_by is not None else None,
        "everyMinutes": deadline.every_minutes,
        "graceMinutes": deadline.grace_minutes,
        "createdAt": utc_text(deadline.created_at),
    }


class DeadlineInput(serializers.Serializer):
    namespace = serializers.CharField(max_length=500, help_text="the job's namespace")
    name = serializers.CharField(max_length=500, help_text="the job's name")
    expectedBy = serializers.TimeField(
        required=False, allow_null=True, input_formats=["%H:%M"], help_text="`HH:MM` UTC: completed by then daily"
    )
    everyMinutes = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=60 * 24 * 366, help_text="or completed this often"
    )
    graceMinutes = serializers.IntegerField(required=False, default=0, min_value=0, max_value=60 * 24 * 7)


class DeadlinesApi(APIView):
    """`/api/v1/alerts/deadlines`: GET the jobs' declared deadlines; POST one (admins), replacing the job's."""

    permission_classes = [ReadsOrAdministers]
    PageSerializer = page_of("DeadlinePage", DeadlineOutput())

    @extend_schema(operation_id="alert_deadline_list", responses={200: PageSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        deadlines = [_deadline(d) for d in Deadline.objects.all()]
        return response_of(self.PageSerializer, {"count": len(deadlines), "results": deadlines})

    @extend_schema(
        operation_id="alert_deadline_declare", request=DeadlineInput, responses={201: DeadlineOutput, **ERRORS}
    )
    def post(self, request: Request) -> Response:
        body = DeadlineInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            deadline = services.deadline_declare(
                namespace=data["namespace"],
                name=data["name"],
                expected_by=data.get("expectedBy"),
                every_minutes=data.get("everyMinutes"),
                grace_minutes=data["graceMinutes"],
            )
        except services.AlertsInvalid as exc:
            return _invalid(exc)
        return response_of(DeadlineOutput, _deadline(deadline), status=201)


class DeadlineDeleteApi(APIView):
    """`DELETE /api/v1/alerts/deadlines/<id>` (admins): the job goes back to its learned cadence."""

    permission_classes = [CanAdminister]

    @extend_schema(operation_id="alert_deadline_delete", parameters=[DEADLINE_ID], responses={204: None, **ERRORS})
    def delete(self, request: Request, deadline_id: str) -> Response:
        deadline = row_or_404(Deadline.objects.all(), deadline_id, "deadline")
        services.deadline_delete(deadline=deadline)
        return Response(status=204)


class SubscriptionOutput(ResponseSerializer):
    id = serializers.IntegerField()
    subscriber = serializers.CharField(help_text="who hears: `user:<you>` or a team")
    targetType = serializers.ChoiceField(choices=Subscription.TargetType.values)
    namespace = serializers.CharField()
    name = serializers.CharField(allow_blank=True)


def _subscription(sub: Subscription) -> dict[str, Any]:
    return {
        "id": sub.pk,
        "subscriber": sub.subscriber.name,
        "targetType": sub.target_type,
        "namespace": sub.namespace,
        "name": sub.name,
    }


class SubscriptionInput(serializers.Serializer):
    targetType = serializers.ChoiceField(choices=Subscription.TargetType.values)
    namespace = serializers.CharField(max_length=500)
    name = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
    subscriber = serializers.CharField(
        max_length=200, required=False, default=None, help_text="a team to subscribe; default: `user:<you>`"
    )


class SubscriptionsApi(APIView):
    """`/api/v1/alerts/subscriptions`: the signed-in user's own subscriptions; GET them, POST one."""

    permission_classes = [IsSignedInUser]
    PageSerializer = page_of("SubscriptionPage", SubscriptionOutput())

    @extend_schema(operation_id="alert_subscription_list", responses={200: PageSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        subs = [_subscription(s) for s in selectors.subscriptions_of(user=request.user)]
        return response_of(self.PageSerializer, {"count": len(subs), "results": subs})

    @extend_schema(
        operation_id="alert_subscription_create",
        request=SubscriptionInput,
        responses={201: SubscriptionOutput, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        body = SubscriptionInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            sub = services.subscription_create(
                user=request.user,
                subscriber=data["subscriber"],
                target_type=data["targetType"],
                namespace=data["namespace"],
                name=data["name"],
            )
        except services.AlertsInvalid as exc:
            return _invalid(exc)
        return response_of(SubscriptionOutput, _subscription(sub), status=201)


class SubscriptionDeleteApi(APIView):
    """`DELETE /api/v1/alerts/subscriptions/<id>`: one of the signed-in user's own."""

    permission_classes = [IsSignedInUser]

    @extend_schema(
        operation_id="alert_subscription_delete", parameters=[SUBSCRIPTION_ID], responses={204: None, **ERRORS}
    )
    def delete(self, request: Request, subscription_id: str) -> Response:
        sub = row_or_404(selectors.subscriptions_of(user=request.user), subscription_id, "subscription of yours")
        services.subscription_delete(subscription=sub)
        return Response(status=204)
