"""The webhook admin pages (docs/admin-ui.md), server-rendered for administrators.

Every page needs `webhooks:read`: a signed-out visitor is sent to `/login?next=<this page>`
(303), a signed-in user without the permission or an API token gets a 403 page. The pages only
read, through the same `EndpointRegistry` the JSON API uses; every write is made by the page's
script with `fetch` against the webhooks API (`/api/webhooks/...`), so each write has exactly
one implementation and sits behind the origin guard like any other API write.

Pages carry the strict Content-Security-Policy every page gets (`api.security_headers`: scripts
and styles from this origin only, no inline script, never framed) and are never cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from content_service import runtime
from content_service.api.auth import OptionalCallerDep
from content_service.api.routes import admin_views as views
from content_service.api.routes import health_chart
from content_service.api.templating import templates
from content_service.clock import iso_utc
from content_service.errors import BadRequest, NotFound
from content_service.identity.principal import WEBHOOKS_MANAGE, WEBHOOKS_READ, Caller
from content_service.identity.workspaces import list_workspaces
from content_service.webhooks import wiring
from content_service.webhooks.deliveries import (
    DEFAULT_STATUSES,
    RECOVERABLE_STATUSES,
    LogSearch,
    Page,
)
from content_service.webhooks.endpoints import (
    CATALOGUE,
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    SNIPPETS,
    STANDARD_SNIPPETS,
    STATS_WINDOWS,
    Endpoint,
    EndpointRegistry,
    parse_instant,
    rules_json,
)

router = APIRouter(include_in_schema=False)

# The security headers (CSP, frame and sniffing rules) come from `api.security_headers`.
PAGE_HEADERS = {"Cache-Control": "no-store"}

CHART_WINDOWS = (("24h", "24 hours"), ("7d", "7 days"))
# The rotation dialog's grace periods (seconds): the none, 1 h, 24 h and 7 days.
GRACE_CHOICES = (
    (0, "None: the current secret stops now"),
    (3600, "1 hour"),
    (86400, "24 hours"),
    (604800, "7 days"),
)

# `?done=<key>` after a write the script made: a fixed message, never text from the URL.
NOTICES = {
    "saved": "Changes saved.",
    "created": "Endpoint created.",
    "deleted": "Endpoint deleted.",
    "reenabled": (
        "Endpoint re-enabled; its count of dead deliveries is cleared. Deliveries that failed "
        "while it was down can be recovered now."
    ),
    "redelivered": "Redelivery queued: the new delivery is at the top of the log.",
}


def _page(
    request: Request,
    template: str,
    context: dict[str, Any],
    status_code: int = 200,
) -> Response:
    response = templates().TemplateResponse(request, template, context, status_code=status_code)
    response.headers.update(PAGE_HEADERS)
    return response


def _gate(request: Request, caller: Caller | None) -> Caller | Response:
    """The caller when it may read webhooks; otherwise the redirect or 403 page to answer."""
    if caller is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
    if caller.has_permission(WEBHOOKS_READ):
        return caller
    if caller.kind == "token":
        reason = (
            "API tokens cannot open the admin pages. Sign in with an administrator account "
            "in a browser instead."
        )
    else:
        reason = (
            f"You are signed in as {caller.email} with the {caller.role} role. "
            "You need the admin role to see and manage webhooks."
        )
    return _page(
        request,
        "forbidden.html",
        {"caller": caller if caller.kind == "user" else None, "reason": reason},
        status_code=403,
    )


def _not_found(request: Request, caller: Caller, what: str) -> Response:
    return _page(
        request,
        "admin/not_found.html",
        {"caller": caller, "what": what},
        status_code=404,
    )


def _registry() -> EndpointRegistry:
    return EndpointRegistry(runtime.settings())


def _base(caller: Caller, done: str | None) -> dict[str, Any]:
    return {
        "caller": caller,
        "nav": "webhooks",
        "notice": NOTICES.get(done or ""),
        "done": done if done in NOTICES else None,
        "can_manage": caller.has_permission(WEBHOOKS_MANAGE),
    }


@router.get("/webhooks", response_class=HTMLResponse)
def webhooks_page(
    request: Request,
    caller: OptionalCallerDep,
    enabled: Annotated[str | None, Query(max_length=20)] = None,
    event: Annotated[str | None, Query(max_length=100)] = None,
    q: Annotated[str | None, Query(max_length=views.MAX_FILTER_TEXT)] = None,
    done: Annotated[str | None, Query(max_length=20)] = None,
) -> Response:
    gate = _gate(request, caller)
    if isinstance(gate, Response):
        return gate
    filters = views.ListFilters.parse(enabled, event, q)
    labels = views.workspace_labels(list_workspaces())
    listed = _registry().list()

    registry = _registry()
    rows = [
        {
            "endpoint": endpoint,
            "workspaces": views.workspaces_summary(endpoint, labels, shown=3),
            "events": views.events_summary(endpoint.events),
            "content_types": views.content_types_summary(endpoint.content_types),
            "latest": views.outcome(latest),
            "health": views.health_view(registry.health(endpoint.id)),
        }
        for endpoint, latest in reversed(listed)
        if filters.accepts(endpoint)
    ]
    return _page(
        request,
        "admin/webhooks_list.html",
        {
            **_base(gate, done),
            "rows": rows,
            "total": len(listed),
            "filters": filters,
            "enabled_filters": views.ENABLED_FILTERS,
            "event_kinds": [k["kind"] for k in views.subscribable_kinds()],
        },
    )


def _editor_context(caller: Caller, endpoint: Endpoint | None) -> dict[str, Any]:
    workspaces = views.ordered_workspaces(list_workspaces())
    known = {w.id for w in workspaces}
    unknown = [w for w in endpoint.workspaces if w not in known] if endpoint else []
    return {
        **_base(caller, None),
        "endpoint": endpoint,
        "headers": list(endpoint.header_values().items()) if endpoint else [],
        "workspaces": workspaces,
        "unknown_workspaces": unknown,
        "kinds": views.subscribable_kinds(),
        "system_kinds": views.unsubscribable_kinds(),
        "header_rules": rules_json(),
        "url_policy": views.url_policy_view(runtime.settings().webhooks),
        "event_buses": runtime.settings().webhooks.eventbridge_buses,
    }


@router.get("/webhooks/new", response_class=HTMLResponse)
def new_webhook_page(request: Request, caller: OptionalCallerDep) -> Response:
    gate = _gate(request, caller)
    if isinstance(gate, Response):
        return gate
    return _page(request, "admin/webhook_editor.html", _editor_context(gate, None))


@router.get("/webhooks/{endpoint_id}/edit", response_class=HTMLResponse)
def edit_webhook_page(request: Request, endpoint_id: str, caller: OptionalCallerDep) -> Response:
    gate = _gate(request, caller)
    if isinstance(gate, Response):
        return gate
    try:
        endpoint = _registry().get(endpoint_id)
    except NotFound:
        return _not_found(request, gate, "webhook endpoint")
    return _page(request, "admin/webhook_editor.html", _editor_context(gate, endpoint))


def _page_instant(value: str | None) -> str | None:
    """A time from the log's filter form: ISO 8601, read as UTC when it names no zone (the
    form's `datetime-local` fields are labelled UTC). None when empty or unreadable."""
    text = (value or "").strip()
    if not text:
        return None
    try:
        return iso_utc(parse_instant(text, "time"))
    except ValueError:
        try:
            return iso_utc(parse_instant(text + "Z", "time"))
        except ValueError:
            return None


def _form_time(iso: str | None) -> str:
    """An ISO time as a `datetime-local` field shows it (UTC, to the minute)."""
    return iso[:16] if iso else ""


def _log_search(
    event_id: str | None, entry_id: str | None, since: str | None, until: str | None
) -> LogSearch:
    return LogSearch(
        event_id=(event_id or "").strip() or None,
        entry_id=(entry_id or "").strip() or None,
        since_iso=_page_instant(since),
        until_iso=_page_instant(until),
    )


def _log_page(
    registry: EndpointRegistry,
    endpoint_id: str,
    status: str | None,
    event: str | None,
    cursor: str | None,
    limit: int,
    search: LogSearch,
) -> tuple[Page, str | None]:
    """The page of the delivery log asked for, and the notice shown when its cursor was stale."""
    try:
        page = registry.deliveries(
            endpoint_id,
            status=status,
            event=event,
            cursor=cursor or None,
            limit=limit,
            search=search,
        )
    except BadRequest:
        # A stale or edited cursor: show the newest page rather than an error page.
        page = registry.deliveries(
            endpoint_id, status=status, event=event, limit=limit, search=search
        )
        return page, "That page of the log is no longer available; showing the newest deliveries."
    return page, None


@dataclass(frozen=True)
class _LogLinks:
    """The links of the delivery log page: paging, chart windows and the live API query, each
    keeping the filters shown."""

    window: str
    chart_windows: list[tuple[str, str, str]]
    older: str | None
    newest: str
    live_query: str

    @classmethod
    def build(
        cls,
        status: str | None,
        event: str | None,
        search: LogSearch,
        limit: int,
        chart: str | None,
        next_cursor: str | None,
    ) -> _LogLinks:
        filters = {
            k: v
            for k, v in (
                ("status", status),
                ("event", event),
                ("eventId", search.event_id),
                ("entryId", search.entry_id),
                ("since", _form_time(search.since_iso)),
                ("until", _form_time(search.until_iso)),
            )
            if v
        }
        if limit != DEFAULT_PAGE_SIZE:
            filters["limit"] = str(limit)
        window = chart if chart in STATS_WINDOWS else "24h"
        chart_windows = [
            (key, label, "?" + urlencode({**filters, "chart": key})) for key, label in CHART_WINDOWS
        ]
        if window != "24h":
            filters["chart"] = window
        older = f"?{urlencode({**filters, 'cursor': next_cursor})}" if next_cursor else None
        api_query = {k: v for k, v in filters.items() if k not in ("since", "until")}
        if search.since_iso:
            api_query["since"] = search.since_iso
        if search.until_iso:
            api_query["until"] = search.until_iso
        return cls(
            window=window,
            chart_windows=chart_windows,
            older=older,
            newest=f"?{urlencode(filters)}" if filters else "?",
            live_query=urlencode(api_query),
        )


def _endpoint_context(endpoint: Endpoint, now: float) -> dict[str, Any]:
    """What the endpoint page shows of the endpoint itself: its subscription and secrets."""
    labels = views.workspace_labels(list_workspaces())
    return {
        "endpoint": endpoint,
        "workspaces": views.workspaces_summary(endpoint, labels),
        "events": views.events_summary(endpoint.events),
        "content_types": views.content_types_summary(endpoint.content_types),
        "created_at": views.when(endpoint.created_at),
        "updated_at": views.when(endpoint.updated_at),
        "older_secrets": [
            {
                "hint": o.to_json()["secretHint"],
                "iso": o.expires_at,
                "at": views.when(o.expires_at),
            }
            for o in endpoint.secrets.valid_older(now)
        ],
        "paused_until": views.when(endpoint.paused_until),
        "grace_choices": GRACE_CHOICES,
    }


def _tools_context(endpoint: Endpoint, now: float) -> dict[str, Any]:
    """The forms of the endpoint page: the log's filters, test events, recovery and the
    verification snippets."""
    return {
        "statuses": views.log_statuses(),
        "status_labels": views.STATUS_LABEL,
        "log_kinds": views.log_event_kinds(),
        "test_kinds": [e.kind for e in CATALOGUE],
        "recover_since": _form_time(iso_utc(now - 24 * 3600)),
        "recoverable": RECOVERABLE_STATUSES,
        "recover_defaults": DEFAULT_STATUSES,
        "snippets": SNIPPETS,
        "standard_snippets": STANDARD_SNIPPETS,
        "now_iso": iso_utc(now),
    }


@router.get("/webhooks/{endpoint_id}", response_class=HTMLResponse)
def webhook_page(
    request: Request,
    endpoint_id: str,
    caller: OptionalCallerDep,
    status: Annotated[str | None, Query(max_length=20)] = None,
    event: Annotated[str | None, Query(max_length=100)] = None,
    cursor: Annotated[str | None, Query(max_length=2000)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = DEFAULT_PAGE_SIZE,
    done: Annotated[str | None, Query(max_length=20)] = None,
    event_id: Annotated[str | None, Query(alias="eventId", max_length=100)] = None,
    entry_id: Annotated[str | None, Query(alias="entryId", max_length=100)] = None,
    since: Annotated[str | None, Query(max_length=64)] = None,
    until: Annotated[str | None, Query(max_length=64)] = None,
    chart: Annotated[str | None, Query(max_length=10)] = None,
) -> Response:
    gate = _gate(request, caller)
    if isinstance(gate, Response):
        return gate
    registry = _registry()
    try:
        endpoint = registry.get(endpoint_id)
    except NotFound:
        return _not_found(request, gate, "webhook endpoint")
    status = status if status in views.log_statuses() else None
    event = event if event in views.log_event_kinds() else None
    search = _log_search(event_id, entry_id, since, until)
    page, log_error = _log_page(registry, endpoint.id, status, event, cursor, limit, search)
    if log_error:
        cursor = None
    links = _LogLinks.build(status, event, search, limit, chart, page.next_cursor)
    now = wiring.dependencies().clock.now()
    max_attempts = runtime.settings().webhooks.max_attempts
    return _page(
        request,
        "admin/webhook_detail.html",
        {
            **_base(gate, done),
            **_endpoint_context(endpoint, now),
            "deliveries": [views.delivery_view(r, now, max_attempts) for r in page.items],
            "status_filter": status or "",
            "event_filter": event or "",
            "search": search,
            "since_value": _form_time(search.since_iso),
            "until_value": _form_time(search.until_iso),
            "filtered": bool(status or event or search != LogSearch()),
            "paged": bool(cursor),
            "older_href": links.older,
            "newest_href": links.newest,
            "log_error": log_error,
            "limit": limit,
            "default_limit": DEFAULT_PAGE_SIZE,
            "live_query": links.live_query,
            "max_attempts": max_attempts,
            **_tools_context(endpoint, now),
            "chart": health_chart.build(registry.stats(endpoint.id, links.window)),
            "chart_windows": links.chart_windows,
        },
    )
