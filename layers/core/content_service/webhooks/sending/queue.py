"""The delivery queue: one SQS message per delivery id, sent ten to a request.

A message only names a row; the row is the truth. A message delivered twice, late or after the
row finished costs one conditional claim that fails, never a second attempt.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

SEND_BATCH_LIMIT = 10
MAX_DELAY_SECONDS = 900  # SQS's per-message maximum; longer waits are the sweep's


class MalformedMessage(ValueError):
    """The message names no delivery; it is logged and dropped."""


def message_body(delivery_id: str) -> str:
    return json.dumps({"deliveryId": delivery_id}, separators=(",", ":"))


def parse_message(body: str) -> str:
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        raise MalformedMessage("message body is not JSON") from None
    delivery_id = parsed.get("deliveryId") if isinstance(parsed, dict) else None
    if not isinstance(delivery_id, str) or not 0 < len(delivery_id) <= 100:
        raise MalformedMessage("message body names no deliveryId")
    return delivery_id


class DeliveryQueue:
    def __init__(self, sqs: SQSClient, queue_url: str) -> None:
        if not queue_url:
            raise ValueError("DELIVERY_QUEUE_URL is not set")
        self._sqs = sqs
        self._url = queue_url

    def enqueue(self, ids: Sequence[str], delay_seconds: int = 0) -> int:
        """Sends one message per id with the same delay; returns the number of requests."""
        return self.enqueue_delayed([(i, delay_seconds) for i in ids])

    def enqueue_delayed(self, items: Sequence[tuple[str, int]]) -> int:
        """Sends (id, delay seconds) pairs, ten per SendMessageBatch; retries failed entries.

        Raises when an entry still fails, so a caller that must not lose an id (the fan-out)
        reports its record as failed and is called again.
        """
        requests = 0
        for start in range(0, len(items), SEND_BATCH_LIMIT):
            entries: list[Any] = [
                {
                    "Id": str(index),
                    "MessageBody": message_body(delivery_id),
                    "DelaySeconds": max(0, min(int(delay), MAX_DELAY_SECONDS)),
                }
                for index, (delivery_id, delay) in enumerate(
                    items[start : start + SEND_BATCH_LIMIT]
                )
            ]
            for _ in range(3):
                requests += 1
                response = self._sqs.send_message_batch(QueueUrl=self._url, Entries=entries)
                failed = {f["Id"] for f in response.get("Failed", [])}
                entries = [e for e in entries if e["Id"] in failed]
                if not entries:
                    break
            if entries:
                raise RuntimeError(f"SQS refused {len(entries)} delivery message(s)")
        return requests
