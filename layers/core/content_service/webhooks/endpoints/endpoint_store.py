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
from content_service.storage.json_values import plain

from .endpoint_secrets import OlderSecret, SecretRing, SignatureScheme, secret_hint

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


@dataclass(frozen=True, kw_only=True)
class EndpointSettings:
    """What an administrator gives an endpoint at creation: what it receives, its custom
    headers, whether it is on. Shared by the stored endpoint and the registry's input."""

    workspaces: tuple[str, ...] = ()
    all_workspaces: bool = False
    events: tuple[str, ...] = ()
    content_types: tuple[str, ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True


@dataclass(frozen=True, kw_only=True)
class Endpoint(EndpointSettings):
    """A push endpoint is POSTed to; a pull endpoint (`content-service listen`) is never
    connected to: its listener fetches its deliveries over the API while its lease lasts."""

    id: str
    url: str
    secret: str
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
        return secret_hint(self.signing_secret())

    @property
    def secrets(self) -> SecretRing:
        """The current and older secrets in clear (each opened when it is stored sealed)."""
        context = sealing_context(self.id)
        older = tuple(
            OlderSecret(sealing.open_value(o.secret, _older(o.expires_at), context), o.expires_at)
            for o in self.older_secrets
        )
        return SecretRing(self.signing_secret(), older)

    def signing_secrets(self, now: float) -> tuple[str, ...]:
        """The secrets that sign a send made now, newest first (rotation grace included)."""
        return self.secrets.signing(now)

    @property
    def pull(self) -> bool:
        return self.mode == "pull"

    @property
    def destination(self) -> str:
        """Where deliveries go, as the admin pages show it: the URL, or the event bus's ARN."""
        return self.event_bus_arn or "" if self.type == "eventbridge" else self.url

    @property
    def event_bus(self) -> bool:
        return self.type == "eventbridge"

    def signing_secret(self) -> str:
        """The secret in clear (opened with the KMS key when it is stored sealed)."""
        return sealing.open_value(self.secret, SECRET, sealing_context(self.id))

    def header_values(self) -> dict[str, str]:
        """The custom headers in clear."""
        context = sealing_context(self.id)
        return {n: sealing.open_value(v, _header(n), context) for n, v in self.headers.items()}

    @property
    def sealed(self) -> bool:
        """Whether every secret (older ones too) and every header value is stored sealed."""
        values = (self.secret, *(o.secret for o in self.older_secrets), *self.headers.values())
        return all(sealing.is_sealed(v) for v in values)

    def to_json(self, now: float) -> dict[str, Any]:
        """The endpoint JSON of docs/api.md; never a secret: the current one's hint, and the
        hint and expiry of each older secret still valid at `now`. An EventBridge endpoint
        has no URL (null)."""
        shown = camel.dump(self, _SHOWN)
        shown["olderSecrets"] = [o.to_json() for o in self.secrets.valid_older(now)]
        shown["headers"] = self.header_values()
        if self.event_bus:
            shown["url"] = None
        return shown

    def to_values(self) -> dict[str, Any]:
        stored = camel.dump(self, [n for n in camel.field_names(Endpoint) if n != "older_secrets"])
        return stored | {
            "version": self.version or None,
            OLDER_SECRETS: [o.to_values() for o in self.older_secrets] or None,
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
# The endpoint JSON opens with the id, the URL and the secret's hint, then the other fields
# in their order (the settings first).
_SHOWN = (
    "id",
    "url",
    "secret_hint",
    *(n for n in camel.field_names(Endpoint) if n not in {*_NOT_SHOWN, "id", "url", "secret"}),
)

SECRET = "secret"  # noqa: S105 (an attribute name, not a secret)
OLDER_SECRETS = "olderSecrets"


def _header(name: str) -> str:
    """The associated data a header value is sealed with (header names are case-blind)."""
    return f"headers/{name.lower()}"


def _older(expires_at: str) -> str:
    """The associated data of an older secret: the expiry it is stored beside."""
    return f"{OLDER_SECRETS}/{expires_at}"


def sealing_context(endpoint_id: str) -> dict[str, str]:
    """The KMS encryption context of an endpoint's sealed values: they open for it alone."""
    return {"purpose": "webhook-endpoint", "endpointId": endpoint_id}


def _sealed_attributes(endpoint_id: str, sets: Mapping[str, Any]) -> dict[str, Any]:
    """`sets` with the secret, the older secrets and the header values sealed (one data key
    for all of them)."""
    plain: dict[str, str] = {}
    if SECRET in sets:
        plain[SECRET] = sets[SECRET]
    older: list[Mapping[str, str]] = sets.get(OLDER_SECRETS) or []
    plain.update({_older(o["expiresAt"]): o["secret"] for o in older})
    headers: Mapping[str, str] = sets.get("headers") or {}
    plain.update({_header(name): value for name, value in headers.items()})
    if not plain:
        return dict(sets)
    sealed = sealing.seal(plain, sealing_context(endpoint_id))
    result = dict(sets)
    if SECRET in sets:
        result[SECRET] = sealed[SECRET]
    if older:
        result[OLDER_SECRETS] = [{**o, "secret": sealed[_older(o["expiresAt"])]} for o in older]
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

    def insert_request(self, endpoint: Endpoint) -> dict[str, Any]:
        """The transaction Put of a new endpoint (its secret and header values sealed)."""
        return {
            "TableName": self._table,
            "Item": encode(_sealed_attributes(endpoint.id, endpoint.to_values()), sparse=True),
            "ConditionExpression": "attribute_not_exists(id)",
        }

    def insert(self, endpoint: Endpoint) -> None:
        """A new endpoint on its own (test and harness set-up: the registry audits its own)."""
        self._client.put_item(**self.insert_request(endpoint))

    def delete(self, endpoint_id: str) -> bool:
        """Deletes an endpoint on its own (test set-up); False when there was none."""
        response = self._client.delete_item(
            TableName=self._table, Key={"id": {"S": endpoint_id}}, ReturnValues="ALL_OLD"
        )
        return bool(response.get("Attributes"))

    def delete_request(self, endpoint_id: str) -> dict[str, Any]:
        """The transaction Delete of an endpoint, refused when there is none."""
        return {
            "TableName": self._table,
            "Key": {"id": {"S": endpoint_id}},
            "ConditionExpression": "attribute_exists(id)",
        }

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
        return _updated(response)

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
        sets = _sealed_attributes(endpoint_id, sets)
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

    def rotate_request(self, endpoint: Endpoint, ring: SecretRing, now_iso: str) -> dict[str, Any]:
        """The transaction Update writing the rotated secrets, refused unless the endpoint is
        still as read, so two rotations at once cannot lose a secret either caller was shown."""
        sets: dict[str, Any] = {"secret": ring.current, "updatedAt": now_iso}
        older = ring.older_values()
        if older:
            sets["olderSecrets"] = older
        return self.update_request(
            endpoint.id,
            sets,
            () if older else ("olderSecrets",),
            seen_version=endpoint.version,
        )

    def reseal(self, endpoint: Endpoint) -> bool:
        """Stores a row written before sealing existed with its secrets and headers sealed, on
        the condition that it is still as read; False when it changed meanwhile (its writer
        sealed it) or is gone."""
        ring = endpoint.secrets
        opened: dict[str, Any] = {SECRET: ring.current, "headers": endpoint.header_values()}
        if ring.older:
            opened[OLDER_SECRETS] = ring.older_values()
        sealed = _sealed_attributes(endpoint.id, opened)
        older = {":older": encode_value(sealed[OLDER_SECRETS])} if ring.older else {}
        check = self.unchanged(endpoint)
        written = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": endpoint.id}},
            UpdateExpression="SET secret = :secret, headers = :headers, "
            + ("olderSecrets = :older, " if older else "")
            + _NEXT_VERSION,
            ConditionExpression=check["ConditionExpression"],
            ExpressionAttributeNames=check["ExpressionAttributeNames"],
            ExpressionAttributeValues={
                **check["ExpressionAttributeValues"],
                ":secret": encode_value(sealed[SECRET]),
                ":headers": encode_value(sealed["headers"]),
                **older,
                **values(versionZero=0, versionOne=1),
            },
        )
        return written is not None

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
        return _updated(response)

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
        return _updated(response)

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


def _updated(response: Mapping[str, Any] | None) -> Endpoint | None:
    """The endpoint an UpdateItem with `ReturnValues=ALL_NEW` wrote; None when refused."""
    return None if response is None else Endpoint.from_values(plain(decode(response["Attributes"])))
