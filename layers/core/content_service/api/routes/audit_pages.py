"""The audit log page (`/audit`), for administrators: who changed what, when and from where,
newest first, filtered by actor, target, action and time, paged with the log's cursor
(docs/admin-ui.md, "The audit page").

It reads the records through the same `audit.log.page` as `GET /api/v1/audit`, so the page and
the API show the same records; it writes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from content_service.api import pages
from content_service.api.auth import OptionalCallerDep
from content_service.api.routes.audit_page_views import SCOPES, AuditFilters, audit_row
from content_service.audit.log import AuditQuery, page
from content_service.errors import BadRequest

router = APIRouter(include_in_schema=False)

SECTION = pages.Section(
    "/audit",
    "Back to the audit log",
    admin=True,
    why_admin="Only administrators read the audit log.",
)
PAGE_SIZE = 25
STALE_CURSOR = "That page of the log is no longer available; showing the newest records."

Filter = Annotated[str | None, Query(max_length=300)]


def _read(
    query: AuditQuery, cursor: str | None
) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """The page at `cursor`, its next cursor, and the notice shown when that cursor was stale
    (the newest page instead). BadRequest: a filter the log cannot read."""
    try:
        return *page(query, PAGE_SIZE, cursor), None
    except BadRequest:
        if not cursor:
            raise
        return *page(query, PAGE_SIZE, None), STALE_CURSOR


@router.get("/audit", response_class=HTMLResponse)
def audit_page(
    request: Request,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
    scope: Filter = None,
    actor: Filter = None,
    target: Filter = None,
    action: Filter = None,
    since: Filter = None,
    until: Filter = None,
    cursor: Annotated[str | None, Query(max_length=2000)] = None,
) -> Response:
    opened = SECTION.open(request, caller, workspace)
    if isinstance(opened, Response):
        return opened
    user, ws = opened
    filters = AuditFilters.read(
        scope=scope, actor=actor, target=target, action=action, since=since, until=until
    )
    records: list[dict[str, Any]] = []
    next_cursor, notice, error = None, None, None
    try:
        records, next_cursor, notice = _read(filters.query(ws.id), cursor or None)
    except BadRequest as refused:
        error = refused.message
    here = filters.params()
    return pages.render(
        request,
        "admin/audit.html",
        {
            "caller": user,
            "nav": "audit",
            "ws": ws,
            "filters": filters,
            "scopes": SCOPES,
            "rows": [audit_row(r, ws, filters) for r in records],
            "older_href": ws.link("/audit", **here, cursor=next_cursor) if next_cursor else None,
            "newest_href": ws.link("/audit", **here),
            "clear_href": ws.link("/audit", scope=here["scope"]),
            "paged": bool(cursor),
            "notice": notice,
            "error": error,
        },
    )
