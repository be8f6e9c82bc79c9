"""The role check of every content write, in the service, so REST, GraphQL and the pages agree.

Each write path calls `check` once it knows the entry (its locale, who created it) and, for a
change of the draft, the fields whose values change. A refusal is a 403 naming what is
missing (`Permissions.check`) and leaves exactly one audit record, `<what>.refused` with
`{"missing": <the 403's message>}`, written alone: nothing else of the write is.

An entry of the built-in `asset` type is an asset: every write to one needs `manage assets`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from content_service.audit.records import Actor, Target, record_put
from content_service.clock import SystemClock
from content_service.content.entries import StoredEntry
from content_service.content.schema import ASSET_TYPE
from content_service.content.store import store
from content_service.errors import Forbidden
from content_service.identity.permissions import permissions_for
from content_service.identity.principal import Caller, UserCaller
from content_service.identity.roles import MANAGE_ASSETS


def creator(caller: Caller) -> dict[str, str]:
    """What a new entry records as `createdBy`: the user or the token that created it."""
    if isinstance(caller, UserCaller):
        return {"kind": "user", "id": caller.id}
    return {"kind": "token", "id": caller.token_id}


def is_own(caller: Caller, created_by: Mapping[str, str] | None) -> bool:
    """The caller created the entry; one without `createdBy` (made before roles) is nobody's."""
    return created_by is not None and dict(created_by) == creator(caller)


def check(
    caller: Caller,
    workspace_id: str,
    action: str,
    target: Target,
    *,
    entry: StoredEntry | None = None,
    locale: str | None = None,
    changed_fields: Iterable[str] = (),
    refused_as: str | None = None,
) -> None:
    """Refuses (403) a write the caller's roles do not allow, after recording the refusal.
    `entry`: the entry acted on (None: one being created, the caller's own, in `locale`).
    `refused_as`: the audit action's subject (`schedule`); by default the target's kind."""
    content_type = target.content_type or ASSET_TYPE
    if content_type == ASSET_TYPE:
        action = MANAGE_ASSETS
    try:
        permissions_for(caller, workspace_id).check(
            action,
            content_type,
            locale=entry.locale if entry is not None else locale,
            own=entry is None or is_own(caller, entry.created_by),
            changed_fields=changed_fields,
        )
    except Forbidden as refused:
        what = refused_as or target.kind
        now = SystemClock().now()
        changes = {"missing": refused.message}
        record = record_put(workspace_id, f"{what}.refused", Actor.of(caller), target, now, changes)
        store().transact([record])
        raise
