"""The alerts API: incidents (filters, acknowledge, resolve), rules, routes and subscriptions; admin writes need
an admin session or an admin-scope token; bad input is a 400 naming the field."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from rest_framework.test import APIClient

from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.roles import role_grant
from lineage_app.accounts.services import token_create
from lineage_app.alerts.models import Incident, Route, Subscription
from lineage_app.notify.models import Delivery, Destination
from lineage_app.ownership.models import Owner
from tests.alerts.scenario import history, routed, run
from tests.apply import accept_and_apply
from tests.events import T0

pytestmark = pytest.mark.django_db


def as_token(scope: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_create(name=f'{scope} t', scope=scope)[1]}")
    return client


def as_user(name: str, role: str | None = None) -> APIClient:
    user = User.objects.create_user(name, password="pw")
    if role:
        role_grant(user=user, role=role)
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def destination(db) -> Destination:  # type: ignore[no-untyped-def]
    return Destination.objects.create(name="ops hook", kind="webhook", url="http://127.0.0.1:9/hook", secret="s3cret")


def test_create_token_makes_an_admin_scope_token(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("create_token", "--scope", "admin")
    assert ApiToken.objects.get().scope == "admin"
    assert capsys.readouterr().out.strip()


def test_routes_need_an_admin_and_name_a_known_owner_and_destination(destination: Destination) -> None:
    Owner.objects.create(name="team:payments")
    body = {"owner": "team:payments", "destination": destination.pk}
    assert as_token("read").post("/api/v1/alerts/routes", body, format="json").status_code == 403
    assert as_user("ed", "editor").post("/api/v1/alerts/routes", body, format="json").status_code == 403
    admin = as_token("admin")
    unknown_owner = admin.post("/api/v1/alerts/routes", {**body, "owner": "team:nobody"}, format="json")
    assert unknown_owner.status_code == 400 and unknown_owner.json()["path"] == "owner"
    unknown_destination = admin.post("/api/v1/alerts/routes", {**body, "destination": 999}, format="json")
    assert unknown_destination.status_code == 400 and unknown_destination.json()["path"] == "destination"
    not_a_number = admin.post("/api/v1/alerts/routes", {**body, "destination": "x"}, format="json")
    assert not_a_number.status_code == 400 and not_a_number.json()["path"] == "destination"
    created = as_user("root", "admin").post("/api/v1/alerts/routes", body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json() == {
        "id": Route.objects.get().pk,
        "owner": "team:payments",
        "destination": destination.pk,
        "destinationName": "ops hook",
    }
    listed = as_token("read").get("/api/v1/alerts/routes").json()
    assert listed["count"] == 1 and "s3cret" not in str(listed)
    assert admin.delete(f"/api/v1/alerts/routes/{created.json()['id']}").status_code == 204


def test_rules_are_listed_and_only_admins_switch_or_scope_them() -> None:
    rules = as_token("read").get("/api/v1/alerts/rules").json()["results"]
    assert {r["kind"] for r in rules} >= {"run_failed", "recovered", "schema_breaking", "verification"}
    assert {r["kind"] for r in rules if not r["enabled"]} == {"new_consumer"}, "on by default, but the noisy one"
    assert (
        as_token("read").patch("/api/v1/alerts/rules/run_failed", {"enabled": False}, format="json").status_code == 403
    )
    admin = as_token("admin")
    bad = admin.patch("/api/v1/alerts/rules/run_failed", {"owners": ["team:ghost"]}, format="json")
    assert bad.status_code == 400 and bad.json()["path"] == "owners"
    assert admin.patch("/api/v1/alerts/rules/nonsense", {}, format="json").status_code == 404
    switched = admin.patch("/api/v1/alerts/rules/run_failed", {"enabled": False, "namespaces": ["shop"]}, format="json")
    assert switched.status_code == 200 and switched.json()["enabled"] is False
    assert switched.json()["namespaces"] == ["shop"]
    scoped = admin.patch("/api/v1/alerts/rules/new_consumer", {"namespaces": ["shop"]}, format="json").json()
    assert (scoped["enabled"], scoped["namespaces"]) == (False, ["shop"]), "scoping it leaves it off"
    assert admin.patch("/api/v1/alerts/rules/new_consumer", {"enabled": True}, format="json").json()["enabled"]


def test_admins_declare_a_job_s_deadline_and_bad_input_is_a_400_naming_the_field() -> None:
    admin, reader = as_token("admin"), as_token("read")
    daily = {"namespace": "shop", "name": "ingest_orders", "expectedBy": "06:30", "graceMinutes": 15}
    assert reader.post("/api/v1/alerts/deadlines", daily, format="json").status_code == 403
    created = admin.post("/api/v1/alerts/deadlines", daily, format="json")
    assert created.status_code == 201, created.content
    assert {k: created.json()[k] for k in ("expectedBy", "everyMinutes", "graceMinutes")} == {
        "expectedBy": "06:30",
        "everyMinutes": None,
        "graceMinutes": 15,
    }
    replaced = admin.post(
        "/api/v1/alerts/deadlines", {"namespace": "shop", "name": "ingest_orders", "everyMinutes": 60}, format="json"
    )
    assert replaced.json()["id"] == created.json()["id"] and replaced.json()["expectedBy"] is None, "one per job"
    for body, field in [
        ({**daily, "expectedBy": "25:00"}, "expectedBy"),
        ({**daily, "everyMinutes": 60}, "expectedBy"),
        ({"namespace": "shop", "name": "x"}, "expectedBy"),
        ({**daily, "graceMinutes": -1}, "graceMinutes"),
        ({**daily, "graceMinutes": 24 * 60}, "graceMinutes"),  # a daily deadline's grace ends before the next
        ({"name": "x", "everyMinutes": 5}, "namespace"),
    ]:
        bad = admin.post("/api/v1/alerts/deadlines", body, format="json")
        assert bad.status_code == 400 and bad.json()["path"] == field, (body, bad.content)
    listed = reader.get("/api/v1/alerts/deadlines").json()
    assert listed["count"] == 1 and listed["results"][0]["everyMinutes"] == 60
    assert admin.delete(f"/api/v1/alerts/deadlines/{created.json()['id']}").status_code == 204
    assert admin.delete(f"/api/v1/alerts/deadlines/{created.json()['id']}").status_code == 404


def test_each_user_manages_their_own_subscriptions() -> None:
    alice, bob = as_user("alice"), as_user("bob")
    created = alice.post(
        "/api/v1/alerts/subscriptions", {"targetType": "dataset", "namespace": "ns", "name": "d"}, format="json"
    )
    assert created.status_code == 201 and created.json()["subscriber"] == "user:alice"
    missing_name = alice.post("/api/v1/alerts/subscriptions", {"targetType": "job", "namespace": "ns"}, format="json")
    assert missing_name.status_code == 400 and missing_name.json()["path"] == "name"
    bad_type = alice.post("/api/v1/alerts/subscriptions", {"targetType": "table", "namespace": "ns"}, format="json")
    assert bad_type.status_code == 400 and bad_type.json()["path"] == "targetType"
    assert bob.get("/api/v1/alerts/subscriptions").json()["count"] == 0
    assert bob.delete(f"/api/v1/alerts/subscriptions/{created.json()['id']}").status_code == 404
    assert as_token("read").get("/api/v1/alerts/subscriptions").status_code == 403
    assert alice.delete(f"/api/v1/alerts/subscriptions/{created.json()['id']}").status_code == 204
    assert not Subscription.objects.exists()


def test_a_subscriber_hears_of_an_incident_touching_their_namespace(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    carol = as_user("carol")
    carol.post("/api/v1/alerts/subscriptions", {"targetType": "namespace", "namespace": "shop"}, format="json")
    hooks = routed("user:carol")
    accept_and_apply(*run("validate_orders", fail=True, at=T0))
    message = Delivery.objects.get(destination=hooks["user:carol"]).message
    assert message["sections"][0] == ["Yours (user:carol)", ["job:shop:validate_orders", "job:shop:revenue"]]


def test_incidents_are_listed_filtered_acknowledged_and_resolved(graph) -> None:  # type: ignore[no-untyped-def]
    accept_and_apply(*history())
    routed("team:data-quality", "team:finance-analytics")
    accept_and_apply(*run("validate_orders", fail=True, at=T0))
    accept_and_apply(*run("ingest_orders", fail=True, at=T0 + timedelta(minutes=1)))
    reader = as_token("read")
    listed = reader.get("/api/v1/incidents", {"state": "open", "kind": "run_failed"}).json()
    assert listed["count"] == 2
    finance = reader.get("/api/v1/incidents", {"team": "team:finance-analytics"}).json()["results"]
    assert [i["rootId"] for i in finance] == ["job:shop:ingest_orders", "job:shop:validate_orders"]
    assert reader.get("/api/v1/incidents", {"team": "team:ingest"}).json()["count"] == 1
    bad = reader.get("/api/v1/incidents", {"state": "burning"})
    assert bad.status_code == 400 and bad.json()["path"] == "state"

    incident = Incident.objects.get(root="job:shop:validate_orders")
    detail = reader.get(f"/api/v1/incidents/{incident.pk}").json()
    assert detail["blastRadius"]["counts"]["owners"] == 2
    assert [e["kind"] for e in detail["timeline"]] == ["opened", "notified"]
    assert {d["destination"] for d in detail["deliveries"]} == {"hook team:data-quality", "hook team:finance-analytics"}
    assert {d["state"] for d in detail["deliveries"]} == {"pending"}
    assert reader.post(f"/api/v1/incidents/{incident.pk}/acknowledge").status_code == 403
    dana = as_user("dana")
    acked = dana.post(f"/api/v1/incidents/{incident.pk}/acknowledge")
    assert acked.status_code == 200 and acked.json()["state"] == "acknowledged"
    assert acked.json()["acknowledgedBy"] == "dana"
    again = dana.post(f"/api/v1/incidents/{incident.pk}/acknowledge")
    assert again.status_code == 400 and again.json()["path"] == "state"
    resolved = as_token("admin").post(f"/api/v1/incidents/{incident.pk}/resolve")
    assert resolved.status_code == 200 and resolved.json()["state"] == "resolved"
    assert resolved.json()["timeline"][-1]["kind"] == "notified"
    assert dana.get("/api/v1/incidents/99999").status_code == 404
