"""FastAPI dependencies that answer "who is calling, and may they?".

A bearer token wins over a session cookie; a present but bad token is a 401 even when a valid
cookie is also sent, so a client never silently acts as someone else. Every request a token
authenticates is counted against its rate (`api.rate_limit`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import Depends, Request

from content_service import runtime
from content_service.api import rate_limit
from content_service.errors import Forbidden, Unauthorized
from content_service.identity.bootstrap import DEFAULT_SLUG
from content_service.identity.permissions import holds_any_role
from content_service.identity.principal import Caller, TokenCaller, UserCaller
from content_service.identity.sessions import resolve_session
from content_service.identity.tokens import (
    authenticate_token,
    authenticate_token_beside,
    token_digest,
)
from content_service.identity.workspaces import resolve_workspace
from content_service.settings import Settings

SESSION_COOKIE = "cs_session"
SESSION_ID_KEY = "sid"


def get_settings() -> Settings:
    return runtime.settings()


BEARER_PREFIX = "Bearer "


def _bearer(request: Request) -> str | None:
    """The token of `Authorization: Bearer <token>`, exactly so spelled: the edge keys its WAF
    rate rule and its cache on the raw header, so `bearer`, `BEARER`, a doubled space or
    surrounding whitespace would each make another bucket and another cached copy for the same
    token. Any other form is a 401 rather than a second spelling of the same caller."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    token = header.removeprefix(BEARER_PREFIX)
    if token == header or not token or any(c.isspace() for c in token):
        raise Unauthorized(
            "unsupported Authorization header: send exactly 'Bearer <token>' "
            "(that capitalisation, one space, no other whitespace)"
        )
    return token


def optional_caller(request: Request) -> Caller | None:
    cached: Caller | None = getattr(request.state, "caller", None)
    if cached is not None:
        return cached
    token = _bearer(request)
    caller: Caller | None = None
    if token is not None:
        caller = authenticate_token(token)
        rate_limit.admit(request, caller)
    elif session_id := request.session.get(SESSION_ID_KEY):
        user = resolve_session(str(session_id))
        caller = user.caller() if user is not None else None
    request.state.caller = caller
    return caller


_TOKEN_WORKSPACES: OrderedDict[str, str] = OrderedDict()
_TOKEN_WORKSPACES_KEPT = 4096
_token_workspaces_lock = threading.Lock()


def _workspace_seen(token: str) -> str | None:
    with _token_workspaces_lock:
        return _TOKEN_WORKSPACES.get(token_digest(token))


def _remember_workspace(token: str, workspace_id: str) -> None:
    digest = token_digest(token)
    with _token_workspaces_lock:
        _TOKEN_WORKSPACES[digest] = workspace_id
        _TOKEN_WORKSPACES.move_to_end(digest)
        while len(_TOKEN_WORKSPACES) > _TOKEN_WORKSPACES_KEPT:
            _TOKEN_WORKSPACES.popitem(last=False)


def caller_beside(
    request: Request, key_for: Callable[[str], Mapping[str, Any]]
) -> tuple[Caller | None, dict[str, Any] | None]:
    """`optional_caller`, and for a token whose workspace this process has seen before, the
    item at `key_for(workspace id)` read in the same BatchGetItem as the token: `{}` when it was
    read and is absent, None when it was not read (a first sight, a session, or the token's
    workspace moved)."""
    token = _bearer(request)
    workspace_id = _workspace_seen(token) if token is not None else None
    if token is None or workspace_id is None or getattr(request.state, "caller", None):
        caller = optional_caller(request)
        if token is not None and isinstance(caller, TokenCaller):
            _remember_workspace(token, caller.workspace_id)
        return caller, None
    caller, item = authenticate_token_beside(token, key_for(workspace_id))
    rate_limit.admit(request, caller)
    request.state.caller = caller
    if caller.workspace_id != workspace_id:
        _remember_workspace(token, caller.workspace_id)
        return caller, None
    return caller, item or {}


def require_caller(caller: Annotated[Caller | None, Depends(optional_caller)]) -> Caller:
    """The caller of a route that needs one. A `persistedOnly` token is refused here: it runs
    registered GraphQL documents and nothing else (`graphql.persisted`), so no REST route, not
    even a read, and not the SDL, serves it."""
    if caller is None:
        raise Unauthorized("authentication required: send a bearer token or sign in")
    if isinstance(caller, TokenCaller) and caller.persisted_only:
        raise Forbidden(
            "this token runs registered GraphQL documents only (persistedOnly): send "
            "a document's extensions.persistedQuery.sha256Hash to /api/v1/graphql"
        )
    return caller


def require_admin(caller: Annotated[Caller, Depends(require_caller)]) -> UserCaller:
    """Token management and webhooks belong to a signed-in administrator."""
    if not isinstance(caller, UserCaller):
        raise Forbidden("this route needs a signed-in administrator, not an API token")
    if caller.role != "admin":
        raise Forbidden("this route needs the admin role")
    return caller


def require_permission(permission: str) -> object:
    """A dependency for routes gated on one permission, such as `webhooks:manage`."""

    def check(caller: Annotated[Caller, Depends(require_caller)]) -> Caller:
        if not caller.has_permission(permission):
            raise Forbidden(f"this action needs the {permission} permission")
        return caller

    return Depends(check)


CallerDep = Annotated[Caller, Depends(require_caller)]
OptionalCallerDep = Annotated[Caller | None, Depends(optional_caller)]
AdminDep = Annotated[UserCaller, Depends(require_admin)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


WORKSPACE_HEADER = "x-workspace-id"


def requested_workspace_id(request: Request, caller: Caller) -> str:
    """The workspace a request names: the token's bucket, or for a user the one chosen.

    A signed-in user picks a workspace with the `X-Workspace-Id` header (id or slug) and
    otherwise acts in the `default` workspace. A token is bound to its own bucket; naming
    another one is refused rather than ignored.
    """
    requested = request.headers.get(WORKSPACE_HEADER, "").strip()
    if isinstance(caller, TokenCaller):
        if requested and requested != caller.workspace_id:
            raise Forbidden("this token belongs to another workspace")
        return caller.workspace_id
    return resolve_workspace(requested or DEFAULT_SLUG).id


def caller_workspace_id(request: Request, caller: CallerDep) -> str:
    """The workspace a request acts in (`requested_workspace_id`), where a user holds a role:
    one without any there may not even read it (403)."""
    workspace_id = requested_workspace_id(request, caller)
    if not holds_any_role(caller, workspace_id):
        raise Forbidden("you hold no role in this workspace")
    return workspace_id


WorkspaceIdDep = Annotated[str, Depends(caller_workspace_id)]
