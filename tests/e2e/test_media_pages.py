"""The media library and the asset picker, in Chromium (docs/assets.md, "Pages"): two images
and a PDF uploaded through the media page straight to storage, one image linked to an entry in
the editor, both published, and the entry read through REST and GraphQL with an image URL that
answers WebP at the asked width."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from playwright.sync_api import FilePayload, Page, expect

from tests.support.admin_pages import Shots
from tests.support.axe import assert_no_violations
from tests.support.content import define
from tests.support.content_pages import editor_in, in_ws

pytestmark = pytest.mark.browser

PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"


def _image(kind: str, size: tuple[int, int], colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, kind)
    return out.getvalue()


def _files() -> list[FilePayload]:
    return [
        {"name": "harbour.png", "mimeType": "image/png", "buffer": _image("PNG", (64, 48), "teal")},
        {"name": "dunes.jpg", "mimeType": "image/jpeg", "buffer": _image("JPEG", (80, 40), "tan")},
        {"name": "terms.pdf", "mimeType": "application/pdf", "buffer": PDF},
    ]


def _model(ws: Any) -> None:
    define(
        ws.full,
        "post",
        [
            {"name": "title", "type": "string", "required": True},
            {"name": "hero", "type": "asset", "accept": ["image/*"]},
        ],
        titleField="title",
    )


def test_upload_link_publish_and_read_an_image_as_webp(
    page: Page, new_workspace: Any, output_dir: Path, base_url: str
) -> None:
    shot = Shots(page, output_dir)
    ws = new_workspace()
    _model(ws)
    editor_in(page, ws, "/media")
    expect(page.locator("#media-empty")).to_be_visible()
    assert_no_violations(page, "the empty media library")

    page.locator("#upload-input").set_input_files(_files())
    uploads = page.locator("#uploads > li")
    expect(uploads).to_have_count(3, timeout=20_000)
    for row in uploads.all():
        expect(row.locator(".upload-outcome")).to_have_text("Uploaded", timeout=20_000)
        expect(row.locator("progress")).to_have_attribute("value", "100")
    tiles = page.locator("#media-grid > li")
    expect(tiles).to_have_count(3, timeout=20_000)
    expect(page.locator("#asset-count")).to_have_text("3 assets")
    expect(tiles.filter(has_text="harbour.png")).to_contain_text("image/png")
    expect(tiles.filter(has_text="harbour.png")).to_contain_text("64\u00d748")
    expect(tiles.filter(has_text="terms.pdf")).to_contain_text("application/pdf")
    assert_no_violations(page, "the media library with three assets")
    shot("media-library")

    page.get_by_label("Type").select_option("image")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.locator("#media-grid > li")).to_have_count(2)

    page.locator("#media-grid > li").filter(has_text="harbour.png").get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("harbour.png")
    page.get_by_role("button", name="Publish", exact=True).click()
    warning = page.get_by_role("dialog", name="Publish an image without alt text?")
    expect(warning).to_be_visible()
    assert_no_violations(page, "the alt text warning")
    warning.get_by_role("button", name="Cancel").click()
    expect(page.locator("#asset-status")).to_have_text("Draft")
    page.get_by_role("textbox", name="Alt text").fill("A teal harbour")
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator("#asset-status")).to_have_text("Published")
    assert_no_violations(page, "an asset's page")
    shot("asset")

    page.goto(in_ws(ws, "/content/post/new"))
    page.get_by_label("Title").fill("Harbour days")
    page.get_by_label("Find the asset to link").fill("harbour")
    page.get_by_role("button", name="Link harbour.png").click()
    expect(page.locator("#linked-hero")).to_contain_text("harbour.png")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator("#save-status")).to_have_text("Saved as a new draft.", timeout=20_000)
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator("#entry-state")).to_have_text("Published")
    shot("entry-with-asset")

    [post] = ws.read.get("/api/v1/content/post").json()["items"]
    rest = ws.read.get(f"/api/v1/content/post/{post['id']}", params={"expand": "hero"}).json()
    [hero] = rest["relations"]["hero"]
    assert (hero["fileName"], hero["altText"]) == ("harbour.png", "A teal harbour")
    query = "{ posts { items { hero { url(transform: {width: 32, format: WEBP}) } } } }"
    answer = ws.read.post("/api/v1/graphql", json={"query": query}).json()
    [item] = answer["data"]["posts"]["items"]
    with httpx.Client(base_url=base_url) as public:
        for url in (f"{hero['url']}?w=32&fm=webp", item["hero"]["url"]):
            served = public.get(url)
            assert served.status_code == 200, served.text
            assert served.headers["content-type"] == "image/webp"
            decoded = Image.open(io.BytesIO(served.content))
            assert (decoded.format, decoded.width) == ("WEBP", 32)


def test_a_forged_file_shows_its_reason_and_the_picker_offers_only_accepted_files(
    page: Page, new_workspace: Any
) -> None:
    ws = new_workspace()
    _model(ws)
    editor_in(page, ws, "/media")
    forged: FilePayload = {"name": "fake.png", "mimeType": "image/png", "buffer": PDF}
    page.locator("#upload-input").set_input_files([forged, _files()[2]])
    outcomes = page.locator("#uploads .upload-outcome")
    expect(outcomes.first).to_contain_text("Failed: the file's bytes are", timeout=20_000)
    expect(outcomes.nth(1)).to_have_text("Uploaded", timeout=20_000)
    expect(page.locator("#upload-status")).to_have_text("1 uploaded, 1 failed.")

    page.goto(in_ws(ws, "/content/post/new"))
    page.get_by_label("Find the asset to link").focus()
    expect(page.locator("#results-status-hero")).to_have_text("No assets to link yet.")
