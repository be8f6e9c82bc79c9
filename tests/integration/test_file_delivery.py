"""File URLs over HTTP (docs/assets.md, "Delivery"): originals and transforms decoded, caching
headers and 304, 404 for whatever is not servable, an SVG with a script served sandboxed and
never transformed, parameters refused with a message, a decompression bomb a 4xx."""

from __future__ import annotations

import io
from collections.abc import Callable

import httpx
import pytest
from PIL import Image

from infra.local_stack import LocalStack
from tests.support.clients import ClientFactory, WorkspaceAccess
from tests.support.stored_assets import StoredAsset, stored_asset

IMMUTABLE = "public, max-age=31536000, immutable"
SVG_WITH_SCRIPT = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(document.cookie)</script></svg>"
)


def jpeg(size: tuple[int, int] = (640, 480)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format="JPEG")
    return out.getvalue()


@pytest.fixture
def workspace(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    return new_workspace()


@pytest.fixture
def http(make_client: ClientFactory) -> httpx.Client:
    """No token: file URLs are public."""
    return make_client()


@pytest.fixture
def photo(stack: LocalStack, workspace: WorkspaceAccess) -> StoredAsset:
    return stored_asset(stack, workspace.id, jpeg(), "image/jpeg", "photo.jpg")


def test_the_original_is_served_as_stored_with_immutable_caching(
    http: httpx.Client, photo: StoredAsset
) -> None:
    answer = http.get(photo.url)
    assert answer.status_code == 200
    assert answer.content == jpeg()
    assert answer.headers["content-type"] == "image/jpeg"
    assert answer.headers["cache-control"] == IMMUTABLE
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["etag"].startswith('"')
    assert answer.headers["content-disposition"].startswith("inline")


@pytest.mark.parametrize(
    ("fm", "pillow", "media_type"),
    [
        ("jpg", "JPEG", "image/jpeg"),
        ("png", "PNG", "image/png"),
        ("webp", "WEBP", "image/webp"),
        ("avif", "AVIF", "image/avif"),
        ("gif", "GIF", "image/gif"),
    ],
)
def test_each_format_decodes_at_the_size_asked(
    http: httpx.Client, photo: StoredAsset, fm: str, pillow: str, media_type: str
) -> None:
    answer = http.get(photo.url, params={"w": "160", "fm": fm})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == media_type
    assert answer.headers["cache-control"] == IMMUTABLE
    image = Image.open(io.BytesIO(answer.content))
    assert (image.format, image.size) == (pillow, (160, 120))
    assert not image.getexif()


def test_an_etag_per_transform_and_304_on_if_none_match(
    http: httpx.Client, photo: StoredAsset
) -> None:
    original = http.get(photo.url).headers["etag"]
    small = http.get(photo.url, params={"w": "100", "fm": "webp"})
    same = http.get(f"{photo.url}?fm=webp&w=100")
    assert small.headers["etag"] == same.headers["etag"] != original
    again = http.get(
        photo.url,
        params={"w": "100", "fm": "webp"},
        headers={"If-None-Match": small.headers["etag"]},
    )
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == small.headers["etag"]
    assert again.headers["cache-control"] == IMMUTABLE
    assert http.get(photo.url, headers={"If-None-Match": original}).status_code == 304
    assert http.get(photo.url, headers={"If-None-Match": small.headers["etag"]}).status_code == 200


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("w=5000", "'w' must be an integer from 1 to 4000"),
        ("w=10&w=20", "'w' is repeated"),
        ("width=10", "unknown image parameter 'width'"),
        ("w=10&h=10&fit=thumb&f=face", "face detection"),
    ],
)
def test_bad_parameters_are_400_with_a_message(
    http: httpx.Client, photo: StoredAsset, query: str, message: str
) -> None:
    answer = http.get(f"{photo.url}?{query}")
    assert answer.status_code == 400
    assert message in answer.json()["error"]["message"]
    assert answer.headers["cache-control"] == "no-store"


def test_an_svg_is_served_sandboxed_and_never_transformed(
    stack: LocalStack, workspace: WorkspaceAccess, http: httpx.Client
) -> None:
    svg = stored_asset(stack, workspace.id, SVG_WITH_SCRIPT, "image/svg+xml", "logo.svg")
    answer = http.get(svg.url)
    assert answer.status_code == 200
    assert answer.content == SVG_WITH_SCRIPT
    policy = [part.strip() for part in answer.headers["content-security-policy"].split(";")]
    assert "sandbox" in policy
    assert "script-src 'none'" in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    refused = http.get(svg.url, params={"w": "5", "fm": "png"})
    assert refused.status_code == 400
    assert "SVG images are served as stored" in refused.json()["error"]["message"]


def test_parameters_on_a_pdf_are_400_and_the_pdf_is_an_attachment(
    stack: LocalStack, workspace: WorkspaceAccess, http: httpx.Client
) -> None:
    pdf = stored_asset(stack, workspace.id, b"%PDF-1.7\n", "application/pdf", "report ü.pdf")
    answer = http.get(pdf.url)
    assert answer.status_code == 200
    assert answer.headers["content-disposition"] == (
        "attachment; filename=\"report ?.pdf\"; filename*=UTF-8''report%20%C3%BC.pdf"
    )
    refused = http.get(pdf.url, params={"w": "100"})
    assert refused.status_code == 400
    assert "application/pdf" in refused.json()["error"]["message"]


@pytest.mark.parametrize(
    "kind", ["draft", "trashed", "failed", "unknown file", "unknown asset", "other name"]
)
def test_a_file_that_is_not_servable_is_404(
    stack: LocalStack, workspace: WorkspaceAccess, http: httpx.Client, kind: str
) -> None:
    asset = stored_asset(
        stack,
        workspace.id,
        jpeg(),
        "image/jpeg",
        "photo.jpg",
        status="draft" if kind == "draft" else "published",
        deleted=kind == "trashed",
        state="failed" if kind == "failed" else "ready",
    )
    url = {
        "unknown file": asset.url.replace(asset.file_id, "0" * 32),
        "unknown asset": asset.url.replace(asset.asset_id, "0" * 32),
        "other name": asset.url.replace("photo.jpg", "photo.png"),
    }.get(kind, asset.url)
    answer = http.get(url)
    assert answer.status_code == 404
    assert answer.json()["error"]["message"] == "no such file"
    assert answer.headers["cache-control"] == "no-store"
    assert http.get(url, params={"w": "10"}).status_code == 404


def test_a_decompression_bomb_is_a_4xx_not_a_crash(
    stack: LocalStack, workspace: WorkspaceAccess, http: httpx.Client
) -> None:
    bomb = io.BytesIO()
    Image.new("1", (10_000, 6_000)).save(bomb, format="PNG")
    asset = stored_asset(stack, workspace.id, bomb.getvalue(), "image/png", "bomb.png")
    answer = http.get(asset.url, params={"w": "100"})
    assert answer.status_code == 400
    assert "more than 50000000 pixels" in answer.json()["error"]["message"]
