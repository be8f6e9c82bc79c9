"""Inspection by the media function: the request the API sends, the answer it gets, both sides.

The API's python3.11 layer has no Pillow (D122), so with `MEDIA_FUNCTION_NAME` set the API
invokes the python3.12 media function synchronously with the upload's head, and the media
function runs `inspection.inspect` (docs/decisions.md, D130). The request is
`{"inspect": {"head": <base64>, "size": n, "claimedType": "..."}}`; the answer is
`{"contentType", "width", "height"}` or `{"rejected": reason}`. Both halves live here, so the
wire format cannot drift between them.

An invoke that fails (Lambda refuses it, the function raises or times out, the answer is not
one of the two shapes) says nothing about the file: it is `ServiceUnavailable` (503), no asset
is made, and the client completes the same upload again (completion is idempotent).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any, TypeGuard

from botocore.exceptions import BotoCoreError, ClientError

from content_service.assets.inspection import Inspection, Rejected, inspect
from content_service.errors import ServiceUnavailable
from content_service.observability import logger
from content_service.settings import Settings
from content_service.storage import aws

EVENT_KEY = "inspect"
INVOKE_TIMEOUT_S = 10.0
"""How long the API waits for the media function's answer (its cold start included)."""
INVOKE_ATTEMPTS = 2
"""A throttled or timed-out invoke is tried once more: 20 s at most, inside the API's 29 s."""
_UNAVAILABLE = "the file could not be inspected just now; complete the upload again"


def inspect_file(head: bytes, size: int, claimed_type: str, settings: Settings) -> Inspection:
    """`inspect`, by the media function when one is named, else in this process."""
    if not settings.media_function_name:
        return inspect(head, size, claimed_type, settings)
    return _from_answer(_invoke(request(head, size, claimed_type), settings))


def request(head: bytes, size: int, claimed_type: str) -> dict[str, Any]:
    """The invoke's payload."""
    return {
        EVENT_KEY: {
            "head": base64.b64encode(head).decode("ascii"),
            "size": size,
            "claimedType": claimed_type,
        }
    }


def is_request(event: object) -> bool:
    """Whether a media function event is an inspection (API Gateway's events never are)."""
    return isinstance(event, Mapping) and isinstance(event.get(EVENT_KEY), Mapping)


def answer(event: Mapping[str, Any], settings: Settings) -> dict[str, Any]:
    """The media function's side: the inspection's answer. A malformed request raises
    `ValueError` (a function error: the API answers 503, it is not the file's fault)."""
    asked = event[EVENT_KEY]
    head, size, claimed = asked.get("head"), asked.get("size"), asked.get("claimedType")
    if not isinstance(head, str) or not isinstance(claimed, str):
        raise ValueError("an inspection needs a base64 head and a claimedType")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError("an inspection needs the file's size, a whole number")
    try:
        raw = base64.b64decode(head, validate=True)
    except binascii.Error:
        raise ValueError("the head is not base64") from None
    try:
        seen = inspect(raw, size, claimed, settings)
    except Rejected as rejected:
        return {"rejected": rejected.reason}
    return {"contentType": seen.content_type, "width": seen.width, "height": seen.height}


def _invoke(payload: dict[str, Any], settings: Settings) -> object:
    """The function's parsed answer; `ServiceUnavailable` when there is none to trust."""
    client = aws.lambda_(settings, INVOKE_TIMEOUT_S, INVOKE_ATTEMPTS)
    name = settings.media_function_name
    try:
        result = client.invoke(
            FunctionName=name,
            InvocationType="RequestResponse",
            Payload=json.dumps(payload).encode(),
        )
        body = result["Payload"].read()
    except (BotoCoreError, ClientError) as error:
        logger.error(
            "invoking the media function failed", extra={"function": name, "error": str(error)}
        )
        raise ServiceUnavailable(_UNAVAILABLE) from None
    if result.get("FunctionError"):
        logger.error(
            "the media function failed an inspection",
            extra={"function": name, "error": body[:1000].decode("utf-8", "replace")},
        )
        raise ServiceUnavailable(_UNAVAILABLE)
    try:
        return json.loads(body)
    except ValueError:
        logger.error("the media function's answer is not JSON", extra={"function": name})
        raise ServiceUnavailable(_UNAVAILABLE) from None


def _from_answer(answered: object) -> Inspection:
    """The answer back as `Inspection`, or `Rejected` raised."""
    if isinstance(answered, Mapping):
        if isinstance(answered.get("rejected"), str):
            raise Rejected(answered["rejected"])
        content_type, width, height = (answered.get(k) for k in ("contentType", "width", "height"))
        if isinstance(content_type, str) and _size(width) and _size(height):
            return Inspection(content_type, width, height)
    logger.error(
        "the media function's answer has neither shape", extra={"answer": str(answered)[:500]}
    )
    raise ServiceUnavailable(_UNAVAILABLE)


def _size(value: object) -> TypeGuard[int | None]:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))
