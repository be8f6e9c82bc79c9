"""Deliveries to an Amazon EventBridge bus: one `PutEvents` entry per delivery.

An endpoint of `type: eventbridge` names a bus by ARN. Each attempt puts one entry: `Source`
`content-service`, `DetailType` the event kind, `Detail` the frozen envelope (the bytes an HTTP
endpoint would get, a JSON object). EventBridge authenticates the caller (the delivery
function's role), so nothing is signed and no header is sent. An entry that fails (a refused
call, a throttled or failed entry, a timeout, a bus no longer on the allow-list) is a failed
attempt with no status, retried on the ladder and counted like an HTTP failure; an accepted
entry is a success, its `EventId` kept as the response snippet.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from .bounds import clip_error
from .http_sender import SendResult

SOURCE = "content-service"


class EventBusSender:
    """`client` is called for the EventBridge client when a put is first needed."""

    def __init__(self, client: Callable[[], Any], allowed: Sequence[str]) -> None:
        self._client = client
        self._allowed = frozenset(allowed)

    def put(self, bus_arn: str, kind: str, body: bytes) -> SendResult:
        if bus_arn not in self._allowed:
            return SendResult(
                None, 0, "", f"event bus {bus_arn} is not on WEBHOOKS_EVENTBRIDGE_BUSES", None
            )
        entry = {
            "Source": SOURCE,
            "DetailType": kind,
            "Detail": body.decode("utf-8"),
            "EventBusName": bus_arn,
        }
        started = time.monotonic()
        try:
            response = self._client().put_events(Entries=[entry])
        except (ClientError, BotoCoreError) as error:
            return SendResult(None, _since(started), "", clip_error(_describe(error)), None)
        (result,) = response.get("Entries") or [{}]
        if response.get("FailedEntryCount") or "EventId" not in result:
            why = f"{result.get('ErrorCode', 'no event id')}: {result.get('ErrorMessage', '')}"
            return SendResult(
                None, _since(started), "", clip_error(f"PutEvents entry failed: {why}"), None
            )
        snippet = json.dumps({"EventId": result["EventId"]})
        return SendResult(None, _since(started), snippet, None, None, accepted=True)


def _since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def _describe(error: BaseException) -> str:
    if isinstance(error, ClientError):
        details = error.response.get("Error", {})
        return f"PutEvents refused: {details.get('Code', '?')}: {details.get('Message', '')}"
    return f"PutEvents failed: {type(error).__name__}: {error}"
