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
from content_service.errors import Conflict
from content_service.identity import users
from content_service.identity.roles import ADMINISTRATOR, EVERY_WORKSPACE, RoleGrant

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
    grants = {key: grants_of(listed) for key, listed in body.grants.items()}
    return users.create_user(
        settings,
        body.email,
        _legacy_role(grants),
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
    grants = grants_of(body.grants)
    keeps_administrator = any(grant.role == ADMINISTRATOR for grant in grants)
    if user_id == admin.id and workspace_key == EVERY_WORKSPACE and not keeps_administrator:
        raise Conflict("you cannot take your own administrator role")
    return users.set_grants(user_id, workspace_key, grants, by=Actor.of(admin)).to_json()


@router.post(
    "/{user_id}/deactivate",
    summary="Deactivate a user: sign-in refused, sessions ended",
    responses=errors(404, 409),
)
def post_deactivate(user_id: str, admin: AdminDep) -> dict[str, object]:
    if user_id == admin.id:
        raise Conflict("you cannot deactivate yourself")
    return users.deactivate_user(user_id, by=Actor.of(admin)).to_json()


def _legacy_role(grants: dict[str, tuple[RoleGrant, ...]]) -> str:
    """The `role` a user record still carries: admin for an administrator of every workspace."""
    held = grants.get(EVERY_WORKSPACE, ())
    return "admin" if any(grant.role == ADMINISTRATOR for grant in held) else "editor"
