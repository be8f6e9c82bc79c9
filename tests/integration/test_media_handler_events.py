"""The media Lambda handler, fed the samples under events/: through the HTTP API (payload 2.0),
a published asset's JPEG comes back as the WebP the query asks for, decoded; invoked by the API
to inspect an upload's head (D130), a PNG's type and size, or the reason a file is refused."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from infra.lambda_runtime import LambdaContext, lambda_context, load_handler
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.stored_assets import stored_asset

ROOT = Path(__file__).parents[2]
HANDLER = ROOT / "functions" / "media" / "handler.py"


@pytest.fixture(scope="module")
def media_handler(stack: LocalStack) -> Iterator[Callable[[dict[str, Any], LambdaContext], Any]]:
    """Imported and called on one thread of its own, as Lambda's runtime does."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="lambda-runtime") as runtime:
        loaded = runtime.submit(load_handler, HANDLER, "handler", "media_handler_under_test")
        handler = loaded.result()
        yield lambda event, context: runtime.submit(handler, event, context).result()


def test_the_sample_gets_a_webp_of_a_published_jpeg(
    stack: LocalStack, new_workspace: Callable[..., WorkspaceAccess], media_handler: Any
) -> None:
    photo = io.BytesIO()
    Image.new("RGB", (480, 240), (10, 120, 200)).save(photo, format="JPEG")
    workspace = new_workspace()
    asset = stored_asset(stack, workspace.id, photo.getvalue(), "image/jpeg", "photo.jpg")
    text = (ROOT / "events" / "media-get-file-webp.json").read_text()
    for name, value in {
        "WORKSPACE": asset.workspace_id,
        "ASSET": asset.asset_id,
        "FILE": asset.file_id,
    }.items():
        text = text.replace("${" + name + "}", value)
    response = media_handler(json.loads(text), lambda_context("MediaFunction"))
    assert response["statusCode"] == 200
    assert response["headers"]["content-type"] == "image/webp"
    assert response["headers"]["cache-control"] == "public, max-age=31536000, immutable"
    assert response["isBase64Encoded"] is True
    image = Image.open(io.BytesIO(base64.b64decode(response["body"])))
    assert (image.format, image.size) == ("WEBP", (120, 60))


def inspect_sample() -> dict[str, Any]:
    sample: dict[str, Any] = json.loads((ROOT / "events" / "media-inspect-image.json").read_text())
    return sample


def test_the_inspect_sample_answers_the_png_s_type_and_size(media_handler: Any) -> None:
    answer = media_handler(inspect_sample(), lambda_context("MediaFunction"))
    assert answer == {"contentType": "image/png", "width": 4, "height": 3}


def test_an_inspected_file_of_another_type_than_claimed_is_refused(media_handler: Any) -> None:
    event = inspect_sample()
    event["inspect"]["claimedType"] = "image/jpeg"
    answer = media_handler(event, lambda_context("MediaFunction"))
    assert answer == {"rejected": "the file's bytes are image/png, not image/jpeg"}
