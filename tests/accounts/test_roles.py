"""Roles: viewers read, editors manage ownership, admins manage keys, tokens and users — in the API and the admin."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from rest_framework.test import APIClient

from lineage_app.accounts.roles import role_grant, roles_of
from lineage_app.ownership.models import Owner, OwnershipAssignment

pytestmark = pytest.mark.django_db

ASSIGNMENT = {"owner": "warehouse", "targetType": "namespace", "namespace": "db", "role": "owner"}


def user_with(role: str | None, *, staff: bool = True) -> User:
    user = User.objects.create_user(f"u-{role}", password="pw", is_staff=staff)
    if role == "superuser":
        user.is_superuser = True
        user.save()
    elif role:
        role_grant(user=user, role=role)
    return user


def api_as(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def admin_as(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_role_groups_exist_after_migrating() -> None:
    assert set(Group.objects.values_list("name", flat=True)) >= {"viewer", "editor", "admin"}


def test_each_role_includes_the_ones_below() -> None:
    assert roles_of(user_with(None, staff=False)) == ["viewer"]  # any logged-in user reads
    assert roles_of(user_with("editor")) == ["viewer", "editor"]
    assert roles_of(user_with("admin")) == ["viewer", "editor", "admin"]
    assert roles_of(user_with("superuser")) == ["viewer", "editor", "admin"]


def test_me_tells_the_ui_what_the_caller_may_do(read_client: APIClient, ingest_client: APIClient) -> None:
    assert api_as(user_with("viewer")).get("/api/v1/me").json() == {
        "username": "u-viewer",
        "roles": ["viewer"],
        "canEditOwnership": False,
    }
    assert api_as(user_with("editor")).get("/api/v1/me").json()["canEditOwnership"] is True
    assert read_client.get("/api/v1/me").json() == {
        "username": "token:test read",
        "roles": ["viewer"],
        "canEditOwnership": False,
    }
    assert APIClient().get("/api/v1/me").status_code in (401, 403)


def test_me_refuses_an_ingest_token_which_may_only_post_events(ingest_client: APIClient) -> None:
    answer = ingest_client.get("/api/v1/me")
    assert answer.status_code == 403
    assert answer.json()["error"] == "permission_denied"


def test_only_editors_may_change_ownership_through_the_api(graph, read_client: APIClient) -> None:  # type: ignore[no-untyped-def]
    assert APIClient().post("/api/v1/ownership", ASSIGNMENT, format="json").status_code in (401, 403)
    assert read_client.post("/api/v1/ownership", ASSIGNMENT, format="json").status_code == 403
    viewer = api_as(user_with("viewer"))
    assert viewer.post("/api/v1/ownership", ASSIGNMENT, format="json").status_code == 403
    assert viewer.get("/api/v1/ownership").status_code == 200
    assert viewer.get("/api/v1/owners").status_code == 200
    editor = api_as(user_with("editor"))
    created = editor.post("/api/v1/ownership", ASSIGNMENT, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["source"] == "manual"
    assert editor.post("/api/v1/ownership", ASSIGNMENT, format="json").status_code == 200  # already there
    assert viewer.delete("/api/v1/ownership", ASSIGNMENT, format="json").status_code == 403
    assert read_client.delete("/api/v1/ownership", ASSIGNMENT, format="json").status_code == 403
    assert editor.delete("/api/v1/ownership", ASSIGNMENT, format="json").status_code == 204
    assert editor.delete("/api/v1/ownership", ASSIGNMENT, format="json").status_code == 404
    bad = editor.post("/api/v1/ownership", {**ASSIGNMENT, "name": "x"}, format="json")
    assert bad.status_code == 400 and bad.json()["path"] == "name"


OWNERSHIP_PAGES = ("/admin/catalog/owner/", "/admin/catalog/ownershipassignment/")
EDIT_PAGES = (
    "/admin/catalog/owner/add/",
    "/admin/catalog/ownershipassignment/add/",
    "/admin/catalog/ownershipassignment/import-csv/",
)
ADMIN_ONLY_PAGES = (
    "/admin/accounts/apitoken/",
    "/admin/accounts/apitoken/add/",
    "/admin/auth/user/",
    "/admin/auth/group/",
    "/admin/signatures/producerkey/",
    "/admin/signatures/producerkey/add/",
)


def test_a_viewer_may_look_at_ownership_in_the_admin_but_not_change_it() -> None:
    client = admin_as(user_with("viewer"))
    for page in OWNERSHIP_PAGES:
        assert client.get(page).status_code == 200, page
    for page in EDIT_PAGES + ADMIN_ONLY_PAGES:
        assert client.get(page).status_code == 403, page
    owner = Owner.objects.create(name="crm")
    assert client.post(f"/admin/catalog/owner/{owner.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Owner.objects.filter(pk=owner.pk).exists()


def test_an_editor_manages_ownership_in_the_admin_but_not_keys_tokens_or_users(graph) -> None:  # type: ignore[no-untyped-def]
    client = admin_as(user_with("editor"))
    for page in OWNERSHIP_PAGES + EDIT_PAGES:
        assert client.get(page).status_code == 200, page
    for page in ADMIN_ONLY_PAGES:
        assert client.get(page).status_code == 403, page
    owner = Owner.objects.create(name="crm")
    response = client.post(
        "/admin/catalog/ownershipassignment/add/",
        {"owner": owner.pk, "target_type": "dataset", "namespace": "db", "name": "orders", "role": "steward"},
    )
    assert response.status_code == 302, response.content
    assert OwnershipAssignment.objects.get().source == "manual"
    refused = client.post(
        "/admin/catalog/ownershipassignment/add/",
        {"owner": owner.pk, "target_type": "dataset", "namespace": "db", "name": "", "role": "steward"},
    )
    assert refused.status_code == 200 and b"is required for a dataset" in refused.content


def test_event_sourced_assignments_are_read_only_in_the_admin() -> None:
    event = OwnershipAssignment.objects.create(
        owner=Owner.objects.create(name="team:crm"),
        target_type="dataset",
        namespace="db",
        name="customers",
        role="MAINTAINER",
        source="event",
    )
    client = admin_as(user_with("editor"))
    page = client.get(f"/admin/catalog/ownershipassignment/{event.pk}/change/")
    assert page.status_code == 200 and b"Save" not in page.content.split(b"submit-row")[-1][:300]
    assert client.post(f"/admin/catalog/ownershipassignment/{event.pk}/delete/", {"post": "yes"}).status_code == 403


@pytest.mark.parametrize("role", ["admin", "superuser"])
def test_admins_manage_keys_tokens_and_users(role: str) -> None:
    client = admin_as(user_with(role))
    for page in OWNERSHIP_PAGES + EDIT_PAGES + ADMIN_ONLY_PAGES:
        assert client.get(page).status_code == 200, page


def test_a_logged_in_non_staff_user_is_sent_to_the_admin_login() -> None:
    response = admin_as(user_with("viewer", staff=False)).get("/admin/catalog/owner/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
