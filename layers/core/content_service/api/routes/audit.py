"""`GET /api/v1/audit`: a workspace's audit log, for signed-in administrators only."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from content_service.api.auth import AdminDep, WorkspaceIdDep
from content_service.api.error_handlers import errors
from content_service.audit.log import MAX_LIMIT, AuditQuery, page
from content_service.audit.records import SERVICE_LOG

router = APIRouter(prefix="/api/v1/audit", tags=["audit"], responses=errors(400, 401, 403))


@router.get("")
def get_audit(
    _: AdminDep,
    workspace_id: WorkspaceIdDep,
    actor: Annotated[str | None, Query(max_length=200)] = None,
    target: Annotated[str | None, Query(max_length=300)] = None,
    action: Annotated[str | None, Query(max_length=100)] = None,
    since: Annotated[str | None, Query(max_length=40)] = None,
    until: Annotated[str | None, Query(max_length=40)] = None,
    cursor: Annotated[str | None, Query(max_length=2000)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 50,
    scope: Literal["workspace", "service"] = "workspace",
) -> dict[str, object]:
    """The workspace's records, newest first (`X-Workspace-Id` picks the workspace), or with
    `scope=service` the records of no workspace: users and sign-ins."""
    log = SERVICE_LOG if scope == "service" else workspace_id
    query = AuditQuery(log, actor, target, action, since, until)
    records, next_cursor = page(query, limit, cursor)
    return {"items": records, "nextCursor": next_cursor}
