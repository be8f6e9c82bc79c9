"""The frozen envelope, delivery ids, the request headers (docs/api.md, "What a receiver gets") and
messages."""

from __future__ import annotations

import json
import uuid

import pytest

from content_service.errors import BadRequest
from content_service.storage.outbox_event import MalformedEvent, OutboxEvent
from content_service.webhooks.deliveries import (
    SHARDS,
    LogSearch,
    decode_cursor,
    encode_cursor,
    fanout_delivery_id,
    log_filters,
    shard_of,
)
from content_service.webhooks.endpoints import PING, Endpoint, send_test_envelope
from content_service.webhooks.sending import (
    MalformedMessage,
    envelope,
    freeze,
    message_body,
    parse_message,
    refreeze,
    request_headers,
    verify_signature,
)

ITEM = {
    "id": "5f0c6c1e-4a8e-4c61-9a43-0c0f6f1f2b10",
    "kind": "entry.updated",
    "occurredAt": "2026-03-01T10:00:00.000Z",
    "workspaceId": "9b1f5f0a-3a4f-4e59-8a83-1f0b7c9a1e22",
    "actor": {"id": "0d3e0e57-3b1e-4b58-9d7e-2b8d9a0e8f11", "email": "ed@example.com"},
    "data": {"kind": "content_entry", "id": "e1", "contentType": "post", "title": "Grüße"},
}


def test_envelope_fields_order_and_compact_utf8() -> None:
    event = OutboxEvent.from_item(ITEM)
    body = freeze(envelope("d1", event))
    assert (
        body
        == (
            '{"id":"d1","event":"entry.updated","eventId":"5f0c6c1e-4a8e-4c61-9a43-0c0f6f1f2b10",'
            '"occurredAt":"2026-03-01T10:00:00.000Z","workspaceId":"9b1f5f0a-3a4f-4e59-8a83-'
            '1f0b7c9a1e22","actor":{"id":"0d3e0e57-3b1e-4b58-9d7e-2b8d9a0e8f11","email":'
            '"ed@example.com"},"data":{"kind":"content_entry","id":"e1","contentType":"post",'
            '"title":"Grüße"}}'
        ).encode()
    )


def test_refreeze_changes_only_the_id() -> None:
    body = freeze(envelope("d1", OutboxEvent.from_item(ITEM)))
    again = refreeze(body, "d2")
    assert json.loads(again) == {**json.loads(body), "id": "d2"}
    assert again.replace(b'"d2"', b'"d1"', 1) == body


def test_ping_envelope_has_no_workspace() -> None:
    endpoint = Endpoint(id="ep", url="https://x.test/", secret="whsec_x", workspaces=("w",))
    body = send_test_envelope(PING, "d", "e", "2026-01-01T00:00:00.000Z", endpoint, None)
    assert body == {
        "id": "d",
        "event": "ping",
        "eventId": "e",
        "occurredAt": "2026-01-01T00:00:00.000Z",
        "workspaceId": None,
        "actor": None,
        "data": {"kind": "endpoint", "id": "ep"},
    }
    assert list(body) == ["id", "event", "eventId", "occurredAt", "workspaceId", "actor", "data"]


@pytest.mark.parametrize(
    "broken",
    [
        {k: v for k, v in ITEM.items() if k != "id"},
        {**ITEM, "kind": ""},
        {**ITEM, "workspaceId": 5},
        {**ITEM, "actor": {"id": "x"}},
        {**ITEM, "data": "text"},
        {**ITEM, "data": {"kind": "content_entry"}},
        {k: v for k, v in ITEM.items() if k != "occurredAt"},
    ],
)
def test_malformed_outbox_items_are_refused(broken: dict[str, object]) -> None:
    with pytest.raises(MalformedEvent):
        OutboxEvent.from_item(broken)


def test_missing_workspace_and_actor_are_null() -> None:
    item = {k: v for k, v in ITEM.items() if k not in ("workspaceId", "actor")}
    event = OutboxEvent.from_item(item)
    assert event.workspace_id is None
    assert event.actor is None


def test_fanout_delivery_ids_are_deterministic_uuids() -> None:
    first = fanout_delivery_id("endpoint-a", "event-1")
    assert first == fanout_delivery_id("endpoint-a", "event-1")
    assert first != fanout_delivery_id("endpoint-b", "event-1")
    assert first != fanout_delivery_id("endpoint-a", "event-2")
    assert uuid.UUID(first).version == 5


def test_shards_spread_evenly() -> None:
    counts: dict[str, int] = {}
    for _ in range(SHARDS * 200):
        shard = shard_of(str(uuid.uuid4()))
        counts[shard] = counts.get(shard, 0) + 1
    assert len(counts) == SHARDS
    assert max(counts.values()) < 2 * min(counts.values())


def test_headers_of_a_delivery() -> None:
    body = b'{"id":"d"}'
    headers = request_headers(
        event="entry.created",
        delivery_id="d",
        event_id="e",
        workspace_id=None,
        attempt=3,
        secret="whsec_abc",
        body=body,
        timestamp=1_800_000_000,
        custom={"Authorization": "Bearer gate"},
    )
    assert list(headers) == [
        "Content-Type",
        "User-Agent",
        "X-Service-Event",
        "X-Service-Delivery",
        "X-Service-Event-Id",
        "X-Service-Attempt",
        "X-Service-Signature",
        "Authorization",
    ]
    assert headers["X-Service-Attempt"] == "3"
    verify_signature(body, headers["X-Service-Signature"], "whsec_abc", now=1_800_000_000)


def test_messages_name_a_delivery() -> None:
    assert parse_message(message_body("abc")) == "abc"
    for bad in ("", "abc", "[]", '{"deliveryId": 5}', '{"other": "x"}'):
        with pytest.raises(MalformedMessage):
            parse_message(bad)


def test_cursor_round_trip_and_tampering() -> None:
    key = {"id": {"S": "d"}, "endpointId": {"S": "ep"}, "createdKey": {"S": "t#d"}}
    unfiltered = log_filters(None, None, LogSearch())
    assert decode_cursor(encode_cursor(key, unfiltered), "ep", unfiltered) == key
    with pytest.raises(BadRequest):
        decode_cursor(encode_cursor(key, unfiltered), "other", unfiltered)
    with pytest.raises(BadRequest):
        decode_cursor("%%%", "ep", unfiltered)
    since = log_filters(None, None, LogSearch(since_iso="2026-01-01T00:00:00.000Z"))
    assert since != unfiltered
    with pytest.raises(BadRequest, match="other filters"):
        decode_cursor(encode_cursor(key, unfiltered), "ep", since)
