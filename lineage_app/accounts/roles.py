"""Roles: viewers read, editors manage ownership, admins manage keys, tokens and users.

A role is a Django group (`viewer`, `editor`, `admin`, created by a data migration); superusers
are admins. Each role includes the ones below it. A read-scope API token counts as a viewer,
an admin-scope one as an admin.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group

from lineage_app.accounts.models import ApiToken

VIEWER, EDITOR, ADMIN = "viewer", "editor", "admin"
ROLES = (VIEWER, EDITOR, ADMIN)  # lowest first; each includes those before it
STAFF_ROLES = (EDITOR, ADMIN)  # roles that work in the Django admin, so need staff status


def roles_of(user: Any, token: Any = None) -> list[str]:
    """Every role `user` (or the API `token` it authenticated with) holds, lowest first."""
    if isinstance(token, ApiToken):
        if token.scope == ApiToken.Scope.ADMIN:
            return list(ROLES)
        return [VIEWER] if token.scope == ApiToken.Scope.READ else []
    if user is None or not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", True):
        return []
    if getattr(user, "is_superuser", False):
        return list(ROLES)
    groups = set(user.groups.values_list("name", flat=True)) if hasattr(user, "groups") else set()
    top = max((ROLES.index(role) for role in groups if role in ROLES), default=0)  # logged in: a viewer
    return list(ROLES[: top + 1])


def can_read(user: Any, token: Any = None) -> bool:
    return VIEWER in roles_of(user, token)


def can_edit_ownership(user: Any, token: Any = None) -> bool:
    return EDITOR in roles_of(user, token)


def can_administer(user: Any, token: Any = None) -> bool:
    """Keys, tokens and users: admins only."""
    return ADMIN in roles_of(user, token)


def role_grant(*, user: Any, role: str) -> None:
    """Add `user` to `role`'s group; editors and admins also get staff status so the admin opens."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}: expected one of {', '.join(ROLES)}")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    if role in STAFF_ROLES and not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
