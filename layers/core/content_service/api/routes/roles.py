"""`/api/v1/roles`: the built-in and custom roles, for signed-in administrators only.

Custom roles are service-wide, like users; `identity.role_store` stores them and writes each
change's audit record. Built-in roles are listed first and cannot be changed or deleted (409).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from content_service.api.auth import AdminDep
from content_service.api.error_handlers import errors
from content_service.api.routes.role_bodies import RuleBody, rules_of
from content_service.audit.records import Actor
from content_service.errors import ValidationFailed
from content_service.identity import role_store

router = APIRouter(prefix="/api/v1/roles", tags=["roles"], responses=errors(401, 403))

RoleName = Annotated[StrictStr, Field(min_length=1, max_length=100)]
Description = Annotated[StrictStr, Field(max_length=1000)]
Rules = Annotated[list[RuleBody], Field(max_length=100)]


class RoleCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: RoleName
    description: Description = ""
    rules: Rules
    takesLocales: StrictBool = Field(
        default=False, description="granted for given locales, as the Translator is"
    )


class RolePatch(BaseModel):
    """Every key is optional; one left out keeps its value (null is refused)."""

    model_config = ConfigDict(extra="forbid")

    name: RoleName | None = None
    description: Description | None = None
    rules: Rules | None = None
    takesLocales: StrictBool | None = None


@router.get("", summary="List the roles, built-in first")
def get_roles(_: AdminDep) -> dict[str, object]:
    return {"items": [role.to_json() for role in role_store.list_roles()]}


@router.post("", status_code=201, summary="Create a custom role", responses=errors(422))
def post_role(body: RoleCreate, admin: AdminDep) -> dict[str, object]:
    return role_store.create_role(
        body.name,
        body.description,
        rules_of(body.rules),
        takes_locales=body.takesLocales,
        by=Actor.of(admin),
    ).to_json()


@router.patch("/{role_id}", summary="Change a custom role", responses=errors(404, 409, 422))
def patch_role(role_id: str, body: RolePatch, admin: AdminDep) -> dict[str, object]:
    nulls = sorted(name for name in body.model_fields_set if getattr(body, name) is None)
    if nulls:
        raise ValidationFailed(
            f"{', '.join(nulls)} cannot be null; leave a key out to keep it",
            details={"fields": nulls},
        )
    return role_store.update_role(
        role_id,
        name=body.name,
        description=body.description,
        rules=None if body.rules is None else rules_of(body.rules),
        takes_locales=body.takesLocales,
        by=Actor.of(admin),
    ).to_json()


@router.delete(
    "/{role_id}",
    status_code=204,
    summary="Delete a custom role no user or token holds",
    responses=errors(404, 409),
)
def delete_role(role_id: str, admin: AdminDep) -> Response:
    role_store.delete_role(role_id, by=Actor.of(admin))
    return Response(status_code=204)
