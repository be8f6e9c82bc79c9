"""The alarm topic hears each operational notice too, naming the endpoint (on AWS, where the
template's `AlarmTopicArn` is set; nothing is published without one).

The fan-out publishes while it fans the notice out, before it marks the event done, so a
fan-out that dies is run again (stream retry, the sweep's reconciliation) and publishes again:
at least once, like every delivery. The CloudWatch alarm on `EndpointsAutoDisabled` says that
an endpoint was disabled; this message says which, and why.
"""

from __future__ import annotations

import json
from typing import Any

from content_service.storage.outbox_event import OutboxEvent

SUBJECT_LIMIT = 100


def message(event: OutboxEvent) -> tuple[str, str]:
    """(subject, body) of a notice: the subject names the endpoint; the body adds its host,
    the reason and the notice itself as JSON."""
    data = event.data
    what = event.kind.removeprefix("endpoint.")
    subject = f"Webhook endpoint {what}: {data.get('id')}"[:SUBJECT_LIMIT]
    lines = [
        f"Webhook endpoint {data.get('id')} ({data.get('host')}) is {what}.",
        f"Reason: {data.get('reason')}",
        f"Consecutive dead deliveries: {data.get('consecutiveDead')}",
        f"Event {event.id} ({event.kind}) at {event.occurred_at}.",
        "",
        json.dumps({"event": event.kind, "eventId": event.id, "data": data}, sort_keys=True),
    ]
    return subject, "\n".join(lines)


class AlarmTopic:
    def __init__(self, sns: Any, topic_arn: str) -> None:
        self._sns = sns
        self._topic_arn = topic_arn

    def announce(self, event: OutboxEvent) -> None:
        subject, body = message(event)
        self._sns.publish(TopicArn=self._topic_arn, Subject=subject, Message=body)
