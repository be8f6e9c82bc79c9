"""`/api/v1/sync`: the Sync API (docs/api.md, "Sync").

The route turns its query into a `SyncRequest` and renders the sync service's page. Its answer
is never kept by a cache (`Cache-Control: private, no-store`): a sync token's next answer
depends on what was written since, and a client that got a cached delta would skip changes.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel

from content_service.api.auth import CallerDep, WorkspaceIdDep
from content_service.api.error_handlers import errors
from content_service.api.http_cache import PRIVATE, render_json
from content_service.api.routes.content import Locale, Version
from content_service.api.routes.content_types import ContentRoute
from content_service.sync.service import SyncRequest, sync
from content_service.sync.tokens import MAX_TOKEN_LENGTH

router = APIRouter(prefix="/api/v1/sync", tags=["sync"], route_class=ContentRoute)


class SyncOut(BaseModel):
    """A page of a sync: `entries` (as `GET /content/{type}/{id}` answers them) and `assets`
    (as `GET /assets/{id}` does), the ids of those gone since (`deletedEntries`,
    `deletedAssets`: unpublished for a read token, trashed, purged, or no longer visible to
    the caller), then `nextPageUrl` (more of this sync) or `nextSyncUrl` (the next delta)."""

    entries: list[dict[str, Any]]
    assets: list[dict[str, Any]]
    deletedEntries: list[str]
    deletedAssets: list[str]
    nextPageUrl: str | None = None
    nextSyncUrl: str | None = None


Initial = Annotated[
    str | None, Query(max_length=8, description="`true`: start a sync with everything visible")
]
Token = Annotated[
    str | None,
    Query(
        max_length=MAX_TOKEN_LENGTH * 2,
        description="the token of the previous answer's `nextPageUrl` or `nextSyncUrl`",
    ),
]
TypeName = Annotated[
    str | None,
    Query(alias="type", max_length=64, description="initial sync only: one content type"),
]


@router.get("", response_model=SyncOut, responses=errors(400, 401, 403, 404, 410, 429))
def get_sync(
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    initial: Initial = None,
    token: Token = None,
    content_type: TypeName = None,
    locale: Locale = None,
    version: Version = None,
) -> Response:
    request = SyncRequest.parse(
        caller,
        workspace_id,
        initial=initial,
        token=token,
        content_type=content_type,
        locale=locale,
        version=version,
    )
    body = render_json(sync(request).to_json())
    return Response(
        body,
        media_type="application/json",
        headers={"Cache-Control": PRIVATE, "Vary": "Authorization"},
    )
