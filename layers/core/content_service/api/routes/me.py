"""`GET /api/v1/me`: who the caller is and what it may do in the request's workspace
(docs/api.md, "Health and identity"), so the pages can hide what the caller cannot do."""

from __future__ import annotations

from fastapi import APIRouter, Request

from content_service.api.auth import CallerDep, requested_workspace_id
from content_service.api.error_handlers import errors
from content_service.identity.permissions import permissions_for
from content_service.identity.principal import TokenCaller

router = APIRouter(prefix="/api/v1", tags=["identity"], responses=errors(401))


@router.get("/me")
def me(request: Request, caller: CallerDep) -> dict[str, object]:
    # A token is described whatever workspace the request names; its own is where it acts.
    workspace_id = (
        caller.workspace_id
        if isinstance(caller, TokenCaller)
        else requested_workspace_id(request, caller)
    )
    permissions = permissions_for(caller, workspace_id)
    return {**caller.describe(), "permissions": permissions.to_json()}
