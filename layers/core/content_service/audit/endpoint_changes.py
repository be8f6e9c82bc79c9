"""What a webhook endpoint change changed, for its audit record, and the record itself.

`{"fields": [names], "values": {name: new value}}` over the endpoint's settings (url, type,
eventBusArn, workspaces, allWorkspaces, events, contentTypes, enabled, mode, signatureScheme,
rateLimit). Two fields are named but never shown: `secret` (a new endpoint's, or a rotation's)
is only named, and `headers` shows the header names, never their values, which are often
credentials of the receiver. Endpoints belong to no workspace (one may serve several), so
their records share the `service` partition with users and sign-ins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from content_service.audit.records import SERVICE_LOG, Actor, Target, record_put

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

_SETTINGS = (
    "url",
    "type",
    "eventBusArn",
    "workspaces",
    "allWorkspaces",
    "events",
    "contentTypes",
    "enabled",
    "mode",
    "signatureScheme",
    "rateLimit",
)
HEADERS = "headers"
SECRET = "secret"  # noqa: S105 (a field name, not a secret)

WEBHOOK_WORKER = Actor("system", "webhooks")
"""The actor of an automatic disable: the delivery worker, after too many dead deliveries."""


def _settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """The shown settings among stored (camelCase) attributes; absent ones left out."""
    shown: dict[str, Any] = {}
    for name in _SETTINGS:
        value = values.get(name)
        if value is not None:
            shown[name] = list(value) if isinstance(value, list | tuple) else value
    return shown


def created_changes(values: Mapping[str, Any]) -> dict[str, Any]:
    """Every setting of a new endpoint, its header names and the fact of its secret."""
    shown = _settings(values)
    headers: Mapping[str, str] = values.get(HEADERS) or {}
    if headers:
        shown[HEADERS] = sorted(headers)
    return {"fields": sorted([*shown, SECRET]), "values": shown}


def updated_changes(
    before: Mapping[str, Any], sets: Mapping[str, Any], removes: tuple[str, ...]
) -> dict[str, Any] | None:
    """The settings an update changes (a removed one becomes null), and `headers` (names only)
    whenever the update sets them; None when it changes none."""
    old = _settings(before)
    new = {**old, **_settings(sets)}
    for name in removes:
        new.pop(name, None)
    names = sorted(n for n in old.keys() | new.keys() if old.get(n) != new.get(n))
    shown: dict[str, Any] = {name: new.get(name) for name in names}
    if HEADERS in sets:
        names.append(HEADERS)
        shown[HEADERS] = sorted(sets[HEADERS])
    return {"fields": names, "values": shown} if names else None


def update_action(changes: Mapping[str, Any] | None) -> str:
    """`enabled` or `disabled` when the update switches the endpoint, else `updated`."""
    if changes is not None and "enabled" in changes["fields"]:
        return "enabled" if changes["values"]["enabled"] else "disabled"
    return "updated"


def endpoint_record(
    action: str,
    by: Actor,
    endpoint_id: str,
    now: float,
    changes: Mapping[str, Any] | None = None,
) -> TransactWriteItemTypeDef:
    """The record `webhook.<action>` about one endpoint, for the change's transaction."""
    target = Target("webhook", endpoint_id)
    return record_put(SERVICE_LOG, f"webhook.{action}", by, target, now, changes)
