"""What the webhook admin pages show, prepared in Python so the templates stay plain.

Everything here is a pure function of service records (no storage access): summaries of an
endpoint's subscriptions, the outcome of its latest delivery, a delivery log row with its
pretty-printed frozen body, and the list page's filters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from content_service.clock import parse_iso_utc
from content_service.identity.workspaces import Workspace
from content_service.settings import WebhookOptions
from content_service.webhooks.deliveries import STATUSES, AttemptRecord, DeliveryRow
from content_service.webhooks.endpoints import CATALOGUE, SUBSCRIBABLE_KINDS, Endpoint, Health
from content_service.webhooks.sending import LADDER_SECONDS

ENABLED_FILTERS: tuple[tuple[str, str], ...] = (
    ("", "Any state"),
    ("enabled", "Enabled"),
    ("disabled", "Disabled"),
)
MAX_FILTER_TEXT = 200

# Badge tone per delivery status (CSS classes in static/admin/admin.css).
STATUS_TONE = {
    "pending": "neutral",
    "delivering": "info",
    "succeeded": "ok",
    "failed": "warn",
    "dead": "danger",
}
STATUS_LABEL = {
    "pending": "Pending",
    "delivering": "Delivering",
    "succeeded": "Succeeded",
    "failed": "Failed, will retry",
    "dead": "Dead",
}


def when(iso: str | None) -> str:
    """`2024-05-01T12:34:56.789Z` as `2024-05-01 12:34:56 UTC`; empty for no time."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return iso
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def span(seconds: float) -> str:
    """A duration as people say it: `45 s`, `5 min`, `2 h`, `3 days`."""
    seconds = abs(seconds)
    if seconds < 60:
        return f"{round(seconds)} s"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    if seconds < 86400:
        hours = seconds / 3600
        return f"{hours:.1f} h".replace(".0 h", " h")
    return f"{round(seconds / 86400)} days"


def relative(iso: str | None, now: float) -> str:
    """`3 min ago`, `in 58 s`, `just now`; empty for no time. The page script refreshes it."""
    if not iso:
        return ""
    try:
        delta = parse_iso_utc(iso) - now
    except ValueError:
        return ""
    if abs(delta) < 1:
        return "just now"
    return f"in {span(delta)}" if delta > 0 else f"{span(delta)} ago"


def workspace_labels(workspaces: Iterable[Workspace]) -> dict[str, str]:
    """Workspace id -> `name` (or `name (slug)` when they differ)."""
    labels = {}
    for workspace in workspaces:
        same = workspace.name == workspace.slug
        labels[workspace.id] = workspace.name if same else f"{workspace.name} ({workspace.slug})"
    return labels


def ordered_workspaces(workspaces: Iterable[Workspace]) -> list[Workspace]:
    """`default` first, then by name: the order of the editor's workspace picker."""
    return sorted(workspaces, key=lambda w: (w.slug != "default", w.name.lower(), w.slug))


def url_policy_view(options: WebhookOptions) -> dict[str, bool]:
    """The URL policy in force, for the editor's help text (it names the settings that are on,
    so the text never says "must use https" where http is allowed)."""
    return {
        "insecure": options.allow_insecure_urls,
        "private": options.allow_private_networks,
    }


def events_summary(events: Sequence[str]) -> str:
    return ", ".join(events) if events else "All event kinds"


def content_types_summary(content_types: Sequence[str]) -> str:
    return ", ".join(content_types) if content_types else "All content types"


def workspaces_summary(
    endpoint: Endpoint, labels: Mapping[str, str], shown: int | None = None
) -> str:
    """The workspaces by name; with `shown`, the first few and how many more."""
    if endpoint.all_workspaces:
        return "All workspaces"
    if not endpoint.workspaces:
        return "No workspace (receives nothing)"
    names = [labels.get(w, f"unknown workspace {w}") for w in endpoint.workspaces]
    if shown is not None and len(names) > shown:
        return f"{', '.join(names[:shown])} and {len(names) - shown} more"
    return ", ".join(names)


@dataclass(frozen=True)
class Outcome:
    """A delivery's outcome as one badge and one line."""

    status: str
    label: str
    tone: str
    detail: str
    at: str


def outcome(row: DeliveryRow | None) -> Outcome | None:
    if row is None:
        return None
    parts = [row.event]
    if row.last_status_code is not None:
        parts.append(f"HTTP {row.last_status_code}")
    elif row.last_error:
        parts.append(row.last_error)
    if row.attempts:
        parts.append(f"{row.attempts} attempt{'s' if row.attempts != 1 else ''}")
    return Outcome(
        status=row.status,
        label=STATUS_LABEL.get(row.status, row.status),
        tone=STATUS_TONE.get(row.status, "neutral"),
        detail=" · ".join(parts),
        at=when(row.updated_at or row.created_at),
    )


@dataclass(frozen=True)
class ListFilters:
    enabled: str = ""
    event: str = ""
    text: str = ""

    @classmethod
    def parse(cls, enabled: str | None, event: str | None, text: str | None) -> ListFilters:
        """Unknown values mean "no filter" rather than an error page."""
        state = enabled if enabled in ("enabled", "disabled") else ""
        kind = event if event in SUBSCRIBABLE_KINDS else ""
        return cls(state, kind, (text or "").strip()[:MAX_FILTER_TEXT])

    @property
    def active(self) -> bool:
        return bool(self.enabled or self.event or self.text)

    def accepts(self, endpoint: Endpoint) -> bool:
        if self.enabled == "enabled" and not endpoint.enabled:
            return False
        if self.enabled == "disabled" and endpoint.enabled:
            return False
        # An empty event set means every kind, so such an endpoint receives the chosen kind.
        if self.event and endpoint.events and self.event not in endpoint.events:
            return False
        return not self.text or self.text.lower() in endpoint.destination.lower()


def subscribable_kinds() -> list[dict[str, Any]]:
    """The catalogue rows the editor offers, in catalogue order (docs/webhooks.md)."""
    return [
        {"kind": e.kind, "group": e.group, "filteredByContentType": e.filtered_by_content_type}
        for e in CATALOGUE
        if e.kind in SUBSCRIBABLE_KINDS
    ]


def unsubscribable_kinds() -> list[str]:
    return [e.kind for e in CATALOGUE if e.kind not in SUBSCRIBABLE_KINDS]


def log_event_kinds() -> list[str]:
    """Every kind a log row can carry (the log filter), `ping` included."""
    return [e.kind for e in CATALOGUE]


def log_statuses() -> tuple[str, ...]:
    return STATUSES


def pretty_body(body: str) -> str:
    """The frozen envelope indented for reading; the exact text if it is not JSON."""
    try:
        return json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except ValueError:
        return body


@dataclass(frozen=True)
class DeliveryView:
    """A delivery row as the log shows it: the row, and its times and state in words."""

    row: DeliveryRow
    label: str
    tone: str
    created_at: str
    updated_at: str
    next_attempt_at: str
    body: str
    attempt_log: tuple[AttemptRecord, ...]
    """The row's attempts, each `at` in words."""
    title: str | None
    created_relative: str
    next_attempt_iso: str
    next_attempt_relative: str
    progress: str
    later_steps: str


def _title(body: str) -> str | None:
    try:
        data = json.loads(body).get("data")
    except (ValueError, AttributeError):
        return None
    if isinstance(data, dict):
        title = data.get("title")
        kind = data.get("contentType")
        if isinstance(title, str) and isinstance(kind, str):
            return f"{kind}: {title}"
        if isinstance(title, str):
            return title
    return None


def progress(row: DeliveryRow, max_attempts: int) -> tuple[str, str]:
    """`Attempt 2 of 6` with what it came to, and the ladder's waits after the next attempt."""
    n = row.attempts
    if row.status == "pending":
        return f"Attempt 1 of {max_attempts} not made yet", ""
    if row.status == "delivering":
        return f"Attempt {n} of {max_attempts} in progress", ""
    if row.status == "succeeded":
        return f"Attempt {n} of {max_attempts} succeeded", ""
    if row.status == "dead":
        return f"Gave up after attempt {n} of {max_attempts}", ""
    later = [span(step) for step in LADDER_SECONDS[n : max_attempts - 1]]
    tail = (
        f"if it fails too, the ladder waits {', then '.join(later)} before the next ones"
        if later
        else "it is the last attempt"
    )
    return f"Attempt {n} of {max_attempts} failed; attempt {n + 1} is next", tail


def health_view(health: Health) -> dict[str, Any]:
    rate = health.success_rate
    return {
        "rate": "no verdicts" if rate is None else f"{rate * 100:.0f}%",
        "counts": health.counts,
        "total": sum(health.counts.values()),
        "truncated": health.truncated,
    }


def delivery_view(row: DeliveryRow, now: float = 0.0, max_attempts: int = 6) -> DeliveryView:
    step, later = progress(row, max_attempts)
    return DeliveryView(
        row=row,
        label=STATUS_LABEL.get(row.status, row.status),
        tone=STATUS_TONE.get(row.status, "neutral"),
        created_at=when(row.created_at),
        updated_at=when(row.updated_at),
        next_attempt_at=when(row.next_attempt_at) if row.status == "failed" else "",
        body=pretty_body(row.request_body),
        attempt_log=tuple(replace(a, at=when(a.at)) for a in row.attempt_log),
        title=_title(row.request_body),
        created_relative=relative(row.created_at, now),
        next_attempt_iso=(row.next_attempt_at or "") if row.status == "failed" else "",
        next_attempt_relative=(
            relative(row.next_attempt_at, now) if row.status == "failed" else ""
        ),
        progress=step,
        later_steps=later,
    )
