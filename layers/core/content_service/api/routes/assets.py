"""`/api/v1/assets`: uploads, assets and their workflow (docs/assets.md).

Each route turns its path, query and body into a call of the assets service
(`content_service.assets.service`), which maps it onto the entries of the built-in `asset`
type; no storage or S3 call happens here.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from content_service.api.auth import CallerDep, WorkspaceIdDep
from content_service.api.error_handlers import errors
from content_service.api.routes.content import (
    Filter,
    Force,
    LinkerList,
    LinksQuery,
    ListCursor,
    Page,
    PageSize,
    Sort,
    Version,
)
from content_service.api.routes.content_types import ContentRoute
from content_service.api.routes.content_workflow import Number
from content_service.assets import service
from content_service.assets.bodies import AssetFieldsBody, CompleteBody, ReplaceFileBody, UploadBody
from content_service.assets.uploads import start_upload
from content_service.clock import SystemClock
from content_service.content.requests import DEFAULT_PAGE_SIZE

router = APIRouter(prefix="/api/v1/assets", tags=["assets"], route_class=ContentRoute)

AssetId = Annotated[str, Path(max_length=64, description="the asset's id")]


class UploadOut(BaseModel):
    """A presigned POST: send `fields` then the file (`file`, last) as multipart/form-data to
    `url` before `expiresAt`; S3 takes exactly the announced type and size. An import from a
    URL answers `uploadId`, `fileName`, `contentType` and `size` instead."""

    uploadId: str
    url: str | None = None
    fields: dict[str, str] | None = None
    expiresAt: str | None = None
    maxBytes: int | None = None
    fileName: str | None = None
    contentType: str | None = None
    size: int | None = None


class AssetOut(BaseModel):
    """An asset: its file (`state` `ready`, or `failed` with `reason`), texts and workflow
    `status`. `url` is the published file's delivery path; `previewUrl` (full tokens and
    sign-ins) a presigned GET of the shown version's file, valid 15 minutes."""

    id: str
    fileName: str | None
    contentType: str | None
    size: int | None
    width: int | None
    height: int | None
    title: str | None
    altText: str | None
    description: str | None
    state: str | None
    reason: str | None = None
    status: str
    audiences: list[str]
    version: int
    createdAt: str
    updatedAt: str
    publishedAt: str | None
    url: str | None
    previewUrl: str | None = None


class AssetList(BaseModel):
    items: list[AssetOut]
    total: int
    page: int
    pageSize: int
    nextCursor: str | None = None


WRITE_ERRORS = errors(400, 401, 403, 404, 409, 413, 422)
ACTION_ERRORS = errors(401, 403, 404, 409)


@router.post("/uploads", status_code=201, response_model=UploadOut, responses=WRITE_ERRORS)
def create_upload(body: UploadBody, caller: CallerDep, workspace_id: WorkspaceIdDep) -> Any:
    return JSONResponse(start_upload(caller, workspace_id, body, SystemClock().now()), 201)


@router.post("", status_code=201, response_model=AssetOut, responses=WRITE_ERRORS)
def complete_upload(body: CompleteBody, caller: CallerDep, workspace_id: WorkspaceIdDep) -> Any:
    return JSONResponse(service.complete_upload(caller, workspace_id, body), 201)


@router.get("", response_model=AssetList, responses=errors(400, 401, 403, 429))
def list_assets(
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    page: Page = 1,
    page_size: PageSize = DEFAULT_PAGE_SIZE,
    sort: Sort = None,
    filter: Filter = None,
    cursor: ListCursor = None,
    version: Version = None,
) -> Any:
    """Filters and sorts take the list grammar of entries, on `title`, `fileName`,
    `contentType` and `state` (and the system fields)."""
    return JSONResponse(
        service.list_assets(
            caller,
            workspace_id,
            page=page,
            page_size=page_size,
            sort=sort,
            filter=filter,
            cursor=cursor,
            version=version,
        )
    )


@router.get("/{asset_id}", response_model=AssetOut, responses=errors(400, 401, 403, 404))
def get_asset(
    asset_id: AssetId, caller: CallerDep, workspace_id: WorkspaceIdDep, version: Version = None
) -> Any:
    return JSONResponse(service.get_asset(caller, workspace_id, asset_id, version))


@router.patch("/{asset_id}", response_model=AssetOut, responses=WRITE_ERRORS)
def update_asset(
    asset_id: AssetId, body: AssetFieldsBody, caller: CallerDep, workspace_id: WorkspaceIdDep
) -> Any:
    return JSONResponse(service.update_asset(caller, workspace_id, asset_id, body))


@router.post("/{asset_id}/file", response_model=AssetOut, responses=WRITE_ERRORS)
def replace_file(
    asset_id: AssetId, body: ReplaceFileBody, caller: CallerDep, workspace_id: WorkspaceIdDep
) -> Any:
    return JSONResponse(service.replace_file(caller, workspace_id, asset_id, body))


@router.delete("/{asset_id}", status_code=204, response_class=Response, responses=ACTION_ERRORS)
def trash_asset(
    asset_id: AssetId, caller: CallerDep, workspace_id: WorkspaceIdDep, force: Force = False
) -> Response:
    """Moves the asset to the trash (restorable); its files stop being served. 409 while
    published entries link it (`details: {count, linkedFrom}`), unless `force=true`."""
    service.trash_asset(caller, workspace_id, asset_id, force=force)
    return Response(status_code=204)


@router.get("/{asset_id}/links", response_model=LinkerList, responses=errors(400, 401, 403, 404))
def asset_links(
    asset_id: AssetId, caller: CallerDep, workspace_id: WorkspaceIdDep, query: LinksQuery
) -> JSONResponse:
    """Where the asset is used: the entries whose version the caller reads link it."""
    return JSONResponse(service.asset_links(caller, workspace_id, asset_id, **query))


@router.post("/{asset_id}/publish", response_model=AssetOut, responses=ACTION_ERRORS)
def publish_asset(asset_id: AssetId, caller: CallerDep, workspace_id: WorkspaceIdDep) -> Any:
    """409 while the asset's file is not ready."""
    return JSONResponse(service.publish_asset(caller, workspace_id, asset_id))


@router.post("/{asset_id}/unpublish", response_model=AssetOut, responses=ACTION_ERRORS)
def unpublish_asset(asset_id: AssetId, caller: CallerDep, workspace_id: WorkspaceIdDep) -> Any:
    return JSONResponse(service.unpublish_asset(caller, workspace_id, asset_id))


@router.post("/{asset_id}/restore", response_model=AssetOut, responses=ACTION_ERRORS)
def restore_asset(asset_id: AssetId, caller: CallerDep, workspace_id: WorkspaceIdDep) -> Any:
    return JSONResponse(service.restore_asset(caller, workspace_id, asset_id))


@router.get("/{asset_id}/versions", responses=errors(400, 401, 403, 404))
def list_versions(
    asset_id: AssetId,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    page: Page = 1,
    page_size: PageSize = DEFAULT_PAGE_SIZE,
) -> Any:
    """The asset's published versions, newest first."""
    return JSONResponse(service.list_versions(caller, workspace_id, asset_id, page, page_size))


@router.get("/{asset_id}/versions/{number}", responses=errors(401, 403, 404))
def get_version(
    asset_id: AssetId, number: Number, caller: CallerDep, workspace_id: WorkspaceIdDep
) -> Any:
    """One published version, with the asset as it was published (`asset`)."""
    return JSONResponse(service.get_version(caller, workspace_id, asset_id, number))
