"""What the audit page shows: its filters read from the query string, and each record made
into a row a person reads (who, what, which target, when, from where, the changed values).

The filters are the API's (`GET /api/v1/audit`), with two conveniences of a form: the actor may
be a user's e-mail (looked up to `user:<id>`), and the times are the form's `datetime-local`
values, read as UTC.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from content_service.api.pages import PageWorkspace
from content_service.api.routes.admin_views import when
from content_service.audit.log import AuditQuery
from content_service.audit.records import SERVICE_LOG
from content_service.clock import iso_utc
from content_service.errors import BadRequest
from content_service.identity.users import normalise_email, user_by_email

SCOPES = (("workspace", "This workspace"), ("service", "Service: users, roles, sign-ins"))
_CHANGE_KEYS = ("fields", "values")


@dataclass(frozen=True)
class AuditFilters:
    """The page's filter form, as typed (shown back in the form) and as the log reads it."""

    scope: str = "workspace"
    actor: str = ""
    target: str = ""
    action: str = ""
    since: str = ""
    until: str = ""

    @classmethod
    def read(cls, **given: str | None) -> AuditFilters:
        values = {name: (value or "").strip() for name, value in given.items()}
        if values.get("scope") not in dict(SCOPES):
            values["scope"] = "workspace"
        return cls(**values)

    @property
    def filtered(self) -> bool:
        return any((self.actor, self.target, self.action, self.since, self.until))

    def params(self) -> dict[str, str | None]:
        """The query parameters that keep these filters in a link (none left empty)."""
        return {
            "scope": self.scope if self.scope != "workspace" else None,
            "actor": self.actor,
            "target": self.target,
            "action": self.action,
            "since": self.since,
            "until": self.until,
        }

    def query(self, workspace_id: str) -> AuditQuery:
        """The log's query; BadRequest naming the filter a person got wrong."""
        return AuditQuery(
            SERVICE_LOG if self.scope == "service" else workspace_id,
            actor=_actor(self.actor) if self.actor else None,
            target=self.target or None,
            action=self.action or None,
            since=_instant("Since", self.since) if self.since else None,
            until=_instant("Until", self.until) if self.until else None,
        )


def _actor(text: str) -> str:
    """`user:<id>` or `token:<id>` as typed; an e-mail becomes its user's `user:<id>`."""
    if ":" in text or "@" not in text:
        return text
    email = normalise_email(text)
    user = user_by_email(email)
    if user is None:
        raise BadRequest(f"no user has the e-mail {email}")
    return f"user:{user.id}"


def _instant(label: str, text: str) -> str:
    """A form time (`2026-01-31T12:00`), read as UTC when it names no zone, as ISO 8601."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadRequest(f"{label} must be a date and time, such as 2026-01-31T12:00") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return iso_utc(moment.timestamp())


@dataclass(frozen=True)
class Change:
    """One changed field (or other part of a change) and its new value as text; `shown` is
    false when the record names the field without its value (over 1 KB)."""

    name: str
    value: str
    shown: bool = True


@dataclass(frozen=True)
class AuditRow:
    id: str
    action: str
    who: str
    who_href: str | None
    """The log filtered to this actor (none for the command line or an anonymous one)."""
    target: str
    target_filter_href: str
    target_href: str | None
    at: str
    at_iso: str
    correlation_id: str
    source_address: str
    schedule_id: str
    changes: tuple[Change, ...]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def changes_of(changes: dict[str, Any] | None) -> tuple[Change, ...]:
    """The changed fields with their values, then any other part of the change (a content
    type's `settings`, a refusal's `missing`)."""
    if not changes:
        return ()
    values = changes.get("values") or {}
    listed = [
        Change(name, _text(values[name])) if name in values else Change(name, "", shown=False)
        for name in changes.get("fields") or []
    ]
    listed += [Change(k, _text(v)) for k, v in changes.items() if k not in _CHANGE_KEYS and v]
    return tuple(listed)


def _who(actor: dict[str, Any]) -> str:
    kind = actor.get("kind", "")
    if kind == "user":
        return str(actor.get("email") or actor.get("id"))
    if kind == "token":
        return f"token {actor.get('name') or actor.get('id')}"
    if kind == "system":
        return "command line"
    return "anonymous (not signed in)"


def _target_href(target: dict[str, Any], ws: PageWorkspace, scope: str) -> str | None:
    """The page of the record's target, where there is one."""
    if scope != "workspace":
        return None
    if target.get("kind") == "entry" and target.get("contentType"):
        return ws.link(f"/content/{target['contentType']}/{target['id']}")
    if target.get("kind") == "asset":
        return ws.link(f"/media/{target['id']}")
    if target.get("kind") == "content_type":
        return ws.link(f"/content-types/{target['id']}")
    return None


def audit_row(record: dict[str, Any], ws: PageWorkspace, filters: AuditFilters) -> AuditRow:
    actor = record.get("actor") or {}
    target = record.get("target") or {}
    kind = str(actor.get("kind", ""))
    of_type = f" ({target['contentType']})" if target.get("contentType") else ""
    here = filters.params()
    by_actor = {**here, "actor": f"{kind}:{actor.get('id')}"}
    by_target = {**here, "target": f"{target.get('kind', '')}:{target.get('id', '')}"}
    return AuditRow(
        id=str(record.get("id", "")),
        action=str(record.get("action", "")),
        who=_who(actor),
        who_href=ws.link("/audit", **by_actor) if kind in ("user", "token") else None,
        target=f"{target.get('kind', '')} {target.get('id', '')}{of_type}",
        target_filter_href=ws.link("/audit", **by_target),
        target_href=_target_href(target, ws, filters.scope),
        at=when(record.get("occurredAt")),
        at_iso=str(record.get("occurredAt") or ""),
        correlation_id=str(record.get("correlationId") or ""),
        source_address=str(record.get("sourceAddress") or ""),
        schedule_id=str(record.get("scheduleId") or ""),
        changes=changes_of(record.get("changes")),
    )
