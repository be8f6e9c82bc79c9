"""File URLs of assets made through the API: uploaded by presigned POST, completed, published;
the `url` an asset answers is the one delivery serves, only while the asset is published."""

from __future__ import annotations

import io

import httpx
import pytest
from PIL import Image

from content_service.content.cache_tags import change_tags
from tests.support.assets import jpeg_turned, new_asset
from tests.support.clients import ClientFactory, WorkspaceAccess

SVG_WITH_SCRIPT = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(document.cookie)</script></svg>"
)


@pytest.fixture
def http(make_client: ClientFactory) -> httpx.Client:
    """No token: file URLs are public."""
    return make_client()


def test_a_published_image_answers_its_url_and_each_transform(
    ws: WorkspaceAccess, http: httpx.Client
) -> None:
    original = jpeg_turned(60, 40)
    asset = new_asset(ws.full, original, "turned.jpg", "image/jpeg", title="Turned")
    assert asset["url"] is None
    published = ws.full.post(f"/api/v1/assets/{asset['id']}/publish")
    assert published.status_code == 200, published.text
    url = published.json()["url"]
    read = ws.read.get(f"/api/v1/assets/{asset['id']}")
    assert read.status_code == 200, read.text
    assert read.json()["url"] == url
    assert http.get(url).content == original
    formats = (("webp", "WEBP"), ("png", "PNG"), ("jpg", "JPEG"), ("gif", "GIF"), ("avif", "AVIF"))
    for fm, pillow_format in formats:
        answer = http.get(url, params={"w": "20", "fm": fm})
        assert answer.status_code == 200, answer.text
        image = Image.open(io.BytesIO(answer.content))
        assert (image.format, image.width, image.height) == (pillow_format, 20, 30)
        assert not image.getexif()


def test_trash_takes_the_file_url_down(ws: WorkspaceAccess, http: httpx.Client) -> None:
    asset = new_asset(ws.full, jpeg_turned(8, 8), "a.jpg", "image/jpeg")
    url = ws.full.post(f"/api/v1/assets/{asset['id']}/publish").json()["url"]
    served = http.get(url)
    assert served.status_code == 200
    # Kept a year at the edge: tagged with the asset, so trashing it purges the file too.
    trash_purges = set(change_tags(ws.id, "asset", asset["id"]))
    assert trash_purges & set(served.headers["surrogate-key"].split(" "))
    assert ws.full.delete(f"/api/v1/assets/{asset['id']}").status_code == 204
    assert http.get(url).status_code == 404


def test_an_uploaded_svg_is_served_sandboxed(ws: WorkspaceAccess, http: httpx.Client) -> None:
    asset = new_asset(ws.full, SVG_WITH_SCRIPT, "logo.svg", "image/svg+xml")
    url = ws.full.post(f"/api/v1/assets/{asset['id']}/publish").json()["url"]
    answer = http.get(url)
    assert answer.status_code == 200
    assert answer.headers["content-security-policy"].startswith("sandbox")
    assert http.get(url, params={"w": "5"}).status_code == 400
