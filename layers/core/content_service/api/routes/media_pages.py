"""The media library (`/media`) and an asset's page (`/media/{id}`), for signed-in users.

Both read through the assets service as the user, so they show what the API shows: drafts with
their preview URLs, the trash's state, versions and where an asset is used. Every change is
made by the page's script through the JSON API (`/api/v1/assets`), and uploads go from the
browser straight to the bucket through the presigned POST (docs/assets.md, "Pages").
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from content_service.api import pages
from content_service.api.auth import OptionalCallerDep
from content_service.assets import service
from content_service.content.schema import ASSET_TYPE
from content_service.errors import NotFound
from content_service.identity.permissions import permissions_for
from content_service.identity.principal import UserCaller
from content_service.identity.roles import MANAGE_ASSETS

router = APIRouter(include_in_schema=False)

SECTION = pages.Section("/media", "Back to the media library")
PAGE_SIZE = 48
MAX_SEARCH = 200
# The library's type filter: a family of media types, as the list filters `contentType`.
KINDS: dict[str, tuple[str, str]] = {
    "image": ("Images", "image/"),
    "video": ("Video", "video/"),
    "audio": ("Audio", "audio/"),
    "document": ("Documents", "application/"),
    "text": ("Text", "text/"),
}
_LINKERS_SHOWN = 20

Search = Annotated[str, Query(max_length=MAX_SEARCH)]
Kind = Annotated[str, Query(max_length=16)]


def _base(caller: UserCaller, ws: pages.PageWorkspace) -> dict[str, Any]:
    return {"caller": caller, "nav": "media", "ws": ws, "is_admin": caller.role == "admin"}


def _filter(search: str, kind: str) -> str | None:
    conditions: list[dict[str, Any]] = []
    if search:
        conditions.append({"field": "fileName", "op": "contains", "value": search})
    if kind in KINDS:
        conditions.append({"field": "contentType", "op": "startsWith", "value": KINDS[kind][1]})
    return json.dumps({"and": conditions}) if conditions else None


@router.get("/media", response_class=HTMLResponse)
def media_page(
    request: Request,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
    q: Search = "",
    kind: Kind = "",
) -> Response:
    page = SECTION.open(request, caller, workspace)
    if isinstance(page, Response):
        return page
    gate, ws = page
    search, kind = q.strip(), kind if kind in KINDS else ""
    listed = service.list_assets(
        gate, ws.id, page_size=PAGE_SIZE, sort="-createdAt", filter=_filter(search, kind)
    )
    return pages.render(
        request,
        "content/media.html",
        {
            **_base(gate, ws),
            "assets": listed["items"],
            "total": listed["total"],
            "search": search,
            "kind": kind,
            "kinds": KINDS,
            "can_upload": permissions_for(gate, ws.id).allows(MANAGE_ASSETS, ASSET_TYPE),
        },
    )


@router.get("/media/{asset_id}", response_class=HTMLResponse)
def asset_page(
    request: Request,
    asset_id: str,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
) -> Response:
    page = SECTION.open(request, caller, workspace)
    if isinstance(page, Response):
        return page
    gate, ws = page
    back = ws.link("/media")
    try:
        asset = service.get_asset(gate, ws.id, asset_id)
    except NotFound:
        return pages.not_found(request, gate, "asset", back, "Back to the media library")
    versions = service.list_versions(gate, ws.id, asset_id, page=1, page_size=20)
    used = service.asset_links(gate, ws.id, asset_id, page_size=_LINKERS_SHOWN)
    return pages.render(
        request,
        "content/media_asset.html",
        {
            **_base(gate, ws),
            "asset": asset,
            "versions": versions["items"],
            "used": used,
            "data": {"workspaceId": ws.id, "asset": asset},
        },
    )
