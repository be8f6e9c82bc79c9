"""`/api/v1/content/{type}/{id}/versions` and `/schedules`: history and scheduled publishing.

Like the entry routes, each turns its path, query and body into a request object and calls one
content service function; GraphQL's `restoreXVersion`, `scheduleX` and `cancelXSchedule` call
the same ones.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Depends, Path, Query, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from content_service.api.auth import CallerDep, WorkspaceIdDep
from content_service.api.error_handlers import errors
from content_service.api.routes.content import (
    EntryActionDep,
    EntryOut,
    EntryUser,
    entries_router,
)
from content_service.content import service
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    ScheduleAction,
    ScheduleRequest,
    VersionRequest,
    VersionsRequest,
)

router = entries_router()

Number = Annotated[int, Path(ge=1, le=10**9, description="a published version's number")]


def version_request(
    content_type: str,
    entry_id: str,
    number: Number,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
) -> VersionRequest:
    """The published version a route's path names, read by the caller (a dependency of the
    routes)."""
    return VersionRequest(caller, workspace_id, content_type, entry_id, number)


VersionRequestDep = Annotated[VersionRequest, Depends(version_request)]


class VersionOut(BaseModel):
    """One published version: its number (from 1), when and by whom it was published."""

    version: int
    publishedAt: str | None
    publishedBy: EntryUser | None
    title: str


class VersionList(BaseModel):
    """The kept published versions (the last 100), newest first."""

    items: list[VersionOut]
    total: int
    page: int
    pageSize: int


class VersionDetailOut(VersionOut):
    """One published version with the entry exactly as it was published."""

    entry: EntryOut


class ScheduleBody(BaseModel):
    """Publish or unpublish the entry at `at` (ISO 8601 with a timezone, in the next year)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: Literal["publish", "unpublish"]
    at: str = Field(max_length=64)


class ScheduleOut(BaseModel):
    """A schedule: `scheduled` until it runs (`done`), cannot run (`failed`, with the reason)
    or is cancelled. `createdBy` is who it runs as: `{kind: "user", id, email}` or
    `{kind: "token", id, name}`."""

    id: str
    entryId: str
    action: Literal["publish", "unpublish"]
    at: str
    status: Literal["scheduled", "done", "failed", "cancelled"]
    reason: str | None
    createdAt: str
    createdBy: dict[str, str]
    ranAt: str | None


class ScheduleList(BaseModel):
    items: list[ScheduleOut]


@router.get(
    "/{content_type}/{entry_id}/versions",
    response_model=VersionList,
    responses=errors(400, 401, 403, 404),
)
def list_versions(
    content_type: str,
    entry_id: str,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=MAX_PAGE_SIZE)] = DEFAULT_PAGE_SIZE,
) -> JSONResponse:
    request = VersionsRequest.parse(
        caller, workspace_id, content_type, entry_id, page=page, page_size=page_size
    )
    return JSONResponse(service.list_versions(request).to_json())


@router.get(
    "/{content_type}/{entry_id}/versions/{number}",
    response_model=VersionDetailOut,
    responses=errors(400, 401, 403, 404),
)
def get_version(request: VersionRequestDep) -> JSONResponse:
    return JSONResponse(service.get_version(request).to_json())


@router.post(
    "/{content_type}/{entry_id}/versions/{number}/restore",
    response_model=EntryOut,
    responses=errors(401, 403, 404, 409, 422),
)
def restore_version(request: VersionRequestDep) -> JSONResponse:
    """Copies the published version into the draft (the entry turns `changed`, or stays a
    `draft` while unpublished); links to entries gone since are left out."""
    return JSONResponse(service.restore_version(request).to_json())


@router.post(
    "/{content_type}/{entry_id}/schedules",
    status_code=201,
    response_model=ScheduleOut,
    responses=errors(400, 401, 403, 404, 409, 422),
)
def create_schedule(
    content_type: str,
    entry_id: str,
    body: ScheduleBody,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
) -> JSONResponse:
    request = ScheduleRequest(caller, workspace_id, content_type, entry_id, body.action, body.at)
    return JSONResponse(service.create_schedule(request).to_json(), status_code=201)


@router.get(
    "/{content_type}/{entry_id}/schedules",
    response_model=ScheduleList,
    responses=errors(401, 403, 404),
)
def list_schedules(action: EntryActionDep) -> JSONResponse:
    return JSONResponse({"items": [s.to_json() for s in service.list_schedules(action)]})


@router.delete(
    "/{content_type}/{entry_id}/schedules/{schedule_id}",
    status_code=204,
    response_class=Response,
    responses=errors(401, 403, 404, 409),
)
def cancel_schedule(
    content_type: str,
    entry_id: str,
    schedule_id: str,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
) -> Response:
    service.cancel_schedule(
        ScheduleAction(caller, workspace_id, content_type, entry_id, schedule_id)
    )
    return Response(status_code=204)
