"""`/api/v1/content-types`: the content types of the caller's workspace (docs/api.md).

Reads answer any valid caller, narrowed to a token's grant set; writes need a full token with
content:write or the admin role (decisions.md D25). The route translates HTTP to the content
service and back.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field

from content_service.api.auth import CallerDep, WorkspaceIdDep
from content_service.api.builtin_types import USER_TYPES_ONLY
from content_service.api.error_handlers import errors
from content_service.content import service
from content_service.content.schema import (
    MAX_LIST_SHARDS,
    MAX_SORTABLE_FIELDS,
    Cardinality,
    FieldSpec,
    FieldType,
    TypeDefinition,
)
from content_service.errors import BadRequest


class ContentRoute(APIRoute):
    """Malformed JSON in a body is a 400 `bad_request` (a well-formed body with refused values
    stays a 422), as the API's error statuses (docs/api.md) say."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as error:
                if any(e.get("type") == "json_invalid" for e in error.errors()):
                    raise BadRequest("the request body is not valid JSON") from None
                raise

        return handle


class FieldBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(min_length=1, max_length=64)
    type: FieldType
    required: bool = False
    values: list[str] | None = Field(default=None, max_length=100)
    target: str | None = Field(default=None, max_length=64)
    cardinality: Cardinality | Literal["one", "many"] | None = Field(
        default=None,
        description="a relation's one-to-one, many-to-one, one-to-many or many-to-many; an "
        "asset field's one (the default) or many",
    )
    accept: list[str] | None = Field(
        default=None,
        max_length=20,
        description="an asset field's media types or families (`image/*`); none: any file",
    )
    sortable: bool = Field(
        default=False,
        description="lists sort by it and filter it with eq and ranges through an index "
        f"(scalar fields, at most {MAX_SORTABLE_FIELDS} per type); added to a type with "
        "entries, it serves lists once the background job has indexed them",
    )


class ContentTypeBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(min_length=1, max_length=64)
    kind: Literal["collection", "single"] = "collection"
    localized: bool = False
    audienceGated: bool = False
    titleField: str | None = Field(default=None, max_length=64)
    fields: list[FieldBody] = Field(default_factory=list, max_length=100)
    listShards: int = Field(
        default=1,
        ge=1,
        le=MAX_LIST_SHARDS,
        description="partitions each list index is split into: raise it for a type written "
        "more than ~250 times a second per locale; each list then reads one Query per shard",
    )

    def definition(self) -> TypeDefinition:
        return TypeDefinition(
            name=self.name,
            kind=self.kind,
            localized=self.localized,
            audience_gated=self.audienceGated,
            title_field=self.titleField,
            fields=tuple(
                FieldSpec(
                    name=f.name,
                    type=f.type,
                    required=f.required,
                    values=tuple(f.values or ()),
                    target=f.target,
                    cardinality=f.cardinality,
                    sortable=f.sortable,
                    accept=tuple(f.accept or ()),
                )
                for f in self.fields
            ),
            list_shards=self.listShards,
        )


class FieldOut(BaseModel):
    name: str
    type: str
    required: bool
    values: list[str] | None = None
    target: str | None = None
    cardinality: str | None = None
    sortable: bool | None = None
    accept: list[str] | None = None


class ListIndexOut(BaseModel):
    """What lists can use now: `sortable` names the fields the index serves; `state` is
    `building` while the background job indexes existing entries for a new layout."""

    shards: int
    sortable: list[str]
    state: Literal["ready", "building"]


class GraphQLNamesOut(BaseModel):
    typeName: str
    singleField: str
    listField: str


class ContentTypeOut(BaseModel):
    name: str
    kind: Literal["collection", "single"]
    localized: bool
    audienceGated: bool
    titleField: str | None
    fields: list[FieldOut]
    listIndex: ListIndexOut
    listShards: int
    graphql: GraphQLNamesOut
    version: int
    createdAt: str
    updatedAt: str


class ContentTypeList(BaseModel):
    items: list[ContentTypeOut]


router = APIRouter(
    prefix="/api/v1/content-types",
    tags=["content types"],
    route_class=ContentRoute,
    dependencies=USER_TYPES_ONLY,
)


@router.get("", response_model=ContentTypeList, responses=errors(401, 403))
def get_content_types(caller: CallerDep, workspace_id: WorkspaceIdDep) -> JSONResponse:
    types = service.list_types(caller, workspace_id)
    return JSONResponse({"items": [t.to_json() for t in types]})


@router.post(
    "",
    status_code=201,
    response_model=ContentTypeOut,
    responses=errors(400, 401, 403, 409, 413, 422),
)
def post_content_type(
    body: ContentTypeBody, caller: CallerDep, workspace_id: WorkspaceIdDep
) -> JSONResponse:
    created = service.create_type(caller, workspace_id, body.definition())
    return JSONResponse(created.to_json(), status_code=201)


@router.get("/{name}", response_model=ContentTypeOut, responses=errors(401, 403, 404))
def get_content_type(name: str, caller: CallerDep, workspace_id: WorkspaceIdDep) -> JSONResponse:
    return JSONResponse(service.require_type(caller, workspace_id, name).to_json())


@router.put(
    "/{name}",
    response_model=ContentTypeOut,
    responses=errors(400, 401, 403, 404, 409, 413, 422),
)
def put_content_type(
    name: str, body: ContentTypeBody, caller: CallerDep, workspace_id: WorkspaceIdDep
) -> JSONResponse:
    replaced = service.replace_type(caller, workspace_id, name, body.definition())
    return JSONResponse(replaced.to_json())


@router.delete(
    "/{name}", status_code=204, response_class=Response, responses=errors(401, 403, 404, 409)
)
def delete_content_type(name: str, caller: CallerDep, workspace_id: WorkspaceIdDep) -> Response:
    service.delete_type(caller, workspace_id, name)
    return Response(status_code=204)
