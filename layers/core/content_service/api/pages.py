"""What the content and content-model pages share: the answer's headers, who may open a page,
which workspace and content type a page shows, and the 404 page for one that is not there.

A page acts in the workspace named by its `?workspace=` query parameter (a slug or an id),
`default` without one: a browser cannot send the `X-Workspace-Id` header on a navigation, and a
link must show the same workspace to whoever opens it. The page's scripts send the workspace's
id as `X-Workspace-Id` on every API call they make.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import Query, Request
from fastapi.responses import RedirectResponse, Response

from content_service.api.routes.admin import PAGE_HEADERS
from content_service.api.templating import templates
from content_service.content import service
from content_service.content.schema import ContentType
from content_service.errors import NotFound
from content_service.identity.bootstrap import DEFAULT_SLUG
from content_service.identity.principal import Caller, UserCaller
from content_service.identity.workspaces import Workspace, resolve_workspace

MAX_WORKSPACE_REFERENCE = 100

WorkspaceQuery = Annotated[str | None, Query(max_length=MAX_WORKSPACE_REFERENCE)]
"""A page's `?workspace=` parameter."""


def render(
    request: Request, template: str, context: dict[str, Any], status_code: int = 200
) -> Response:
    response = templates().TemplateResponse(request, template, context, status_code=status_code)
    response.headers.update(PAGE_HEADERS)
    return response


def sign_in_redirect(request: Request) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)


MODEL_REASON = "Only administrators change the content model."


def gate(
    request: Request, caller: Caller | None, *, admin: bool = False, why: str = MODEL_REASON
) -> UserCaller | Response:
    """The signed-in user when they may open the page; otherwise the answer to give: the
    sign-in redirect (303), or a 403 page for an API token or, on an administrators' page, an
    editor (told `why` the page is the administrators')."""
    if caller is None:
        return sign_in_redirect(request)
    if isinstance(caller, UserCaller) and (caller.role == "admin" or not admin):
        return caller
    if isinstance(caller, UserCaller):
        heading = "You need the admin role"
        reason = f"You are signed in as {caller.email} with the {caller.role} role. {why}"
    else:
        heading = "Sign in to use the admin pages"
        reason = (
            "API tokens cannot open the admin pages. Sign in with your account in a browser "
            "instead."
        )
    return render(
        request,
        "forbidden.html",
        {
            "caller": caller if isinstance(caller, UserCaller) else None,
            "heading": heading,
            "reason": reason,
        },
        status_code=403,
    )


@dataclass(frozen=True)
class PageWorkspace:
    """The workspace a page shows, and how its links keep showing it."""

    workspace: Workspace
    explicit: bool
    """Whether the page was asked for it (`?workspace=`); links then carry it on."""

    @property
    def id(self) -> str:
        return self.workspace.id

    @property
    def query(self) -> dict[str, str]:
        """The query parameter that keeps a link in this workspace (none for `default`)."""
        if not self.explicit and self.workspace.slug == DEFAULT_SLUG:
            return {}
        return {"workspace": self.workspace.slug}

    def link(self, path: str, **params: str | None) -> str:
        """`path` in this workspace, with the other parameters that have a value."""
        query = {**self.query, **{k: v for k, v in params.items() if v}}
        return f"{path}?{urlencode(query)}" if query else path


def page_workspace(reference: str | None) -> PageWorkspace | None:
    """The workspace of `?workspace=`, `default` without it; None when there is no such one."""
    wanted = (reference or "").strip()[:MAX_WORKSPACE_REFERENCE]
    try:
        return PageWorkspace(resolve_workspace(wanted or DEFAULT_SLUG), explicit=bool(wanted))
    except NotFound:
        return None


def not_found(
    request: Request, caller: UserCaller, what: str, back_href: str, back_label: str
) -> Response:
    return render(
        request,
        "admin/not_found.html",
        {"caller": caller, "what": what, "back_href": back_href, "back_label": back_label},
        status_code=404,
    )


@dataclass(frozen=True)
class Section:
    """A group of pages (the content pages, the model pages): who may open them, and where a
    404 page for a workspace or content type that is not there leads back to."""

    home: str
    back_label: str
    admin: bool = False
    why_admin: str = MODEL_REASON
    """What the 403 page tells a user who is not an administrator."""

    def open(
        self, request: Request, caller: Caller | None, reference: str | None
    ) -> tuple[UserCaller, PageWorkspace] | Response:
        """The signed-in caller and the workspace a page is about, or the answer instead: the
        sign-in redirect, a 403 page, or a 404 page for an unknown workspace."""
        user = gate(request, caller, admin=self.admin, why=self.why_admin)
        if isinstance(user, Response):
            return user
        ws = page_workspace(reference)
        if ws is None:
            return not_found(request, user, "workspace", self.home, self.back_label)
        return user, ws

    def open_type(
        self, request: Request, caller: Caller | None, reference: str | None, name: str
    ) -> tuple[UserCaller, PageWorkspace, ContentType] | Response:
        """As `open`, with the content type the page is about (a 404 page for an unknown one)."""
        opened = self.open(request, caller, reference)
        if isinstance(opened, Response):
            return opened
        user, ws = opened
        try:
            return user, ws, service.require_type(user, ws.id, name)
        except NotFound:
            return not_found(request, user, "content type", ws.link(self.home), self.back_label)
