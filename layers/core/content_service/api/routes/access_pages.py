"""The users page (`/users`) and the roles page (`/roles`), for administrators: who may sign
in, which roles they hold in which workspace, and what each role allows (docs/admin-ui.md,
"The users and roles pages").

Users, custom roles and grants are service-wide records served by `/api/v1/users` and
`/api/v1/roles`; the pages' scripts read and change them through those routes alone, so every
list, refusal and audit record is the API's (decisions.md D143). The server renders the
forms with what they choose from: the workspaces, the actions a rule names and the built-in
roles.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from content_service.api import pages
from content_service.api.auth import OptionalCallerDep
from content_service.identity.roles import ACTIONS, BUILTIN_ROLES, EVERY_WORKSPACE
from content_service.identity.workspaces import list_workspaces

router = APIRouter(include_in_schema=False)

_WHY = "Only administrators manage users and roles."
USERS = pages.Section("/users", "Back to the users", admin=True, why_admin=_WHY)
ROLES = pages.Section("/roles", "Back to the roles", admin=True, why_admin=_WHY)


def _data() -> dict[str, Any]:
    """What the scripts choose from: workspaces (every one first), actions, built-in roles."""
    workspaces = sorted(list_workspaces(), key=lambda w: (w.slug != "default", w.name.lower()))
    return {
        "workspaces": [
            {"id": EVERY_WORKSPACE, "name": "All workspaces", "slug": EVERY_WORKSPACE},
            *({"id": w.id, "name": w.name, "slug": w.slug} for w in workspaces),
        ],
        "actions": list(ACTIONS),
        "builtinRoles": [role.to_json() for role in BUILTIN_ROLES.values()],
    }


def _page(request: Request, section: pages.Section, caller: Any, nav: str) -> Response:
    opened = section.open(request, caller, None)
    if isinstance(opened, Response):
        return opened
    user, ws = opened
    return pages.render(
        request,
        f"admin/{nav}.html",
        {"caller": user, "nav": nav, "ws": ws, "data": _data(), "actions": ACTIONS},
    )


@router.get("/users", response_class=HTMLResponse)
def users_page(request: Request, caller: OptionalCallerDep) -> Response:
    return _page(request, USERS, caller, "users")


@router.get("/roles", response_class=HTMLResponse)
def roles_page(request: Request, caller: OptionalCallerDep) -> Response:
    return _page(request, ROLES, caller, "roles")
