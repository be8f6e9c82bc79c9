"""Endpoint records in the endpoints table, keyed by `id`.

The counter of consecutive dead deliveries is changed only by atomic updates (ADD, SET on a
condition), never by rewriting the item, so a worker's increment and an administrator's edit
cannot overwrite each other.

Every write but `reset_dead` adds one to the item's `version`, so a delivery worker can claim a
row on the condition that the endpoint it read is still exactly as read (`unchanged`) instead of
reading it again before every send; resetting the counter changes nothing a send or a verdict
depends on (a worker that still sees a count above 0 resets it again, a conditional no-op).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from content_service import camel
from content_service.storage.dynamo import (
    batch_get,
    conditional,
    decode,
    encode,
    encode_value,
    pages,
    values,
)

from .endpoint_secrets import OlderSecret, SecretRing, SignatureScheme, secret_hint
from .outbox import plain

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


Mode = Literal["push", "pull"]
EndpointType = Literal["http", "eventbridge"]
# Set when an endpoint.failing or endpoint.disabled notice went out (automatic disables only),
# cleared with the endpoint.recovered notice at the next success.
AlertState = Literal["failing", "disabled"]

# An update expression's SET clause that moves `version` on (with #version, :versionZero,
# :versionOne).
_NEXT_VERSION = "#version = if_not_exists(#version, :versionZero) + :versionOne"


@dataclass(frozen=True)
class Endpoint:
    """A push endpoint is POSTed to; a pull endpoint (`content-service listen`) is never
    connected to: its listener fetches its deliveries over the API while its lease lasts."""

    id: str
    url: str
    secret: str
    workspaces: tuple[str, ...] = ()
    all_workspaces: bool = False
    events: tuple[str, ...] = ()
    content_types: tuple[str, ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True
    disabled_reason: str | None = None
    consecutive_dead: int = 0
    created_at: str = ""
    updated_at: str = ""
    mode: Mode = "push"
    lease_expires_at: str | None = None
    version: int = 0
    older_secrets: tuple[OlderSecret, ...] = ()
    signature_scheme: SignatureScheme = "service"
    alert_state: AlertState | None = None
    rate_limit: int | None = None
    paused_until: str | None = None
    type: EndpointType = "http"
    event_bus_arn: str | None = None

    @property
    def secret_hint(self) -> str:
        return secret_hint(self.secret)

    @property
    def secrets(self) -> SecretRing:
        return SecretRing(self.secret, self.older_secrets)

    def signing_secrets(self, now: float) -> tuple[str, ...]:
        """The secrets that sign a send made now, newest first (rotation grace included)."""
        return self.secrets.signing(now)

    @property
    def pull(self) -> bool:
        return self.mode == "pull"

    @property
    def destination(self) -> str:
        """Where deliveries go, as a notice names it: the URL, or the event bus's ARN."""
        return self.event_bus_arn or "" if self.type == "eventbridge" else self.url

    @property
    def event_bus(self) -> bool:
        return self.type == "eventbridge"

    def to_json(self, now: float) -> dict[str, Any]:
        """The endpoint JSON of docs/api.md; never a secret: the current one's hint, and the
        hint and expiry of each older secret still valid at `now`. An EventBridge endpoint
        has no URL (null)."""
        names = [n for n in camel.field_names(Endpoint) if n not in _NOT_SHOWN]
        shown = camel.dump(self, ("secret_hint" if n == "secret" else n for n in names))
        shown["olderSecrets"] = [o.to_json() for o in self.secrets.valid_older(now)]
        if self.event_bus:
            shown["url"] = None
        return shown

    def to_values(self) -> dict[str, Any]:
        stored = camel.dump(self, [n for n in camel.field_names(Endpoint) if n != "older_secrets"])
        return stored | {
            "version": self.version or None,
            "olderSecrets": self.secrets.older_values() or None,
        }

    @classmethod
    def from_values(cls, item: Mapping[str, Any]) -> Endpoint:
        return camel.load(
            cls,
            item,
            workspaces=lambda names: tuple(names or ()),
            events=lambda names: tuple(names or ()),
            content_types=lambda names: tuple(names or ()),
            headers=lambda headers: dict(headers or {}),
            consecutive_dead=camel.count,
            mode=lambda mode: "pull" if mode == "pull" else "push",
            version=camel.count,
            older_secrets=SecretRing.older_from_values,
            signature_scheme=lambda scheme: "standard" if scheme == "standard" else "service",
            alert_state=lambda state: state if state in ("failing", "disabled") else None,
            rate_limit=lambda limit: int(limit) if limit else None,
            type=lambda kind: "eventbridge" if kind == "eventbridge" else "http",
        )


# Kept out of the endpoint JSON: the write counter, and the older secrets (shown as hints).
_NOT_SHOWN = frozenset({"version", "older_secrets"})


class EndpointStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def get(self, endpoint_id: str) -> Endpoint | None:
        response = self._client.get_item(
            TableName=self._table, Key={"id": {"S": endpoint_id}}, ConsistentRead=True
        )
        item = response.get("Item")
        return Endpoint.from_values(plain(decode(item))) if item else None

    def get_many(self, endpoint_ids: Iterable[str]) -> dict[str, Endpoint]:
        """The endpoints among `endpoint_ids` that exist, by id (strongly consistent)."""
        keys = [{"id": {"S": i}} for i in endpoint_ids]
        found = batch_get(self._table, keys, using=self._client)
        return {item["id"]: Endpoint.from_values(plain(item)) for item in found}

    def unchanged(self, endpoint: Endpoint) -> dict[str, Any]:
        """A transaction's ConditionCheck that holds while `endpoint` exists at the version it
        was read at (an item written before versions existed is version 0)."""
        condition = "attribute_exists(id) AND "
        condition += (
            "(attribute_not_exists(#version) OR #version = :version)"
            if endpoint.version == 0
            else "#version = :version"
        )
        return {
            "TableName": self._table,
            "Key": {"id": {"S": endpoint.id}},
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {"#version": "version"},
            "ExpressionAttributeValues": values(version=endpoint.version),
        }

    def all(self) -> list[Endpoint]:
        """Every endpoint, by a strongly consistent scan (one request per MB of endpoints)."""
        request = {"TableName": self._table, "ConsistentRead": True}
        return [
            Endpoint.from_values(plain(decode(item)))
            for page in pages("scan", request, self._client)
            for item in page.get("Items", [])
        ]

    def insert(self, endpoint: Endpoint) -> None:
        self._client.put_item(
            TableName=self._table,
            Item=encode(endpoint.to_values(), sparse=True),
            ConditionExpression="attribute_not_exists(id)",
        )

    def update(
        self,
        endpoint_id: str,
        sets: Mapping[str, Any],
        removes: tuple[str, ...] = (),
        *,
        seen_version: int | None = None,
    ) -> Endpoint | None:
        """Sets and removes attributes of an existing endpoint; None when there is none, or,
        with `seen_version`, when it was written since it was read at that version."""
        request = self.update_request(endpoint_id, sets, removes, seen_version=seen_version)
        response = conditional(self._client.update_item, **request, ReturnValues="ALL_NEW")
        return (
            None
            if response is None
            else Endpoint.from_values(plain(decode(response["Attributes"])))
        )

    def update_request(
        self,
        endpoint_id: str,
        sets: Mapping[str, Any],
        removes: tuple[str, ...] = (),
        *,
        seen_version: int | None = None,
        while_enabled: bool = False,
    ) -> dict[str, Any]:
        """The UpdateItem (or transaction Update) of `update`; `while_enabled` adds the
        condition that the endpoint is enabled (a disable that happens exactly once)."""
        names = {f"#a{i}": name for i, name in enumerate([*sets, *removes])}
        by_name = {name: alias for alias, name in names.items()}
        expression = "SET " + ", ".join(f"{by_name[n]} = :v{i}" for i, n in enumerate(sets))
        expression += ", " + _NEXT_VERSION
        names["#version"] = "version"
        if removes:
            expression += " REMOVE " + ", ".join(by_name[n] for n in removes)
        condition = "attribute_exists(id)"
        expression_values = {
            **{f":v{i}": encode_value(value) for i, value in enumerate(sets.values())},
            **values(versionZero=0, versionOne=1),
        }
        if seen_version is not None:
            condition += (
                " AND (attribute_not_exists(#version) OR #version = :seenVersion)"
                if seen_version == 0
                else " AND #version = :seenVersion"
            )
            expression_values.update(values(seenVersion=seen_version))
        if while_enabled:
            names["#enabled"] = "enabled"
            condition += " AND #enabled = :enabledNow"
            expression_values.update(values(enabledNow=True))
        return {
            "TableName": self._table,
            "Key": {"id": {"S": endpoint_id}},
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": expression_values,
        }

    def rotate(self, endpoint: Endpoint, ring: SecretRing, now_iso: str) -> Endpoint | None:
        """Writes the rotated secrets if the endpoint is still as read (None otherwise), so
        two rotations at once cannot lose a secret either caller was shown."""
        sets: dict[str, Any] = {"secret": ring.current, "updatedAt": now_iso}
        older = ring.older_values()
        if older:
            sets["olderSecrets"] = older
        return self.update(
            endpoint.id,
            sets,
            () if older else ("olderSecrets",),
            seen_version=endpoint.version,
        )

    def delete(self, endpoint_id: str) -> bool:
        response = self._client.delete_item(
            TableName=self._table, Key={"id": {"S": endpoint_id}}, ReturnValues="ALL_OLD"
        )
        return bool(response.get("Attributes"))

    def count_dead(self, endpoint_id: str) -> Endpoint | None:
        """Adds one to the consecutive-dead counter atomically; None if the endpoint is gone."""
        response = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": endpoint_id}},
            UpdateExpression="ADD consecutiveDead :one, #version :one",
            ConditionExpression="attribute_exists(id)",
            ExpressionAttributeNames={"#version": "version"},
            ExpressionAttributeValues=values(one=1),
            ReturnValues="ALL_NEW",
        )
        return (
            None
            if response is None
            else Endpoint.from_values(plain(decode(response["Attributes"])))
        )

    def disable(self, endpoint_id: str, reason: str, now_iso: str) -> bool:
        """Disables an enabled endpoint; False if it was already disabled or is gone."""
        written = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": endpoint_id}},
            UpdateExpression=(
                "SET enabled = :off, disabledReason = :reason, updatedAt = :now, " + _NEXT_VERSION
            ),
            ConditionExpression="attribute_exists(id) AND enabled = :on",
            ExpressionAttributeNames={"#version": "version"},
            ExpressionAttributeValues=values(
                off=False, on=True, reason=reason, now=now_iso, versionZero=0, versionOne=1
            ),
        )
        return written is not None

    def pause(self, endpoint_id: str, until_iso: str) -> Endpoint | None:
        """Holds every send to the endpoint until `until_iso` (a 429's Retry-After), moving
        a pause only later; None when the endpoint is gone or already paused longer."""
        response = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": endpoint_id}},
            UpdateExpression="SET pausedUntil = :until, " + _NEXT_VERSION,
            ConditionExpression=(
                "attribute_exists(id) AND "
                "(attribute_not_exists(pausedUntil) OR pausedUntil < :until)"
            ),
            ExpressionAttributeNames={"#version": "version"},
            ExpressionAttributeValues=values(until=until_iso, versionZero=0, versionOne=1),
            ReturnValues="ALL_NEW",
        )
        return (
            None
            if response is None
            else Endpoint.from_values(plain(decode(response["Attributes"])))
        )

    def failing_request(self, endpoint_id: str) -> dict[str, Any]:
        """Marks an enabled endpoint failing, once: refused when it already is (or was
        disabled meanwhile)."""
        return {
            "TableName": self._table,
            "Key": {"id": {"S": endpoint_id}},
            "UpdateExpression": "SET alertState = :failing, " + _NEXT_VERSION,
            "ConditionExpression": (
                "attribute_exists(id) AND enabled = :on AND attribute_not_exists(alertState)"
            ),
            "ExpressionAttributeNames": {"#version": "version"},
            "ExpressionAttributeValues": values(
                failing="failing", on=True, versionZero=0, versionOne=1
            ),
        }

    def disable_request(self, endpoint_id: str, reason: str, now_iso: str) -> dict[str, Any]:
        """The automatic disable, once: refused when the endpoint is no longer enabled. It
        leaves `alertState = disabled`, so the next success is announced as a recovery."""
        return {
            "TableName": self._table,
            "Key": {"id": {"S": endpoint_id}},
            "UpdateExpression": (
                "SET enabled = :off, disabledReason = :reason, updatedAt = :now, "
                "alertState = :disabled, " + _NEXT_VERSION
            ),
            "ConditionExpression": "attribute_exists(id) AND enabled = :on",
            "ExpressionAttributeNames": {"#version": "version"},
            "ExpressionAttributeValues": values(
                off=False,
                on=True,
                reason=reason,
                now=now_iso,
                disabled="disabled",
                versionZero=0,
                versionOne=1,
            ),
        }

    def recovered_request(self, endpoint_id: str, seen: AlertState) -> dict[str, Any]:
        """Clears the alert (and the dead count) once: refused when another worker did."""
        return {
            "TableName": self._table,
            "Key": {"id": {"S": endpoint_id}},
            "UpdateExpression": "SET consecutiveDead = :zero, "
            + _NEXT_VERSION
            + " REMOVE alertState",
            "ConditionExpression": "attribute_exists(id) AND alertState = :seen",
            "ExpressionAttributeNames": {"#version": "version"},
            "ExpressionAttributeValues": values(seen=seen, zero=0, versionZero=0, versionOne=1),
        }

    def reset_dead(self, endpoint_id: str) -> bool:
        """A success ends the run of dead deliveries; a no-op (no write) when it is 0."""
        written = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": endpoint_id}},
            UpdateExpression="SET consecutiveDead = :zero",
            ConditionExpression="attribute_exists(id) AND consecutiveDead > :zero",
            ExpressionAttributeValues=values(zero=0),
        )
        return written is not None
