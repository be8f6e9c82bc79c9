"""What a caller may do in a workspace, as `Permissions` the content service checks.

A user holds the roles granted to it in the workspace and in every workspace ("*"). A token
given a role acts with that role's rules, still inside its own grant (access, scopes and
content types are checked as before). A token without a role behaves as before roles: a full
token with `content:write` as an Editor of its types, any other token as a Viewer.

Custom roles are read through `identity.role_store`; each is kept a few seconds per process,
so a write costs no extra read while a role change is seen within `_ROLE_SECONDS`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

from content_service.errors import NotFound
from content_service.identity.principal import Caller, TokenCaller
from content_service.identity.roles import (
    BUILTIN_ROLES,
    EDITOR,
    EVERY_WORKSPACE,
    VIEWER,
    Permissions,
    Role,
    RoleGrant,
)

_ROLE_SECONDS = 5.0
_roles: dict[str, tuple[float, Role | None]] = {}
_lock = threading.Lock()


def _role(role_id: str) -> Role | None:
    """A role by id, None once deleted; custom ones cached for `_ROLE_SECONDS`."""
    from content_service.identity.role_store import get_role

    builtin = BUILTIN_ROLES.get(role_id)
    if builtin is not None:
        return builtin
    now = time.monotonic()
    with _lock:
        cached = _roles.get(role_id)
    if cached is not None and cached[0] > now:
        return cached[1]
    try:
        role: Role | None = get_role(role_id)
    except NotFound:
        role = None
    with _lock:
        _roles[role_id] = (now + _ROLE_SECONDS, role)
    return role


def forget_roles() -> None:
    """Drops the cached custom roles (a test that changes a role and acts at once)."""
    with _lock:
        _roles.clear()


def _of(grants: Iterable[RoleGrant]) -> Permissions:
    held = [(role, grant) for grant in grants if (role := _role(grant.role)) is not None]
    return Permissions.of(held)


def _token_permissions(caller: TokenCaller) -> Permissions:
    if caller.role is not None:
        held = [(role, caller.role)] if (role := _role(caller.role.role)) is not None else []
        granted = Permissions.of(held)
        return Permissions(granted.rules, False, granted.roles)
    fallback = EDITOR if caller.can_write else VIEWER
    return Permissions.of([(BUILTIN_ROLES[fallback], RoleGrant(fallback))])


def permissions_for(caller: Caller, workspace_id: str) -> Permissions:
    """The caller's permissions in `workspace_id` (none: it holds no role there)."""
    if isinstance(caller, TokenCaller):
        return _token_permissions(caller)
    held = (*caller.role_grants.get(EVERY_WORKSPACE, ()), *caller.role_grants.get(workspace_id, ()))
    return _of(held)


def holds_any_role(caller: Caller, workspace_id: str) -> bool:
    """A user with no role in a workspace may not even read there (a token always may)."""
    if isinstance(caller, TokenCaller):
        return True
    return bool(caller.role_grants.get(EVERY_WORKSPACE) or caller.role_grants.get(workspace_id))
