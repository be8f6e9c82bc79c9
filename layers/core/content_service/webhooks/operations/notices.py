"""Operational events: an endpoint is failing, was disabled, has recovered.

Each transition and its event are one DynamoDB transaction: the endpoint's update, conditioned
so that it happens once (`alertState` absent for failing, `enabled` for disabled, the alert
seen for recovered), and the event's Put into the events table, the outbox every entry event
goes through. The stream then fans it out like any event and the minute sweep reconciles it
if the fan-out never completed, so a process dying right after the transition loses neither
the transition nor its notice, and a transition two workers race for is announced once.

The events have no workspace, so by the matching rules they reach only `allWorkspaces`
endpoints that take their kind, never the endpoint they are about (`matching.is_about`). Those
may be anyone's receivers, so a notice names the endpoint by id and host, never by its URL,
and its reason names no more than the host (`notice_redaction`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from content_service.audit.endpoint_changes import WEBHOOK_WORKER, endpoint_record
from content_service.clock import Clock, iso_utc
from content_service.storage.dynamo import TransactionCancelled, encode, transact
from content_service.storage.outbox_event import new_event_item

from ..endpoints import ENDPOINT_SUBJECT, AlertState, Endpoint, EndpointStore
from .notice_redaction import notice_host, notice_reason

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

FAILING = "endpoint.failing"
DISABLED = "endpoint.disabled"
RECOVERED = "endpoint.recovered"


def failing_threshold(auto_disable_after: int) -> int | None:
    """The dead count at which an endpoint is failing: half of `autoDisableAfter`, rounded
    up; None when that would be the disable itself (`autoDisableAfter` 1)."""
    half = math.ceil(auto_disable_after / 2)
    return half if half < auto_disable_after else None


def notice_item(
    kind: str,
    endpoint: Endpoint,
    reason: str,
    consecutive_dead: int,
    now: float,
    actor: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The outbox event of a notice, in the shape of an entry event (no workspace): the
    endpoint's id and host, and `reason`, which `notice_reason` has cleaned."""
    data = {
        "kind": ENDPOINT_SUBJECT,
        "id": endpoint.id,
        "host": notice_host(endpoint),
        "reason": reason,
        "consecutiveDead": consecutive_dead,
    }
    return new_event_item(kind, now, actor=actor, data=data)


class EndpointNotices:
    def __init__(
        self, client: DynamoDBClient, endpoints: EndpointStore, events_table: str, clock: Clock
    ) -> None:
        self._client = client
        self._endpoints = endpoints
        self._events_table = events_table
        self._clock = clock

    def failing(self, endpoint: Endpoint, reason: str) -> bool:
        """endpoint.failing, once per run of dead deliveries; False when not the first."""
        request = self._endpoints.failing_request(endpoint.id)
        return self.commit(request, FAILING, endpoint, reason, endpoint.consecutive_dead)

    def disabled(self, endpoint: Endpoint, reason: str) -> bool:
        """The automatic disable and its endpoint.disabled; False when it was not enabled.
        The endpoint's `disabledReason` is the notice's reason, word for word."""
        reason = notice_reason(reason, endpoint)
        now = self._clock.now()
        request = self._endpoints.disable_request(endpoint.id, reason, iso_utc(now))
        changes = {"fields": ["enabled"], "values": {"enabled": False}}
        record = endpoint_record("disabled", WEBHOOK_WORKER, endpoint.id, now, changes)
        return self._commit(
            request, DISABLED, endpoint, reason, endpoint.consecutive_dead, also=[record]
        )

    def recovered(self, endpoint: Endpoint, seen: AlertState, reason: str) -> bool:
        """endpoint.recovered at the first success after an alert; False when another
        worker announced it already."""
        request = self._endpoints.recovered_request(endpoint.id, seen)
        return self.commit(request, RECOVERED, endpoint, reason, endpoint.consecutive_dead)

    def commit(
        self,
        update: Mapping[str, Any],
        kind: str,
        endpoint: Endpoint,
        reason: str,
        consecutive_dead: int,
        actor: Mapping[str, str] | None = None,
        also: Sequence[Any] = (),
    ) -> bool:
        """The endpoint's update and the notice's outbox event (and the items `also` holds:
        an audit record), in one transaction, the reason cleaned by `notice_reason`; False
        (nothing written) when the update's condition did not hold."""
        cleaned = notice_reason(reason, endpoint)
        return self._commit(update, kind, endpoint, cleaned, consecutive_dead, actor, also)

    def _commit(
        self,
        update: Mapping[str, Any],
        kind: str,
        endpoint: Endpoint,
        cleaned_reason: str,
        consecutive_dead: int,
        actor: Mapping[str, str] | None = None,
        also: Sequence[Any] = (),
    ) -> bool:
        item = notice_item(
            kind, endpoint, cleaned_reason, consecutive_dead, self._clock.now(), actor
        )
        put = {
            "TableName": self._events_table,
            "Item": encode(item, sparse=True),
            "ConditionExpression": "attribute_not_exists(id)",
        }
        items: list[Any] = [{"Update": dict(update)}, {"Put": put}, *also]
        try:
            transact(items, using=self._client)
        except TransactionCancelled as cancelled:
            if cancelled.failed(0):
                return False
            raise
        return True
