"""The sync service: an initial sync pages through everything the caller sees; a delta answers
what the change log holds since the token's position (docs/api.md, "Sync").

An initial sync walks the caller's types (and the assets), locale by locale, through the
list service, so its visibility and cost are a list's. A delta reads the change log
(`content.writes.change_log`) from its position and then each changed entry's current version in the
token's view, in one BatchGetItem per 100 entries: its cost follows the changes, not the
workspace. An entry that is no longer visible in that view (unpublished for the published
view, trashed, purged, out of the caller's audiences) is answered as deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from content_service import runtime
from content_service.assets.service import render
from content_service.clock import Clock, SystemClock, iso_utc, parse_iso_utc
from content_service.content.entries import Entry, entry_view, fetch_entries, stored_visible
from content_service.content.lists import list_entries
from content_service.content.requests import (
    MAX_PAGE_SIZE,
    ListRequest,
    is_locale,
    parse_view,
)
from content_service.content.schema import (
    ASSET_TYPE,
    ContentType,
    get_type,
    get_types,
    require_read,
    visible_schema,
)
from content_service.content.writes import RETENTION_DAYS, RETENTION_SECONDS, Change, read_changes
from content_service.errors import BadRequest, Gone, NotFound
from content_service.identity.principal import Caller
from content_service.sync.tokens import SyncToken, Walk, decode_token

SYNC_PATH = "/api/v1/sync"
DELTA_PAGE_SIZE = 100
"""Change items one delta page reads (so at most 100 entries: one BatchGetItem)."""
PARTITIONS_PER_PAGE = 10
"""How many empty (type, locale) lists an initial page may pass before answering."""
_START = Walk("", "", None)


@dataclass
class SyncPage:
    """One answer: entries and assets in full, the ids gone, and where to continue."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    assets: list[dict[str, Any]] = field(default_factory=list)
    deleted_entries: list[str] = field(default_factory=list)
    deleted_assets: list[str] = field(default_factory=list)
    next_page: SyncToken | None = None
    next_sync: SyncToken | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "entries": self.entries,
            "assets": self.assets,
            "deletedEntries": self.deleted_entries,
            "deletedAssets": self.deleted_assets,
        }
        if self.next_page is not None:
            body["nextPageUrl"] = f"{SYNC_PATH}?token={self.next_page.encode()}"
        if self.next_sync is not None:
            body["nextSyncUrl"] = f"{SYNC_PATH}?token={self.next_sync.encode()}"
        return body

    def add(self, caller: Caller, workspace_id: str, entries: list[Entry]) -> None:
        for entry in entries:
            if entry.content_type == ASSET_TYPE:
                self.assets.append(render(caller, workspace_id, entry))
            else:
                self.entries.append(entry.to_json())

    def gone(self, change: Change) -> None:
        shown = self.deleted_assets if change.content_type == ASSET_TYPE else self.deleted_entries
        shown.append(change.entry_id)


@dataclass(frozen=True)
class SyncRequest:
    caller: Caller
    workspace_id: str
    token: SyncToken
    initial: bool

    @classmethod
    def parse(
        cls,
        caller: Caller,
        workspace_id: str,
        *,
        initial: str | None = None,
        token: str | None = None,
        content_type: str | None = None,
        locale: str | None = None,
        version: str | None = None,
        clock: Clock | None = None,
    ) -> SyncRequest:
        """`initial=true` (with an optional `type`, `locale` and `version`) starts a sync;
        `token` (alone) continues one."""
        require_read(caller)
        if token is not None:
            if initial is not None or content_type or locale or version:
                raise BadRequest("token: a sync token carries its own type, locale and version")
            decoded = decode_token(token)
            parse_view(caller, decoded.view)
            return cls(caller, workspace_id, decoded, False)
        if initial != "true":
            raise BadRequest(
                "initial: pass initial=true to start a sync, or the token of a nextPageUrl or "
                "nextSyncUrl to continue one"
            )
        if locale is not None and not is_locale(locale):
            raise BadRequest("locale: not a locale")
        now = (clock or SystemClock()).now()
        start = SyncToken(
            view=parse_view(caller, version),
            content_type=content_type or None,
            locale=locale or None,
            position=iso_utc(now - _settle_seconds()),
            walk=_START,
        )
        return cls(caller, workspace_id, start, True)


def _settle_seconds() -> float:
    return runtime.settings().delivery.sync_settle_ms / 1000


def sync(request: SyncRequest, clock: Clock | None = None) -> SyncPage:
    """The page the request names: of an initial sync while its token walks the lists, else a
    delta."""
    if request.token.walk is not None:
        return _initial_page(request)
    return _delta(request, (clock or SystemClock()).now())


# ---------------------------------------------------------------------------------------------
# The initial sync


def _partitions(request: SyncRequest) -> list[tuple[ContentType, str]]:
    """Every (type, locale) the sync covers, in order: the caller's types and the assets,
    narrowed to the token's type and locale."""
    caller, token = request.caller, request.token
    types = list(visible_schema(caller, request.workspace_id).types.values())
    assets = get_type(request.workspace_id, ASSET_TYPE) if caller.grants(ASSET_TYPE) else None
    types += [assets] if assets is not None else []
    chosen = [t for t in types if token.content_type in (None, t.name)]
    if request.initial and token.content_type is not None and not chosen:
        raise NotFound(f"content type {token.content_type[:64]!r} not found")
    pairs = [(t, loc) for t in chosen for loc in t.locales if token.locale in (None, loc)]
    return sorted(pairs, key=lambda pair: (pair[0].name, pair[1]))


def _initial_page(request: SyncRequest) -> SyncPage:
    """Up to a list page of the walk's (type, locale), passing at most PARTITIONS_PER_PAGE
    empty ones; `nextPageUrl` while lists remain, else `nextSyncUrl` from the position the
    sync started at (a delta then repeats what changed while the lists were read)."""
    token = request.token
    walk = token.walk or _START
    pairs = _partitions(request)
    keys = [(t.name, loc) for t, loc in pairs]
    index = next((i for i, key in enumerate(keys) if key >= (walk.content_type, walk.locale)), None)
    page = SyncPage()
    cursor = walk.cursor
    for _ in range(PARTITIONS_PER_PAGE):
        if index is None or index >= len(pairs):
            page.next_sync = replace(token, walk=None)
            return page
        content_type, locale = pairs[index]
        if keys[index] != (walk.content_type, walk.locale):
            cursor = None
        listed = list_entries(
            ListRequest.parse(
                request.caller,
                request.workspace_id,
                content_type.name,
                page_size=MAX_PAGE_SIZE,
                locale=locale,
                cursor=cursor,
                version=token.view,
            )
        )
        page.add(request.caller, request.workspace_id, listed.items)
        if listed.next_cursor is not None:
            page.next_page = replace(
                token, walk=Walk(content_type.name, locale, listed.next_cursor)
            )
            return page
        index += 1
        if page.entries or page.assets:
            break
    _continue_walk(page, token, keys, index)
    return page


def _continue_walk(
    page: SyncPage, token: SyncToken, keys: list[tuple[str, str]], index: int | None
) -> None:
    """Where the walk goes after a page: the (type, locale) at `index`, or the deltas."""
    if index is None or index >= len(keys):
        page.next_sync = replace(token, walk=None)
    else:
        page.next_page = replace(token, walk=Walk(keys[index][0], keys[index][1], None))


# ---------------------------------------------------------------------------------------------
# Deltas


def _wanted(request: SyncRequest, change: Change) -> bool:
    """A change the token follows: of a type the caller may read and the token's type and
    locale; for the published view, only one that moved a published version."""
    token = request.token
    return (
        request.caller.grants(change.content_type)
        and token.content_type in (None, change.content_type)
        and token.locale in (None, change.locale)
        and (token.view == "latest" or change.published)
    )


def _delta(request: SyncRequest, now: float) -> SyncPage:
    """The changes since the token's position that have settled, each entry once in its
    current version (or as deleted), and the token of what follows."""
    token = request.token
    if parse_iso_utc(token.time) < now - RETENTION_SECONDS:
        raise Gone(
            f"this sync token is older than the {RETENTION_DAYS} days the change log keeps: "
            "start an initial sync (initial=true)"
        )
    cutoff = iso_utc(now - _settle_seconds())
    if cutoff <= token.position:
        return SyncPage(next_sync=token)
    changes, more = read_changes(request.workspace_id, token.position, cutoff, DELTA_PAGE_SIZE)
    page = SyncPage()
    latest = {c.entry_id: c for c in changes if _wanted(request, c)}
    _answer(request, page, list(latest.values()))
    following = replace(token, position=changes[-1].sk if more and changes else cutoff)
    if more:
        page.next_page = following
    else:
        page.next_sync = following
    return page


def _answer(request: SyncRequest, page: SyncPage, changes: list[Change]) -> None:
    """Each changed entry as it is now in the token's view, or its id among the deleted."""
    view, workspace_id = request.token.view, request.workspace_id
    types = get_types(workspace_id, {c.content_type for c in changes})
    fetched = fetch_entries(workspace_id, (c.entry_id for c in changes), None, None, view)
    for change in changes:
        content_type, stored = types.get(change.content_type), fetched.get(change.entry_id)
        if (
            content_type is not None
            and stored is not None
            and stored_visible(request.caller, content_type, stored, view)
        ):
            page.add(request.caller, workspace_id, [entry_view(content_type, stored, view=view)])
        else:
            page.gone(change)
