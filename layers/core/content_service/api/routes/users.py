"""`/api/v1/users`: users, their roles per workspace and their deactivation, for signed-in
administrators only.

Users are service-wide; their grants are keyed by workspace id, or `*` for every workspace.
`identity.users` validates the grants and writes each change's audit record. An administrator
cannot deactivate themselves or take their own administrator role (409), so the service always
keeps an administrator who can sign in.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from content_service.api.auth import AdminDep, SettingsDep
from content_service.api.error_handlers import errors
from content_service.api.routes.role_bodies import GrantBody, grants_of
from content_service.audit.records import Actor
from content_service.errors import NotFound, ValidationFailed
from content_service.identity import users
from content_service.identity.roles import EVERY_WORKSPACE
from content_service.identity.workspaces import get_workspace

router = APIRouter(prefix="/api/v1/users", tags=["users"], responses=errors(401, 403))

Grants = Annotated[list[GrantBody], Field(max_length=20)]
WorkspaceKey = Annotated[StrictStr, Field(min_length=1, max_length=100)]


class UserCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: Annotated[StrictStr, Field(min_length=3, max_length=320)]
    password: Annotated[StrictStr, Field(max_length=1000)]
    grants: Annotated[dict[WorkspaceKey, Grants], Field(max_length=200)] = Field(
        description="roles by workspace id, `*` for every workspace (administrator only there)"
    )


class GrantsReplace(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grants: Grants = Field(description="the user's roles in this workspace; [] takes them all")


@router.get("", summary="List the users")
def get_users(_: AdminDep) -> dict[str, object]:
    return {"items": [user.to_json() for user in users.list_users()]}


@router.post("", status_code=201, summary="Create a user with roles", responses=errors(409, 422))
def post_user(body: UserCreate, admin: AdminDep, settings: SettingsDep) -> dict[str, object]:
    unknown = sorted(key for key in body.grants if not _is_workspace_key(key))
    if unknown:
        raise ValidationFailed(f"no workspace {unknown[0]!r}", details={"workspaces": unknown})
    grants = {key: grants_of(listed) for key, listed in body.grants.items()}
    return users.create_user(
        settings,
        body.email,
        users.derived_role(grants),
        body.password,
        by=Actor.of(admin),
        grants=grants,
    ).to_json()


@router.put(
    "/{user_id}/grants/{workspace_key}",
    summary="Replace a user's roles in one workspace (`*`: every workspace)",
    responses=errors(404, 409, 422),
)
def put_grants(
    user_id: str, workspace_key: str, body: GrantsReplace, admin: AdminDep
) -> dict[str, object]:
    if not _is_workspace_key(workspace_key):
        raise NotFound(f"workspace {workspace_key!r} not found")
    grants = grants_of(body.grants)
    return users.set_grants(user_id, workspace_key, grants, by=Actor.of(admin)).to_json()


@router.post(
    "/{user_id}/deactivate",
    summary="Deactivate a user: sign-in refused, sessions ended",
    responses=errors(404, 409),
)
def post_deactivate(user_id: str, admin: AdminDep) -> dict[str, object]:
    return users.deactivate_user(user_id, by=Actor.of(admin)).to_json()


def _is_workspace_key(key: str) -> bool:
    """`*` or the id of a workspace: grants are keyed by id, never by slug."""
    if key == EVERY_WORKSPACE:
        return True
    try:
        get_workspace(key)
    except NotFound:
        return False
    return True
