"""`/api/v1/content`: the REST content API (docs/api.md, "Entries").

Each route turns its path, query and body into a request object of the content service, calls
the one service function, and renders the result. No storage access happens here; GraphQL
resolvers call the very same functions. The three reads answer with an `ETag` and the caching
headers of `api.http_cache` (304 for a matching `If-None-Match`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from content_service.api.auth import CallerDep, WorkspaceIdDep
from content_service.api.builtin_types import USER_TYPES_ONLY
from content_service.api.error_handlers import errors
from content_service.api.http_cache import cached_answer, render_json
from content_service.api.routes.content_types import ContentRoute
from content_service.content import service
from content_service.content.lists import FILTER_OPS, MAX_CURSOR_LENGTH
from content_service.content.relations import LinkedFromRequest
from content_service.content.requests import (
    DEFAULT_PAGE_SIZE,
    MAX_LIST_DEPTH,
    MAX_PAGE,
    MAX_PAGE_SIZE,
    EntryAction,
    EntryWriteBody,
    GetRequest,
    ListRequest,
    RelationRequest,
)


def entries_router() -> APIRouter:
    """A router of `/api/v1/content` (entries of the user's own types): the entries' routes are
    split over this module and `content_workflow`."""
    return APIRouter(
        prefix="/api/v1/content",
        tags=["content"],
        route_class=ContentRoute,
        dependencies=USER_TYPES_ONLY,
    )


router = entries_router()


class EntryUser(BaseModel):
    """The signed-in user who wrote a version (null for a token, and in the published view)."""

    id: str
    email: str


class EntryOut(BaseModel):
    """An entry: its latest version (a full token's or a session's default) or its published
    one (`version=published`, and always for a read token). `status` is `changed` when a
    published entry has a newer draft; `version` is bumped by every write (send it back as
    `version` in a PATCH to be refused when someone saved first). `audiences` only for
    audience-gated types, `relations` only when expanded. `values` is absent from a write's
    answer to a token without `content:read`."""

    id: str
    contentType: str
    status: Literal["draft", "published", "changed"]
    locale: str
    localeGroupId: str
    createdAt: str
    updatedAt: str
    publishedAt: str | None
    version: int
    publishedVersion: int | None
    updatedBy: EntryUser | None
    audiences: list[str] | None = None
    values: dict[str, Any] = Field(default_factory=dict)
    relations: dict[str, list[EntryOut]] | None = None


class EntryList(BaseModel):
    """A page of entries. A list also answers `nextCursor`: pass it as `cursor` for the next
    page (null on the last page); the relations route pages by number only."""

    items: list[EntryOut]
    total: int
    page: int
    pageSize: int
    nextCursor: str | None = None


Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description="1-based page number")]
PageSize = Annotated[
    int, Query(alias="pageSize", ge=1, le=MAX_PAGE_SIZE, description="entries per page")
]
Sort = Annotated[
    str | None,
    Query(max_length=1000, description="comma list of fields, `-` prefix for descending"),
]
Filter = Annotated[
    str | None,
    Query(
        max_length=8192,
        description='JSON: {"and"|"or": [...]} or {"field", "op", "value"}; ops '
        + " ".join(FILTER_OPS)
        + "; a relation field takes entry ids (to-one: eq ne in nin isNull; to-many: contains "
        'containsAny containsAll isNull); "relation.field" filters by a linked entry\'s field '
        "(at most 100 matching targets)",
    ),
]
Fields = Annotated[
    str | None, Query(max_length=4000, description="comma list of value fields to return")
]
Locale = Annotated[str | None, Query(max_length=16, description="locale, default en")]
Expand = Annotated[
    str | None, Query(max_length=4000, description="comma list of relation fields to expand")
]
Version = Annotated[
    str | None,
    Query(
        max_length=16,
        description="`published`: the live versions (what a read token always gets); "
        "`latest` (a full token's or a session's default): the latest drafts too",
    ),
]
ListCursor = Annotated[
    str | None,
    Query(
        max_length=MAX_CURSOR_LENGTH,
        description="where the page starts: the previous page's `nextCursor` (instead of "
        f"`page`; page numbers reach the first {MAX_LIST_DEPTH:,} entries)",
    ),
]


READ_RESPONSES: dict[int | str, dict[str, Any]] = {
    **errors(400, 401, 403, 404, 429),
    304: {"description": "Not modified: the `If-None-Match` names this answer's `ETag`"},
}


@router.get("/{content_type}", response_model=EntryList, responses=READ_RESPONSES)
def list_content(
    http: Request,
    content_type: str,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    page: Page = 1,
    page_size: PageSize = DEFAULT_PAGE_SIZE,
    sort: Sort = None,
    filter: Filter = None,
    fields: Fields = None,
    locale: Locale = None,
    expand: Expand = None,
    cursor: ListCursor = None,
    version: Version = None,
) -> Response:
    request = ListRequest.parse(
        caller,
        workspace_id,
        content_type,
        page=page,
        page_size=page_size,
        sort=sort,
        filter=filter,
        fields=fields,
        locale=locale,
        expand=expand,
        cursor=cursor,
        version=version,
    )
    return cached_answer(http, caller, render_json(service.list_entries(request).to_json()))


@router.get("/{content_type}/{entry_id}", response_model=EntryOut, responses=READ_RESPONSES)
def get_content(
    http: Request,
    content_type: str,
    entry_id: str,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    fields: Fields = None,
    expand: Expand = None,
    version: Version = None,
) -> Response:
    request = GetRequest.parse(
        caller, workspace_id, content_type, entry_id, fields=fields, expand=expand, version=version
    )
    return cached_answer(http, caller, render_json(service.get_entry(request).to_json()))


@router.get(
    "/{content_type}/{entry_id}/relations/{field}",
    response_model=EntryList,
    responses=READ_RESPONSES,
)
def get_relations(
    http: Request,
    content_type: str,
    entry_id: str,
    field: str,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    page: Page = 1,
    page_size: PageSize = DEFAULT_PAGE_SIZE,
    fields: Fields = None,
    version: Version = None,
) -> Response:
    request = RelationRequest.parse(
        caller,
        workspace_id,
        content_type,
        entry_id,
        field,
        page=page,
        page_size=page_size,
        fields=fields,
        version=version,
    )
    return cached_answer(http, caller, render_json(service.list_related(request).to_json()))


class LinkerOut(BaseModel):
    """An entry linking the one asked about, through one of its relation fields."""

    id: str
    contentType: str
    field: str
    title: str
    status: Literal["draft", "published", "changed"]
    updatedAt: str


class LinkerList(BaseModel):
    """The entries linking an entry, by type, then field, newest first."""

    items: list[LinkerOut]
    total: int
    page: int
    pageSize: int


From = Annotated[
    str | None,
    Query(alias="from", max_length=64, description="only entries of this content type"),
]
LinkField = Annotated[
    str | None,
    Query(max_length=64, description="only links through this relation field"),
]


def links_query(
    from_type: From = None,
    field: LinkField = None,
    page: Page = 1,
    page_size: PageSize = DEFAULT_PAGE_SIZE,
    version: Version = None,
) -> dict[str, Any]:
    """The query of both "what links here" routes (an entry's and an asset's), as the keywords
    of `LinkedFromRequest.parse`."""
    return {
        "from_type": from_type,
        "field": field,
        "page": page,
        "page_size": page_size,
        "version": version,
    }


LinksQuery = Annotated[dict[str, Any], Depends(links_query)]


@router.get(
    "/{content_type}/{entry_id}/links",
    response_model=LinkerList,
    responses=READ_RESPONSES,
)
def get_links(
    http: Request,
    content_type: str,
    entry_id: str,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
    query: LinksQuery,
) -> Response:
    """What links here: the entries whose version the caller reads links this one."""
    request = LinkedFromRequest.parse(caller, workspace_id, content_type, entry_id, **query)
    return cached_answer(http, caller, render_json(service.linked_from(request).to_json()))


@router.post(
    "/{content_type}",
    status_code=201,
    response_model=EntryOut,
    responses=errors(400, 401, 403, 404, 409, 413, 422),
)
def create_content(
    content_type: str, body: EntryWriteBody, caller: CallerDep, workspace_id: WorkspaceIdDep
) -> JSONResponse:
    entry = service.create_entry(body.request(caller, workspace_id, content_type, None))
    return JSONResponse(entry.to_json(), status_code=201)


@router.patch(
    "/{content_type}/{entry_id}",
    response_model=EntryOut,
    responses=errors(400, 401, 403, 404, 409, 413, 422),
)
def update_content(
    content_type: str,
    entry_id: str,
    body: EntryWriteBody,
    caller: CallerDep,
    workspace_id: WorkspaceIdDep,
) -> JSONResponse:
    entry = service.update_entry(body.request(caller, workspace_id, content_type, entry_id))
    return JSONResponse(entry.to_json())


def entry_action(
    content_type: str, entry_id: str, caller: CallerDep, workspace_id: WorkspaceIdDep
) -> EntryAction:
    """The entry a route's path names, acted on by the caller (a dependency of the routes)."""
    return EntryAction(
        caller=caller, workspace_id=workspace_id, content_type=content_type, id=entry_id
    )


EntryActionDep = Annotated[EntryAction, Depends(entry_action)]


@router.post(
    "/{content_type}/{entry_id}/publish",
    response_model=EntryOut,
    responses=errors(401, 403, 404, 409),
)
def publish_content(action: EntryActionDep) -> JSONResponse:
    entry = service.publish_entry(action)
    return JSONResponse(entry.to_json())


@router.post(
    "/{content_type}/{entry_id}/unpublish",
    response_model=EntryOut,
    responses=errors(401, 403, 404, 409),
)
def unpublish_content(action: EntryActionDep) -> JSONResponse:
    entry = service.unpublish_entry(action)
    return JSONResponse(entry.to_json())


@router.post(
    "/{content_type}/{entry_id}/discard",
    response_model=EntryOut,
    responses=errors(401, 403, 404, 409),
)
def discard_content(action: EntryActionDep) -> JSONResponse:
    """A `changed` entry's draft thrown away: the published version is the latest again."""
    entry = service.discard_changes(action)
    return JSONResponse(entry.to_json())


Force = Annotated[
    bool,
    Query(description="trash the entry even while published entries link it (409 otherwise)"),
]


@router.delete(
    "/{content_type}/{entry_id}",
    status_code=204,
    response_class=Response,
    responses=errors(401, 403, 404, 409),
)
def delete_content(action: EntryActionDep, force: Force = False) -> Response:
    """Moves the entry to the trash. While published entries link it, 409 naming them
    (`details: {count, linkedFrom}`), unless `force=true`."""
    service.delete_entry(replace(action, force=force))
    return Response(status_code=204)


@router.post(
    "/{content_type}/{entry_id}/restore",
    response_model=EntryOut,
    responses=errors(401, 403, 404, 409),
)
def restore_content(action: EntryActionDep) -> JSONResponse:
    entry = service.restore_entry(action)
    return JSONResponse(entry.to_json())


@router.delete(
    "/{content_type}/{entry_id}/purge",
    status_code=204,
    response_class=Response,
    responses=errors(401, 403, 404, 409),
)
def purge_content(action: EntryActionDep) -> Response:
    service.purge_entry(action)
    return Response(status_code=204)
