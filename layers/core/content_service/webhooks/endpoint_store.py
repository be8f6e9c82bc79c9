"""Endpoint records in the endpoints table, keyed by `id`.

The counter of consecutive dead deliveries is changed only by atomic updates (ADD, SET on a
condition), never by rewriting the item, so a worker's increment and an administrator's edit
cannot overwrite each other.

Every write but `reset_dead` adds one to the item's `version`, so a delivery worker can claim a
row on the condition that the endpoint it read is still exactly as read (`unchanged`) instead of
reading it again before every send; resetting the counter changes nothing a send or a verdict
depends on (a worker that still sees a count above 0 resets it again, a conditional no-op).

The secret and the custom header values are stored sealed (`storage.sealing`, docs/webhooks.md,
"Secrets at rest"): every write seals them, and an `Endpoint` read back holds them as stored,
opened only by `signing_secret()` and `header_values()`, so reading endpoints to match events
never needs the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from content_service import camel
from content_service.storage import sealing
from content_service.storage.dynamo import (
    batch_get,
    conditional,
    decode,
    encode,
    encode_value,
    pages,
    values,
)

from .endpoint_secrets import secret_hint
from .outbox import plain

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


Mode = Literal["push", "pull"]

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

    @property
    def secret_hint(self) -> str:
        return secret_hint(self.signing_secret())

    @property
    def pull(self) -> bool:
        return self.mode == "pull"

    def signing_secret(self) -> str:
        """The secret in clear (opened with the KMS key when it is stored sealed)."""
        return sealing.open_value(self.secret, SECRET, sealing_context(self.id))

    def header_values(self) -> dict[str, str]:
        """The custom headers in clear."""
        context = sealing_context(self.id)
        return {n: sealing.open_value(v, _header(n), context) for n, v in self.headers.items()}

    @property
    def sealed(self) -> bool:
        """Whether the secret and every header value are stored sealed."""
        values = (self.secret, *self.headers.values())
        return all(sealing.is_sealed(v) for v in values)

    def to_json(self) -> dict[str, Any]:
        """The endpoint JSON of docs/api.md; never the secret (its hint in its place)."""
        names = [n for n in camel.field_names(Endpoint) if n != "version"]
        dumped = camel.dump(self, ("secret_hint" if n == "secret" else n for n in names))
        return dumped | {"headers": self.header_values()}

    def to_values(self) -> dict[str, Any]:
        return camel.dump(self, camel.field_names(Endpoint)) | {"version": self.version or None}

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
        )


SECRET = "secret"  # noqa: S105 (an attribute name, not a secret)


def _header(name: str) -> str:
    """The associated data a header value is sealed with (header names are case-blind)."""
    return f"headers/{name.lower()}"


def sealing_context(endpoint_id: str) -> dict[str, str]:
    """The KMS encryption context of an endpoint's sealed values: they open for it alone."""
    return {"purpose": "webhook-endpoint", "endpointId": endpoint_id}


def _sealed_attributes(endpoint_id: str, sets: Mapping[str, Any]) -> dict[str, Any]:
    """`sets` with the secret and the header values sealed (one data key for all of them)."""
    plain: dict[str, str] = {}
    if SECRET in sets:
        plain[SECRET] = sets[SECRET]
    headers: Mapping[str, str] = sets.get("headers") or {}
    plain.update({_header(name): value for name, value in headers.items()})
    if not plain:
        return dict(sets)
    sealed = sealing.seal(plain, sealing_context(endpoint_id))
    result = dict(sets)
    if SECRET in sets:
        result[SECRET] = sealed[SECRET]
    if "headers" in sets:
        result["headers"] = {name: sealed[_header(name)] for name in headers}
    return result


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
            Item=encode(_sealed_attributes(endpoint.id, endpoint.to_values()), sparse=True),
            ConditionExpression="attribute_not_exists(id)",
        )

    def update(
        self, endpoint_id: str, sets: Mapping[str, Any], removes: tuple[str, ...] = ()
    ) -> Endpoint | None:
        """Sets and removes attributes of an existing endpoint; None when there is none."""
        sets = _sealed_attributes(endpoint_id, sets)
        names = {f"#a{i}": name for i, name in enumerate([*sets, *removes])}
        by_name = {name: alias for alias, name in names.items()}
        expression = "SET " + ", ".join(f"{by_name[n]} = :v{i}" for i, n in enumerate(sets))
        expression += ", " + _NEXT_VERSION
        names["#version"] = "version"
        if removes:
            expression += " REMOVE " + ", ".join(by_name[n] for n in removes)
        response = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": endpoint_id}},
            UpdateExpression=expression,
            ConditionExpression="attribute_exists(id)",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues={
                **{f":v{i}": encode_value(value) for i, value in enumerate(sets.values())},
                **values(versionZero=0, versionOne=1),
            },
            ReturnValues="ALL_NEW",
        )
        return (
            None
            if response is None
            else Endpoint.from_values(plain(decode(response["Attributes"])))
        )

    def reseal(self, endpoint: Endpoint) -> bool:
        """Stores a row written before sealing existed with its secret and headers sealed, on
        the condition that it is still as read; False when it changed meanwhile (its writer
        sealed it) or is gone."""
        sealed = _sealed_attributes(
            endpoint.id, {SECRET: endpoint.signing_secret(), "headers": endpoint.header_values()}
        )
        check = self.unchanged(endpoint)
        written = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": endpoint.id}},
            UpdateExpression="SET secret = :secret, headers = :headers, " + _NEXT_VERSION,
            ConditionExpression=check["ConditionExpression"],
            ExpressionAttributeNames=check["ExpressionAttributeNames"],
            ExpressionAttributeValues={
                **check["ExpressionAttributeValues"],
                ":secret": encode_value(sealed[SECRET]),
                ":headers": encode_value(sealed["headers"]),
                **values(versionZero=0, versionOne=1),
            },
        )
        return written is not None

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
