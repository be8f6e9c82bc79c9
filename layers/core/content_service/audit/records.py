"""An audit record and the TransactWriteItems element that writes it beside its change.

`{pk: workspace id, sk: "<occurredAt>#<id>", id, occurredAt, workspaceId, action, actor,
actorKey, target, targetKey, changes?, correlationId?, sourceAddress?, scheduleId?,
expiresAt}`. `actor` is `{kind, id, email}` for a user, `{kind, id, name}` for a token and
`{kind: "system", id}` for the command line; `target` is `{kind, id}` plus the content type of
an entry. `changes` names what changed and its new values where they are not secret: the
callers pass only what may be shown (never a token, a webhook secret, a password or its hash,
a session id). `actorKey` and `targetKey` (`<workspace>#<kind>#<id>`) feed the byActor and
byTarget indexes; `expiresAt` is DynamoDB's TTL, `AUDIT_RETENTION_DAYS` after the change.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from content_service import runtime
from content_service.audit.origin import current_origin
from content_service.clock import iso_utc
from content_service.identity.principal import Caller, UserCaller
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

ActorKind = Literal["user", "token", "system", "anonymous"]
_DAY = 24 * 3600

SERVICE_LOG = "service"
"""The partition of changes that belong to no workspace: users and sign-ins. Workspace ids are
UUIDs, so no workspace shares it."""


@dataclass(frozen=True)
class Actor:
    """Who made a change: a signed-in user (with the email), a token (with its name), the
    command line run by an operator (`system`), or nobody known yet (`anonymous`: a failed
    sign-in)."""

    kind: ActorKind
    id: str
    label: str = ""

    @classmethod
    def of(cls, caller: Caller) -> Actor:
        if isinstance(caller, UserCaller):
            return cls("user", caller.id, caller.email)
        return cls("token", caller.token_id, caller.name)

    def to_json(self) -> dict[str, str]:
        shown = {"kind": self.kind, "id": self.id}
        if self.kind == "user":
            shown["email"] = self.label
        elif self.kind == "token":
            shown["name"] = self.label
        return shown


COMMAND_LINE = Actor("system", "cli")
"""The actor of a change made with `content-service` on the command line."""
ANONYMOUS = Actor("anonymous", "anonymous")
"""The actor of a failed sign-in: whoever typed the e-mail is not known."""


@dataclass(frozen=True)
class Target:
    """What a change is about: `kind` (entry, asset, content_type, token, user, webhook,
    schedule, session) and its id; `content_type` for an entry or an asset."""

    kind: str
    id: str
    content_type: str | None = None

    def to_json(self) -> dict[str, str]:
        shown = {"kind": self.kind, "id": self.id}
        if self.content_type is not None:
            shown["contentType"] = self.content_type
        return shown


def actor_key(workspace_id: str, kind: str, actor_id: str) -> str:
    return f"{workspace_id}#{kind}#{actor_id}"


def target_key(workspace_id: str, kind: str, target_id: str) -> str:
    return f"{workspace_id}#{kind}#{target_id}"


def record_item(
    workspace_id: str,
    action: str,
    actor: Actor,
    target: Target,
    now: float,
    changes: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One record, with the origin of the change under way (`audit.origin`)."""
    record_id = str(uuid.uuid4())
    occurred_at = iso_utc(now)
    origin = current_origin()
    retention = runtime.settings().audit_retention_days
    item: dict[str, Any] = {
        "pk": workspace_id,
        "sk": f"{occurred_at}#{record_id}",
        "id": record_id,
        "occurredAt": occurred_at,
        "workspaceId": workspace_id,
        "action": action,
        "actor": actor.to_json(),
        "actorKey": actor_key(workspace_id, actor.kind, actor.id),
        "target": target.to_json(),
        "targetKey": target_key(workspace_id, target.kind, target.id),
        "changes": dict(changes) if changes is not None else None,
        "correlationId": origin.correlation_id,
        "sourceAddress": origin.source_address,
        "scheduleId": origin.schedule_id,
        "expiresAt": int(now) + retention * _DAY,
    }
    return item


def record_put(
    workspace_id: str,
    action: str,
    actor: Actor,
    target: Target,
    now: float,
    changes: Mapping[str, Any] | None = None,
) -> TransactWriteItemTypeDef:
    """The TransactWriteItems element that writes one record (never one already there)."""
    item = record_item(workspace_id, action, actor, target, now, changes)
    return {
        "Put": {
            "TableName": dynamo.tables().audit,
            "Item": dynamo.encode(item, sparse=True),
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }
