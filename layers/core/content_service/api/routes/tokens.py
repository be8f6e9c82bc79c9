"""Token management over HTTP for a signed-in admin; the same operations as the CLI."""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field

from content_service.api.auth import AdminDep
from content_service.api.error_handlers import errors
from content_service.api.routes.role_bodies import GrantBody
from content_service.audit.records import Actor
from content_service.identity.principal import ALL_TYPES
from content_service.identity.tokens import (
    KEEP,
    TokenSpec,
    issue_token,
    list_tokens,
    revoke_token,
    update_token,
)
from content_service.settings import MAX_RATE_LIMIT

router = APIRouter(prefix="/api/v1/tokens", tags=["tokens"], responses=errors(401, 403))


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    workspaceId: str = Field(min_length=1, max_length=100)
    access: str = Field(pattern="^(read|full)$")
    contentTypes: list[str] = Field(default_factory=lambda: [ALL_TYPES], max_length=200)
    scopes: list[str] | None = Field(default=None, max_length=10)
    audiences: list[str] = Field(default_factory=list, max_length=50)
    rateLimit: int | None = Field(
        default=None,
        ge=0,
        le=MAX_RATE_LIMIT,
        description="requests per second; null: the service's default (CONTENT_RATE_LIMIT); "
        "0: no limit",
    )
    persistedOnly: bool = Field(
        default=False, description="run only GraphQL documents a full token registered"
    )
    role: GrantBody | None = Field(
        default=None,
        description="a role the token acts as, within its own grants (never administrator)",
    )


class TokenUpdate(BaseModel):
    """Every key is optional; one left out keeps its value. `rateLimit: null` returns the token
    to the service's default."""

    model_config = ConfigDict(extra="forbid")

    contentTypes: list[str] | None = Field(default=None, max_length=200)
    audiences: list[str] | None = Field(default=None, max_length=50)
    rateLimit: int | None = Field(default=None, ge=0, le=MAX_RATE_LIMIT)
    persistedOnly: bool | None = None


@router.get("")
def get_tokens(_: AdminDep) -> dict[str, object]:
    return {"items": [t.to_json() for t in list_tokens()]}


@router.post("", status_code=201)
def post_token(body: TokenCreate, admin: AdminDep) -> dict[str, object]:
    return issue_token(
        TokenSpec(
            name=body.name,
            workspace_id=body.workspaceId,
            access=body.access,
            content_types=tuple(body.contentTypes),
            scopes=tuple(body.scopes) if body.scopes is not None else None,
            audiences=tuple(body.audiences),
            rate_limit=body.rateLimit,
            persisted_only=body.persistedOnly,
            role=None if body.role is None else body.role.grant(),
        ),
        by=Actor.of(admin),
    )


@router.patch("/{token_id}")
def patch_token(token_id: str, body: TokenUpdate, admin: AdminDep) -> dict[str, object]:
    return update_token(
        token_id,
        content_types=body.contentTypes,
        audiences=body.audiences,
        rate_limit=body.rateLimit if "rateLimit" in body.model_fields_set else KEEP,
        persisted_only=body.persistedOnly,
        by=Actor.of(admin),
    ).to_json()


@router.delete("/{token_id}", status_code=204)
def delete_token(token_id: str, admin: AdminDep) -> Response:
    revoke_token(token_id, by=Actor.of(admin))
    return Response(status_code=204)
