"""Notification routes: destinations and deliveries, under `/api/v1/alerts/`."""

from __future__ import annotations

from django.urls import path

from lineage_app.notify import apis

urlpatterns = [
    path("alerts/destinations", apis.DestinationListApi.as_view(), name="alert-destination-list"),
    path("alerts/destinations/<str:destination_id>", apis.DestinationDetailApi.as_view(), name="alert-destination"),
    path(
        "alerts/destinations/<str:destination_id>/test",
        apis.DestinationTestApi.as_view(),
        name="alert-destination-test",
    ),
    path("alerts/deliveries", apis.DeliveryListApi.as_view(), name="alert-delivery-list"),
    path("alerts/deliveries/<str:delivery_id>/retry", apis.DeliveryRetryApi.as_view(), name="alert-delivery-retry"),
]
