"""An app for an API worker process that says whether the request check holds there: its one
answer sends, through the app's own DynamoDB client (`storage.aws`), a request AWS refuses
(`expression-value-unused`) to a closed port, and tells what stopped it."""

from __future__ import annotations

from typing import Any

from content_service.settings import Settings
from content_service.storage import aws
from infra.request_rules import RequestRefused

CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens, nothing is sent


def probe_app(settings: Settings) -> Any:
    """The ASGI app (an `AppFactory`): `refused <rule>` or `sent`, as plain text."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = _probe(settings.region).encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    return app


def _probe(region: str) -> str:
    client = aws.client_at("dynamodb", region, CLOSED, timeout_s=1.0, attempts=1)
    try:
        client.update_item(
            TableName="Probe",
            Key={"pk": {"S": "x"}},
            UpdateExpression="SET a = :a",
            ExpressionAttributeValues={":a": {"S": "a"}, ":unused": {"S": "y"}},
        )
    except RequestRefused as refused:
        return f"refused {refused.rule}"
    except Exception:  # the closed port answered nothing: the request was sent
        return "sent"
    return "sent"
