"""The content pages: the workspace's content types with their counts, a type's entries, and
the entry editor (docs/admin-ui.md, "Content pages").

Every signed-in user may open them (editors write content; decisions.md D25); a signed-out
visitor is sent to sign in and back, an API token gets a 403 page. The pages read through the
content service, with the signed-in user as the caller, exactly as the API would answer them;
every write is the editor script's `fetch` to the content API (`/api/v1/content/...`), behind
the origin guard like any other write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from content_service.api import pages
from content_service.api.auth import OptionalCallerDep
from content_service.api.builtin_types import USER_TYPES_ONLY
from content_service.api.routes import content_page_views as views
from content_service.api.routes.admin_views import when
from content_service.assets.builtin_type import asset_definition
from content_service.content import service
from content_service.content.entries import Entry, is_entry_id
from content_service.content.lists import MAX_CURSOR_LENGTH
from content_service.content.relations import LinkedFromRequest, LinkerPage
from content_service.content.requests import DEFAULT_LOCALE, GetRequest, ListRequest, is_locale
from content_service.content.schema import ASSET_TYPE, ContentType
from content_service.content.writes import is_own
from content_service.errors import BadRequest, NotFound
from content_service.identity.permissions import permissions_for
from content_service.identity.principal import UserCaller
from content_service.identity.roles import CREATE
from content_service.identity.workspaces import list_workspaces

router = APIRouter(include_in_schema=False, dependencies=USER_TYPES_ONLY)

LIST_PAGE_SIZE = 25
# How many linking entries an entry's page lists (the API pages through all of them).
_LINKERS_SHOWN = 20
MAX_SEARCH = 200

SECTION = pages.Section("/content", "Back to the content")


def _base(caller: UserCaller, ws: pages.PageWorkspace) -> dict[str, Any]:
    return {"caller": caller, "nav": "content", "ws": ws, "is_admin": caller.role == "admin"}


@router.get("/content", response_class=HTMLResponse)
def content_page(
    request: Request, caller: OptionalCallerDep, workspace: pages.WorkspaceQuery = None
) -> Response:
    page = SECTION.open(request, caller, workspace)
    if isinstance(page, Response):
        return page
    gate, ws = page
    counts = service.count_by_state(gate, ws.id)
    workspaces = sorted(list_workspaces(), key=lambda w: (w.slug != "default", w.name.lower()))
    permissions = permissions_for(gate, ws.id)
    creatable = {
        c.content_type.name for c in counts if permissions.allows(CREATE, c.content_type.name)
    }
    return pages.render(
        request,
        "content/index.html",
        {**_base(gate, ws), "counts": counts, "workspaces": workspaces, "creatable": creatable},
    )


def _list_filter(content_type: ContentType, state: str, search: str) -> str | None:
    conditions: list[dict[str, Any]] = []
    if state:
        conditions.append({"field": "status", "op": "eq", "value": state})
    if search and content_type.title_field:
        conditions.append({"field": content_type.title_field, "op": "contains", "value": search})
    return json.dumps({"and": conditions}) if conditions else None


def _locales(content_type: ContentType) -> list[str]:
    return sorted(content_type.locales | {DEFAULT_LOCALE})


@dataclass(frozen=True)
class _EntryListing:
    """One filtered list of a type's entries as the entries page asks for it."""

    caller: UserCaller
    workspace_id: str
    definition: ContentType
    state: str
    search: str
    locale: str | None

    def _list(self, cursor: str | None) -> Any:
        fields = [self.definition.title_field] if self.definition.title_field else []
        return service.list_entries(
            ListRequest.parse(
                self.caller,
                self.workspace_id,
                self.definition.name,
                page_size=LIST_PAGE_SIZE,
                filter=_list_filter(self.definition, self.state, self.search),
                fields=fields,
                locale=self.locale,
                cursor=cursor,
            )
        )

    def page(self, cursor: str | None) -> tuple[Any, str | None, str | None]:
        """The page at `cursor`, the notice shown when that cursor was stale (the newest page
        is shown instead), and the error shown when the list itself was refused (no page)."""
        try:
            return self._list(cursor), None, None
        except BadRequest as refused:
            if cursor:
                notice = "That page of the list is no longer available; showing the newest entries."
                return self._list(None), notice, None
            return None, None, refused.message

    def can_create(self, page: Any) -> bool:
        """A single's list offers no New button once its one entry exists (seen unfiltered)."""
        return not (
            self.definition.is_single
            and page is not None
            and page.total > 0
            and not self.state
            and not self.search
        )


@router.get("/content/{content_type}", response_class=HTMLResponse)
def entries_page(
    request: Request,
    content_type: str,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
    state: Annotated[str | None, Query(max_length=20)] = None,
    locale: Annotated[str | None, Query(max_length=16)] = None,
    q: Annotated[str | None, Query(max_length=MAX_SEARCH)] = None,
    cursor: Annotated[str | None, Query(max_length=MAX_CURSOR_LENGTH)] = None,
) -> Response:
    page = SECTION.open_type(request, caller, workspace, content_type)
    if isinstance(page, Response):
        return page
    gate, ws, definition = page
    state = state if state in views.STATES else ""
    locale = locale if is_locale(locale) else DEFAULT_LOCALE
    search = (q or "").strip()
    listing = _EntryListing(gate, ws.id, definition, state, search, locale)
    page, notice, error = listing.page(cursor or None)
    filters = {"state": state, "locale": locale if locale != DEFAULT_LOCALE else "", "q": search}
    older = (
        ws.link(request.url.path, **filters, cursor=page.next_cursor)
        if page and page.next_cursor
        else None
    )
    return pages.render(
        request,
        "content/entries.html",
        {
            **_base(gate, ws),
            "type": definition,
            "rows": [views.entry_row(definition, e) for e in page.items] if page else [],
            "total": page.total if page else 0,
            "state": state,
            "locale": locale,
            "search": search,
            "locales": _locales(definition),
            "state_filters": views.STATE_FILTERS,
            "filtered": bool(state or search),
            "paged": bool(cursor),
            "older_href": older,
            "newest_href": ws.link(request.url.path, **filters),
            "new_href": ws.link(f"/content/{definition.name}/new", locale=filters["locale"]),
            "can_create": listing.can_create(page)
            and permissions_for(gate, ws.id).allows(CREATE, definition.name, locale=locale or None),
            "notice": notice,
            "error": error,
        },
    )


# -- the entry editor ----------------------------------------------------------------------------


def _editor(
    request: Request,
    caller: UserCaller,
    ws: pages.PageWorkspace,
    definition: ContentType,
    entry_json: dict[str, Any] | None,
    relations: dict[str, Any],
    new: dict[str, Any] | None = None,
    linked_from: LinkerPage | None = None,
) -> Response:
    """The editor over `entry_json` (None: a new entry, `new` saying where it goes) and, for a
    stored entry, the first entries that link it."""
    # Asset fields pick from the media library: the built-in type is their target.
    types = {**service.visible_schema(caller, ws.id).types, ASSET_TYPE: asset_definition(ws.id)}
    entry_values: dict[str, Any] = (
        (entry_json or {}).get("values") or (new or {}).get("values") or {}
    )
    controls = views.controls(definition, entry_values, relations, types)
    data = views.editor_data(
        workspace_id=ws.id,
        workspace_query=ws.link("").lstrip("?"),
        content_type=definition,
        entry_json=entry_json,
        entry_values=entry_values,
        page_controls=controls,
        types=types,
        new={k: v for k, v in (new or {}).items() if k != "values"},
    )
    translations = []
    group = (entry_json or {}).get("localeGroupId") or (new or {}).get("localeGroupId")
    if definition.localized and group:
        translations = service.locale_group(caller, ws.id, definition.name, group)
    locale = (entry_json or {}).get("locale") or (new or {}).get("locale") or DEFAULT_LOCALE
    title = views.entry_title(definition, entry_values) if entry_json else ""
    return pages.render(
        request,
        "content/entry.html",
        {
            **_base(caller, ws),
            "type": definition,
            "entry": entry_json,
            "title": title,
            "heading": title
            or (f"Untitled {definition.name}" if entry_json else f"New {definition.name} entry"),
            "crumb": title or ("Untitled" if entry_json else "New entry"),
            "controls": controls,
            "data": data.to_json(),
            "locale": locale,
            "translations": translations,
            "other_locales": [
                other
                for other in _locales(definition)
                if other not in {t.locale for t in translations} | {locale}
            ],
            **_state(entry_json),
            "linked_from": linked_from,
        },
    )


def _state(entry_json: dict[str, Any] | None) -> dict[str, Any]:
    """What the status card shows of a stored entry (or of a new one)."""
    status = (entry_json or {}).get("status", "")
    return {
        "state_label": views.state_label(status) if status else "New",
        "state_tone": views.state_tone(status),
        "changed": views.changed(entry_json) if entry_json else None,
        "created_at": when((entry_json or {}).get("createdAt")),
        "published_at": when((entry_json or {}).get("publishedAt")),
    }


def _relations(entry: Any) -> dict[str, Any]:
    return dict(entry.relations or {})


def _with_relations(
    gate: UserCaller, ws: pages.PageWorkspace, definition: ContentType, entry_id: str
) -> Entry:
    """An entry as the editor shows it: every relation expanded (NotFound when not visible)."""
    expand = [f.name for f in definition.relation_fields]
    return service.get_entry(
        GetRequest.parse(gate, ws.id, definition.name, entry_id, expand=expand)
    )


@router.get("/content/{content_type}/new", response_class=HTMLResponse)
def new_entry_page(
    request: Request,
    content_type: str,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
    locale: Annotated[str | None, Query(max_length=16)] = None,
    translation_of: Annotated[str | None, Query(alias="translationOf", max_length=64)] = None,
) -> Response:
    page = SECTION.open_type(request, caller, workspace, content_type)
    if isinstance(page, Response):
        return page
    gate, ws, definition = page
    chosen = locale if definition.localized and is_locale(locale) else DEFAULT_LOCALE
    if not (translation_of and is_entry_id(translation_of) and definition.localized):
        return _editor(request, gate, ws, definition, None, {}, {"locale": chosen})
    try:
        source = _with_relations(gate, ws, definition, translation_of)
    except NotFound:
        return pages.not_found(
            request, gate, "entry", ws.link(f"/content/{definition.name}"), "Back to the list"
        )
    existing = {
        t.locale: t.id
        for t in service.locale_group(gate, ws.id, definition.name, source.locale_group_id)
    }
    if chosen in existing:
        return RedirectResponse(ws.link(f"/content/{definition.name}/{existing[chosen]}"), 303)
    new = {
        "locale": chosen,
        "localeGroupId": source.locale_group_id,
        "translationOf": {"id": source.id, "locale": source.locale},
        "values": dict(source.values),
    }
    return _editor(request, gate, ws, definition, None, _relations(source), new)


@router.get("/content/{content_type}/{entry_id}", response_class=HTMLResponse)
def entry_page(
    request: Request,
    content_type: str,
    entry_id: str,
    caller: OptionalCallerDep,
    workspace: pages.WorkspaceQuery = None,
) -> Response:
    page = SECTION.open_type(request, caller, workspace, content_type)
    if isinstance(page, Response):
        return page
    gate, ws, definition = page
    back = ws.link(f"/content/{definition.name}")
    if not is_entry_id(entry_id):
        return pages.not_found(request, gate, "entry", back, "Back to the list")
    try:
        entry = _with_relations(gate, ws, definition, entry_id)
    except NotFound:
        return pages.not_found(request, gate, "entry", back, "Back to the list")
    linked = service.linked_from(
        LinkedFromRequest.parse(gate, ws.id, definition.name, entry.id, page_size=_LINKERS_SHOWN)
    )
    # Whether the signed-in user created it, for rules limited to their own entries.
    entry_json = {**entry.to_json(), "own": is_own(gate, entry.created_by)}
    return _editor(request, gate, ws, definition, entry_json, _relations(entry), linked_from=linked)
