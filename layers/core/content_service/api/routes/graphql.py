"""`/api/v1/graphql`: the GraphQL adapter over the content service (docs/graphql.md).

- `POST /api/v1/graphql` `{query, variables?, operationName?, extensions?}` as
  `application/json` answers HTTP 200 always, with `{data?, errors?, extensions?}` (the answer
  of a document that ran carries `extensions.cost`); each error carries `extensions.status`
  (what REST would have answered) and `extensions.code`. Authentication failures, malformed
  bodies, other content types (415) and the refusals of the middleware in front of every
  route (a body over 1 MiB: 413, an over-long URL or headers, a foreign origin with a session
  cookie: 403) are errors too, in the same shape (`api.refusals`). The whole pipeline runs off
  the server's event loop (`graphql.worker`), except under Mangum, where an instance serves
  one event at a time.
- `GET /api/v1/graphql?query=...&variables=...&operationName=...&extensions=...`: a query, as
  POST runs it, answered like a content read (`ETag`, 304, the caching headers of
  `api.http_cache`, varying by `Authorization` and `Accept`); a mutation is 405 with
  `Allow: POST`. `extensions.persistedQuery` names a persisted document over either method
  (`graphql.persisted`); a GET authenticated by the session cookie runs a document sent with
  its hash but never registers it (a cross-site link could plant one). Without any of the four
  parameters: the SDL of the caller's grant set, the very schema that introspection describes
  (authenticated like it; 401 without valid credentials; 403 for a `persistedOnly` token).
- Both answer `application/graphql-response+json` when `Accept` asks for it, still with HTTP
  200 (docs/graphql.md says why).
- `GET /api/v1/graphql/playground`: GraphiQL from the app's own static files, only when
  `API_REFERENCE_ENABLED` is set (404 otherwise). The page holds no data; the queries it sends
  carry the token pasted into its header editor (or the sign-in cookie).

Same bearer tokens, session, workspace bucket, scopes and visibility as the REST content API.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from email.message import Message as MimeMessage
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool

from content_service import runtime
from content_service.api.auth import (
    OptionalCallerDep,
    caller_beside,
    caller_workspace_id,
    require_caller,
)
from content_service.api.error_handlers import errors
from content_service.api.http_cache import cached_answer, uncached_answer
from content_service.api.refusals import graphql_error
from content_service.api.templating import templates
from content_service.content import service
from content_service.errors import NotFound, ServiceError, Unauthorized
from content_service.identity.principal import Caller, TokenCaller, UserCaller
from content_service.observability import logger
from content_service.settings import Settings

if TYPE_CHECKING:
    from content_service.graphql.built import BuiltSchema
    from content_service.graphql.transport import Incoming

router = APIRouter(prefix="/api/v1/graphql", tags=["graphql"])

# The security headers (CSP, frame and sniffing rules) come from `api.security_headers`.
PLAYGROUND_HEADERS = {"Cache-Control": "no-store"}


GRAPHQL_VARY = "Authorization, Accept"
"""A GraphQL answer differs by token and by the media type asked for (`Accept`)."""


def _render(content: object) -> bytes:
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

    caller, version_item = caller_beside(request, service.schema_version_key)
    if caller is None:
        raise Unauthorized("authentication required: send a bearer token or sign in")
    workspace_id = caller_workspace_id(request, caller)
    version = service.version_of(version_item) if version_item is not None else None
    # A token's first request in this process: read the version (one GetItem), so a type made
    # through REST a moment ago is never missing from its schema.
    ttl = 0 if isinstance(caller, TokenCaller) else settings.graphql.schema_cache_ttl_seconds
    built = schemas.schema_for(caller, workspace_id, ttl, version)
    return caller, workspace_id, built


GET_PARAMETERS: list[dict[str, Any]] = [
    {
        "name": name,
        "in": "query",
        "required": False,
        "schema": {"type": "string"},
        "description": description,
    }
    for name, description in (
        ("query", "the document (a query; a mutation over GET is 405)"),
        ("variables", "JSON object"),
        ("operationName", "the operation to run"),
        ("extensions", 'JSON: {"persistedQuery": {"version": 1, "sha256Hash": "..."}}'),
    )
]


@router.post(
    "",
    summary="Run a GraphQL query or mutation",
    description="Body `{query?, variables?, operationName?, extensions?}` as "
    "`application/json`; always HTTP 200 with `{data?, errors?, extensions?}`, each error "
    "carrying `extensions.status` and `extensions.code`. `extensions.persistedQuery` names a "
    "persisted document (automatic persisted queries).",
)
async def graphql_post(request: Request) -> Response:
    media_type = _media_type(request)
    refused = unsupported_media_type(request.headers.get("content-type"))
    if refused is not None:
        return uncached_answer(_render({"errors": [graphql_error(415, refused)]}), media_type)
    raw = await request.body()
    from content_service.graphql import transport

    body = await _off_loop(request, lambda: transport.parse_body(raw), read_only=False)
    return uncached_answer(_render(body), media_type)


@router.get(
    "",
    # Documented by hand: `response_class=PlainTextResponse` would document the JSON answers
    # as text/plain too.
    response_class=Response,
    summary="Run a GraphQL query, or read the schema (SDL) of the caller's grant set",
    description="With `query` (or a persisted document's hash in `extensions`): runs the "
    "query, as POST does, with an `ETag` and the caching headers of a content read. Without "
    "any of the four parameters: the SDL of the caller's grant set.",
    openapi_extra={"parameters": GET_PARAMETERS},
    responses={
        200: {
            "description": "The query's answer (JSON), or the SDL (text)",
            "content": {
                "application/json": {"schema": {"type": "object"}},
                "text/plain": {"schema": {"type": "string"}},
            },
        },
        304: {"description": "Not modified: the `If-None-Match` names this answer's `ETag`"},
        405: {"description": "A mutation sent with GET (`Allow: POST`)"},
        **errors(401, 403),
    },
)
async def graphql_get(request: Request) -> Response:
    from content_service.graphql import transport

    params = request.query_params.multi_items()
    if not transport.is_graphql_request(params):
        return await run_in_threadpool(_sdl, request)
    body = await _off_loop(request, lambda: transport.parse_params(params), read_only=True)
    return _get_answer(request, body)


def _sdl(request: Request) -> Response:
    caller, _, built = _schema_for(request, runtime.settings())
    require_caller(caller)
    return PlainTextResponse(built.sdl, headers={"Cache-Control": "no-store"})


def _get_answer(request: Request, body: dict[str, Any]) -> Response:
    """A query's answer over GET: cacheable when it ran without errors, like any content read;
    405 with `Allow: POST` for a mutation."""
    media_type = _media_type(request)
    rendered = _render(body)
    caller = getattr(request.state, "caller", None)
    if "errors" not in body and "data" in body and caller is not None:
        return cached_answer(request, caller, rendered, media_type, vary=GRAPHQL_VARY)
    found = body.get("errors") or []
    if "data" not in body and [e["extensions"]["code"] for e in found] == ["METHOD_NOT_ALLOWED"]:
        return uncached_answer(
            rendered, media_type, vary=GRAPHQL_VARY, status_code=405, headers={"Allow": "POST"}
        )
    return uncached_answer(rendered, media_type, vary=GRAPHQL_VARY)


def _media_type(request: Request) -> str:
    from content_service.graphql.transport import response_media_type

    return response_media_type(request.headers.get("accept"))


async def _off_loop(
    request: Request, parse: Callable[[], Incoming], *, read_only: bool
) -> dict[str, Any]:
    """The answer's body, computed off the server's event loop (`graphql.worker`)."""
    settings = runtime.settings()
    # graphene and graphql-core load with the first GraphQL request, not at cold start.
    from content_service.graphql import worker

    try:
        if "aws.event" in request.scope:
            # Mangum (Lambda): the instance handles this one event and nothing else, so there
            # is no other request for the loop to serve; the pipeline runs here, without a hop.
            return await _answer(request, parse, settings, read_only)
        return await worker.run_off_loop(lambda: _answer(request, parse, settings, read_only))
    except Exception:
        logger.exception("GraphQL request failed")
        return {"errors": [INTERNAL_ERROR]}


async def _answer(
    request: Request, parse: Callable[[], Incoming], settings: Settings, read_only: bool
) -> dict[str, Any]:
    """The response body, computed on a worker thread's loop."""
    from content_service.graphql import execution
    from content_service.graphql.errors import RequestError, service_error_json
    from content_service.graphql.persisted import documents

    try:
        incoming = parse()
        caller, workspace_id, built = _schema_for(request, settings)
        graphql_request = documents.resolve(
            incoming,
            caller,
            workspace_id,
            read_only=read_only,
            may_register=not (read_only and isinstance(caller, UserCaller)),
        )
    except RequestError as error:
        return {"errors": [error.to_json()]}
    except ServiceError as error:
        return {"errors": [service_error_json(error)]}
    return await execution.run(built, caller, workspace_id, graphql_request, settings.graphql)


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
