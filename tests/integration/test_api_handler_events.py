"""The API Lambda handler, driven by the HTTP API (payload 2.0) samples under events/.

The handler module is imported as Lambda imports it, with the function's environment: the
session key comes from SSM (moto) through Powertools parameters, not from a local file.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from infra.lambda_runtime import LambdaContext, load_handler
from infra.local_stack import LocalStack

EVENTS = Path(__file__).parents[2] / "events"
HANDLER = Path(__file__).parents[2] / "functions" / "api" / "handler.py"


@pytest.fixture(scope="module")
def api_handler(stack: LocalStack) -> Iterator[Callable[[dict[str, Any], LambdaContext], Any]]:
    """The handler imported and called on one dedicated thread, as Lambda's runtime does (Mangum
    sets up its event loop at import; Playwright's sync API leaves one running on the test
    thread)."""
    assert stack.settings is not None
    assert stack.settings.session_key_parameter, "the template names the SSM parameter"
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="lambda-runtime") as runtime:
        handler = runtime.submit(load_handler, HANDLER, "handler", "api_handler_under_test")
        loaded = handler.result()
        yield lambda event, context: runtime.submit(loaded, event, context).result()


def _event(name: str, **substitutions: str) -> dict[str, Any]:
    text = (EVENTS / name).read_text()
    for key, value in substitutions.items():
        text = text.replace("${" + key + "}", value)
    event: dict[str, Any] = json.loads(text)
    return event


def _context() -> LambdaContext:
    return LambdaContext(
        function_name="ApiFunction",
        function_version="$LATEST",
        invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:ApiFunction",
        memory_limit_in_mb=1024,
        aws_request_id=str(uuid.uuid4()),
        log_group_name="/aws/lambda/ApiFunction",
        log_stream_name="2026/11/22/[$LATEST]0123456789abcdef",
        deadline=time.monotonic() + 29,
    )


def _body(response: dict[str, Any]) -> str:
    body = response.get("body", "")
    return base64.b64decode(body).decode() if response.get("isBase64Encoded") else str(body)


def test_health_sample(api_handler: Any) -> None:
    response = api_handler(_event("api-get-healthz.json"), _context())
    assert response["statusCode"] == 200
    assert json.loads(_body(response)) == {"status": "ok"}
    assert response["headers"]["x-correlation-id"] == "Vx3QmhcNIAMEVdA="


def test_me_sample_with_a_real_token(api_handler: Any, credentials: dict[str, Any]) -> None:
    event = _event("api-get-me.json", READ_TOKEN=credentials["tokens"]["read"])
    response = api_handler(event, _context())
    assert response["statusCode"] == 200
    body = json.loads(_body(response))
    assert body["kind"] == "token"
    assert body["access"] == "read"


def test_me_sample_with_a_revoked_shape_token_is_401(api_handler: Any) -> None:
    event = _event("api-get-me.json", READ_TOKEN="cs_" + "A" * 43)
    response = api_handler(event, _context())
    assert response["statusCode"] == 401
    assert json.loads(_body(response))["error"]["code"] == "unauthorized"


def test_login_sample_with_a_wrong_password(api_handler: Any) -> None:
    response = api_handler(_event("api-post-login.json"), _context())
    assert response["statusCode"] == 401
    assert "Email or password is incorrect." in _body(response)
