"""`GET /api/v1/me`: who the caller is (docs/api.md, "Health and identity")."""

from __future__ import annotations

from fastapi import APIRouter

from content_service.api.auth import CallerDep
from content_service.api.error_handlers import errors

router = APIRouter(prefix="/api/v1", tags=["identity"], responses=errors(401))


@router.get("/me")
def me(caller: CallerDep) -> dict[str, object]:
    return caller.describe()
