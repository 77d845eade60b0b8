"""API tokens: issued once on stdout, stored only as a hash, refused once revoked, limited to their scope."""

from __future__ import annotations

import hashlib
import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from lineage_app.accounts import token_cache
from lineage_app.accounts.models import ApiToken
from lineage_app.accounts.services import token_authenticate, token_create, tokens_revoke
from lineage_app.ingest.models import LineageEvent
from tests.events import new_run_id, run_event

pytestmark = pytest.mark.django_db

TOKEN_SHAPE = re.compile(r"trb_[0-9a-f]{12}_[A-Za-z0-9_-]{43}")


def create_token_command(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("create_token", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def ingest(token: str) -> object:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    event = run_event("START", run_id=new_run_id())
    return client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")


def test_create_token_prints_the_token_alone_on_stdout() -> None:
    out, err = create_token_command("--scope", "ingest", "--name", "spark prod")
    assert TOKEN_SHAPE.fullmatch(out.strip()), out
    assert out.strip().count("\n") == 0
    assert err == ""
    token = ApiToken.objects.get()
    assert (token.name, token.scope) == ("spark prod", "ingest")
    assert token_authenticate(plaintext=out.strip()) == token


def test_create_token_without_a_name_names_the_token_after_its_scope() -> None:
    out, _ = create_token_command("--scope", "read")
    assert ApiToken.objects.get().name == "read token"
    assert token_authenticate(plaintext=out.strip()).scope == "read"


def test_create_token_refuses_an_unknown_scope_and_creates_nothing() -> None:
    with pytest.raises(CommandError):
        create_token_command("--scope", "root")
    assert ApiToken.objects.count() == 0


def test_a_token_issued_by_the_command_can_ingest() -> None:
    out, _ = create_token_command("--scope", "ingest")
    assert ingest(out.strip()).status_code == 201


def test_only_a_hash_of_the_secret_is_stored() -> None:
    token, plaintext = token_create(name="t", scope="ingest")
    _, prefix, secret = plaintext.split("_", 2)
    row = ApiToken.objects.filter(pk=token.pk).values().get()
    assert row["prefix"] == prefix
    assert row["digest"] == hashlib.sha256(secret.encode()).hexdigest()
    assert not any(secret in str(value) for value in row.values())
    assert plaintext not in str(ApiToken.objects.get())


def test_two_tokens_never_share_a_secret_or_a_prefix() -> None:
    plaintexts = {token_create(name=f"t{i}", scope="ingest")[1] for i in range(20)}
    assert len(plaintexts) == 20
    assert len({p.split("_")[1] for p in plaintexts}) == 20


def test_a_revoked_token_is_refused_with_401_and_stores_nothing() -> None:
    token, plaintext = token_create(name="t", scope="ingest")
    assert ingest(plaintext).status_code == 201
    assert tokens_revoke(tokens=ApiToken.objects.filter(pk=token.pk)) == 1
    response = ingest(plaintext)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response.json()["error"] == "authentication_failed"
    assert LineageEvent.objects.count() == 1
    assert token_authenticate(plaintext=plaintext) is None


def test_a_read_scope_token_cannot_ingest_and_gets_403() -> None:
    _, plaintext = token_create(name="dashboard", scope="read")
    response = ingest(plaintext)
    assert response.status_code == 403
    assert response.json()["error"] == "permission_denied"
    assert "ingest" in response.json()["message"]
    assert LineageEvent.objects.count() == 0


def test_a_token_with_a_wrong_secret_or_a_wrong_mark_is_not_authenticated() -> None:
    _, plaintext = token_create(name="t", scope="ingest")
    mark, prefix, secret = plaintext.split("_", 2)
    for forged in (f"{mark}_{prefix}_{secret[:-1]}", f"xyz_{prefix}_{secret}", f"{mark}_{prefix}_", prefix, ""):
        assert token_authenticate(plaintext=forged) is None, forged


def test_using_a_token_records_when_it_was_last_used() -> None:
    token, plaintext = token_create(name="t", scope="ingest")
    assert token.last_used_at is None
    ingest(plaintext)
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_token_revoked_or_deleted_through_the_model_is_refused_at_once() -> None:
    token, plaintext = token_create(name="t", scope="ingest")
    other, other_plaintext = token_create(name="u", scope="ingest")
    assert ingest(plaintext).status_code == 201
    assert ingest(other_plaintext).status_code == 201
    token.revoked_at = timezone.now()
    token.save()  # as the admin's change form does
    other.delete()
    assert ingest(plaintext).status_code == 401
    assert ingest(other_plaintext).status_code == 401


def test_a_verified_token_is_answered_without_a_query(django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    token, plaintext = token_create(name="t", scope="ingest")
    with django_assert_num_queries(2):  # the lookup, and the first last-used write
        assert token_authenticate(plaintext=plaintext) == token
    with django_assert_num_queries(0):
        assert token_authenticate(plaintext=plaintext) == token
    forged = plaintext[:-1] + ("A" if plaintext[-1] != "A" else "B")
    with django_assert_num_queries(1):  # a wrong secret is never answered from the cache
        assert token_authenticate(plaintext=forged) is None


@override_settings(API_TOKEN_CACHE_SECONDS=1)
def test_a_revocation_by_another_process_takes_effect_within_the_cache_lifetime(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    now = [1000.0]
    monkeypatch.setattr(token_cache, "clock", lambda: now[0])
    token, plaintext = token_create(name="t", scope="ingest")
    assert ingest(plaintext).status_code == 201
    # Another process revoking it: the row changes, this process's cache hears nothing.
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    assert ingest(plaintext).status_code == 201
    now[0] += 0.9
    assert ingest(plaintext).status_code == 201
    now[0] += 0.2
    assert ingest(plaintext).status_code == 401
