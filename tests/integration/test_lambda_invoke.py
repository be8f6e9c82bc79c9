"""The emulator's Lambda Invoke (infra/lambda_invoke.py, D130), called as boto3 calls AWS: the
template's media function answers the inspect sample by running its handler, and a handler
that raises is Lambda's function error. (An unknown function's 404 is moto's answer too; the
API's 503 for it is in tests/integration/test_assets_uploads.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from infra.local_stack import LocalStack

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def lambda_client(stack: LocalStack) -> Any:
    return stack.emulator.session().client("lambda", endpoint_url=stack.emulator.endpoint_url)


def test_the_media_function_answers_the_inspect_sample(lambda_client: Any) -> None:
    sample = (ROOT / "events" / "media-inspect-image.json").read_bytes()
    result = lambda_client.invoke(FunctionName="MediaFunction", Payload=sample)
    assert (result["StatusCode"], result.get("FunctionError")) == (200, None)
    answer = json.loads(result["Payload"].read())
    assert answer == {"contentType": "image/png", "width": 4, "height": 3}


def test_a_handler_that_raises_is_a_function_error(lambda_client: Any) -> None:
    event = {"inspect": {"head": "not base64!", "size": 3, "claimedType": "image/png"}}
    result = lambda_client.invoke(FunctionName="MediaFunction", Payload=json.dumps(event))
    assert (result["StatusCode"], result["FunctionError"]) == (200, "Unhandled")
    failure = json.loads(result["Payload"].read())
    assert failure == {"errorMessage": "the head is not base64", "errorType": "ValueError"}
