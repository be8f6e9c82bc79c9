"""`/api/v1/graphql`: the GraphQL adapter over the content service (spec 4.1, 5, 7.1).

- `POST /api/v1/graphql` `{query, variables?, operationName?}` as `application/json` answers
  HTTP 200 always, with `{data?, errors?}`; each error carries `extensions.status` (what REST
  would have answered) and `extensions.code`. Authentication failures, malformed bodies, other
  content types (415) and the refusals of the middleware in front of every route (a body over
  1 MiB: 413, an over-long URL or headers, a foreign origin with a session cookie: 403) are
  errors too, in the same shape (`api.refusals`). The whole pipeline runs off the server's
  event loop (`graphql.worker`), except under Mangum, where an instance serves one event at a
  time.
- `GET /api/v1/graphql`: the SDL of the caller's grant set, the very schema that introspection
  describes (authenticated like it; 401 without valid credentials).
- `GET /api/v1/graphql/playground`: GraphiQL from the app's own static files, only when
  `API_REFERENCE_ENABLED` is set (404 otherwise). The page holds no data; the queries it sends
  carry the token pasted into its header editor (or the sign-in cookie).

Same bearer tokens, session, workspace bucket, scopes and visibility as the REST content API.
"""

from __future__ import annotations

import json
from email.message import Message as MimeMessage
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from content_service import runtime
from content_service.api.auth import (
    CallerDep,
    OptionalCallerDep,
    WorkspaceIdDep,
    caller_workspace_id,
    optional_caller,
)
from content_service.api.error_handlers import errors
from content_service.api.refusals import graphql_error
from content_service.api.templating import templates
from content_service.errors import NotFound, ServiceError, Unauthorized
from content_service.identity.principal import Caller, UserCaller
from content_service.observability import logger
from content_service.settings import Settings

if TYPE_CHECKING:
    from content_service.graphql.build import BuiltSchema

router = APIRouter(prefix="/api/v1/graphql", tags=["graphql"])

# The security headers (CSP, frame and sniffing rules) come from `api.security_headers`.
PLAYGROUND_HEADERS = {"Cache-Control": "no-store"}


class _GraphQLResponse(Response):
    media_type = "application/json"

    def render(self, content: object) -> bytes:
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
        try:
            return text.encode()
        except UnicodeEncodeError:  # a message quoting a lone surrogate: ASCII escapes it
            return json.dumps(content, separators=(",", ":")).encode()


INTERNAL_ERROR = {
    "message": "internal error; the request was not completed",
    "extensions": {"status": 500, "code": "INTERNAL_SERVER_ERROR"},
}


def unsupported_media_type(content_type: str | None) -> str | None:
    """Why a POST's content type is refused, or None for `application/json` (GraphQL over HTTP;
    a `charset`, if any, is UTF-8). `text/plain` and forms are refused: they are the types a
    page on any site may send without a CORS preflight, and GraphQL over HTTP does not define
    them (decisions.md)."""
    if content_type is None:
        return "send the request as application/json (no Content-Type was given)"
    parsed = MimeMessage()
    parsed["content-type"] = content_type
    charset = parsed.get_param("charset")
    if parsed.get_content_type() == "application/json" and (
        charset is None or str(charset).lower().replace("-", "") == "utf8"
    ):
        return None
    shown = content_type.encode("ascii", "replace").decode()[:80]
    return f"send the request as application/json (UTF-8), not {shown}"


def _schema_for(request: Request, settings: Settings) -> tuple[Caller, str, BuiltSchema]:
    from content_service.graphql.cache import schemas

    caller = optional_caller(request)
    if caller is None:
        raise Unauthorized("authentication required: send a bearer token or sign in")
    workspace_id = caller_workspace_id(request, caller)
    built = schemas.schema_for(caller, workspace_id, settings.graphql.schema_cache_ttl_seconds)
    return caller, workspace_id, built


@router.post(
    "",
    summary="Run a GraphQL query or mutation",
    description="Body `{query, variables?, operationName?}` as `application/json`; always "
    "HTTP 200 with `{data?, errors?}`, each error carrying `extensions.status` and "
    "`extensions.code`.",
)
async def graphql_post(request: Request) -> Response:
    refused = unsupported_media_type(request.headers.get("content-type"))
    if refused is not None:
        return _GraphQLResponse({"errors": [graphql_error(415, refused)]})
    raw = await request.body()
    settings = runtime.settings()
    # graphene and graphql-core load with the first GraphQL request, not at cold start.
    from content_service.graphql import worker

    try:
        if "aws.event" in request.scope:
            # Mangum (Lambda): the instance handles this one event and nothing else, so there
            # is no other request for the loop to serve; the pipeline runs here, without a hop.
            body = await _answer(request, raw, settings)
        else:
            body = await worker.run_off_loop(lambda: _answer(request, raw, settings))
    except Exception:
        logger.exception("GraphQL request failed")
        body = {"errors": [INTERNAL_ERROR]}
    return _GraphQLResponse(body)


async def _answer(request: Request, raw: bytes, settings: Settings) -> dict[str, Any]:
    """The response body, computed on a worker thread's loop."""
    from content_service.graphql import execution
    from content_service.graphql.errors import RequestError, service_error_json

    try:
        payload = execution.parse_body(raw)
        caller, workspace_id, built = _schema_for(request, settings)
    except RequestError as error:
        return {"errors": [error.to_json()]}
    except ServiceError as error:
        return {"errors": [service_error_json(error)]}
    return await execution.run(built, caller, workspace_id, payload, settings.graphql)


@router.get(
    "",
    # Documented by hand: `response_class=PlainTextResponse` would document the JSON refusals
    # as text/plain too.
    response_class=Response,
    summary="The GraphQL schema (SDL) of the caller's grant set",
    responses={
        200: {"description": "The SDL", "content": {"text/plain": {"schema": {"type": "string"}}}},
        **errors(401, 403),
    },
)
def graphql_sdl(caller: CallerDep, workspace_id: WorkspaceIdDep) -> PlainTextResponse:
    from content_service.graphql.cache import schemas

    settings = runtime.settings()
    built = schemas.schema_for(caller, workspace_id, settings.graphql.schema_cache_ttl_seconds)
    return PlainTextResponse(built.sdl, headers={"Cache-Control": "no-store"})


@router.get("/playground", response_class=HTMLResponse, include_in_schema=False)
def graphql_playground(request: Request, caller: OptionalCallerDep) -> Response:
    if not runtime.settings().api_reference_enabled:
        raise NotFound("the GraphQL playground is not enabled (API_REFERENCE_ENABLED)")
    return templates().TemplateResponse(
        request,
        "graphiql.html",
        {"signed_in": isinstance(caller, UserCaller)},
        headers=PLAYGROUND_HEADERS,
    )
