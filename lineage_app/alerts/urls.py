"""Alerts routes."""

from __future__ import annotations

from django.urls import path

from lineage_app.alerts import apis

urlpatterns = [
    path("incidents", apis.IncidentListApi.as_view(), name="incident-list"),
    path("incidents/<str:incident_id>", apis.IncidentDetailApi.as_view(), name="incident-detail"),
    path("incidents/<str:incident_id>/acknowledge", apis.IncidentAcknowledgeApi.as_view(), name="incident-acknowledge"),
    path("incidents/<str:incident_id>/resolve", apis.IncidentResolveApi.as_view(), name="incident-resolve"),
    path("alerts/rules", apis.RuleListApi.as_view(), name="alert-rule-list"),
    path("alerts/rules/<str:kind>", apis.RuleUpdateApi.as_view(), name="alert-rule-update"),
    path("alerts/routes", apis.RoutesApi.as_view(), name="alert-routes"),
    path("alerts/routes/<str:route_id>", apis.RouteDeleteApi.as_view(), name="alert-route-delete"),
    path("alerts/deadlines", apis.DeadlinesApi.as_view(), name="alert-deadlines"),
    path("alerts/deadlines/<str:deadline_id>", apis.DeadlineDeleteApi.as_view(), name="alert-deadline-delete"),
    path("alerts/subscriptions", apis.SubscriptionsApi.as_view(), name="alert-subscriptions"),
    path(
        "alerts/subscriptions/<str:subscription_id>",
        apis.SubscriptionDeleteApi.as_view(),
        name="alert-subscription-delete",
    ),
]
