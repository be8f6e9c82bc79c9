"""Uploads and processing (docs/assets.md): a presigned POST straight to the emulator's S3,
then completion, which reads the real type from the head of the bytes.

Over real HTTP against the test stack: the API presigns, the test posts the form to S3 as a
browser does, and the emulator holds the POST to its signed policy as S3 does.
"""

from __future__ import annotations

import dataclasses
import json
import struct
import zlib
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from infra.local_stack import LocalStack
from tests.support.assets import (
    jpeg_turned,
    new_asset,
    png,
    post_form,
    presign,
    uploaded,
)
from tests.support.clients import WorkspaceAccess
from tests.support.content import assert_error
from tests.support.settings import settings_changed

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


def keys(s3: S3Client, bucket: str, prefix: str) -> list[str]:
    listed = s3.list_objects_v2(Bucket=bucket, Prefix=prefix)
    return [o["Key"] for o in listed.get("Contents", [])]


def png_header(width: int, height: int) -> bytes:
    """A PNG whose header announces `width` x `height` (a decompression bomb's shape)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_an_upload_becomes_a_ready_draft_asset_with_its_file_moved(
    ws: WorkspaceAccess, s3: S3Client, bucket: str
) -> None:
    body = png(30, 20)
    upload_id = uploaded(ws.full, body, "red dot.png", "image/png")
    assert keys(s3, bucket, f"uploads/{ws.id}/{upload_id}") == [f"uploads/{ws.id}/{upload_id}"]
    completed = ws.full.post("/api/v1/assets", json={"uploadId": upload_id, "altText": "red"})
    assert completed.status_code == 201, completed.text
    asset = completed.json()
    assert {k: asset[k] for k in ("fileName", "contentType", "size", "width", "height")} == {
        "fileName": "red dot.png",
        "contentType": "image/png",
        "size": len(body),
        "width": 30,
        "height": 20,
    }
    assert (asset["state"], asset["status"], asset["title"], asset["altText"]) == (
        "ready",
        "draft",
        "red dot.png",
        "red",
    )
    assert asset["url"] is None
    assert keys(s3, bucket, f"uploads/{ws.id}/{upload_id}") == []
    (stored,) = keys(s3, bucket, f"files/{ws.id}/{asset['id']}/")
    assert stored.endswith("/red dot.png")
    preview = httpx.get(asset["previewUrl"], timeout=30)
    assert preview.status_code == 200
    assert preview.content == body


def test_the_displayed_size_follows_the_exif_orientation(ws: WorkspaceAccess) -> None:
    asset = new_asset(ws.full, jpeg_turned(40, 10), "turned.jpg", "image/jpeg")
    assert (asset["state"], asset["width"], asset["height"]) == ("ready", 10, 40)


def test_an_upload_over_the_cap_is_refused_before_any_upload(ws: WorkspaceAccess) -> None:
    response = presign(ws.full, "huge.png", "image/png", 100 * 1024 * 1024 + 1)
    error = assert_error(response, 413, "payload_too_large")
    assert "at most 104,857,600" in error["message"]


def test_s3_itself_refuses_a_body_of_another_size_than_announced(ws: WorkspaceAccess) -> None:
    started = presign(ws.full, "small.png", "image/png", 100)
    assert started.status_code == 201, started.text
    upload = started.json()
    assert upload["maxBytes"] == 100 * 1024 * 1024
    refused = post_form(upload, b"p" * 5000, "image/png")
    assert refused.status_code == 400
    assert "<Code>EntityTooLarge</Code>" in refused.text
    unknown = ws.full.post("/api/v1/assets", json={"uploadId": upload["uploadId"]})
    assert "not found" in assert_error(unknown, 404)["message"]


@pytest.mark.parametrize(
    ("body", "claimed", "reason"),
    [
        (png(), "image/jpeg", "the file's bytes are image/png, not image/jpeg"),
        (b"<!DOCTYPE html><html><script>alert(1)</script></html>", "image/png", "text/html"),
        (b"<html><body>hi</body></html>", "text/plain", "text/html, not text/plain"),
        (b"\x00\x01binary", "text/csv", "binary data"),
        (png_header(20000, 20000), "image/png", "more than 50,000,000 pixels"),
    ],
    ids=["png-as-jpeg", "html-as-png", "html-as-text", "binary-as-csv", "decompression-bomb"],
)
def test_a_file_whose_bytes_are_not_what_was_claimed_fails_with_its_reason(
    ws: WorkspaceAccess, s3: S3Client, bucket: str, body: bytes, claimed: str, reason: str
) -> None:
    asset = new_asset(ws.full, body, "claimed", claimed)
    assert asset["state"] == "failed"
    assert reason in asset["reason"]
    assert asset["contentType"] == claimed
    assert keys(s3, bucket, f"files/{ws.id}/{asset['id']}/") == []
    assert "previewUrl" not in asset
    refused = ws.full.post(f"/api/v1/assets/{asset['id']}/publish")
    assert "not ready" in assert_error(refused, 409)["message"]


def test_completing_the_same_upload_again_answers_the_same_asset(ws: WorkspaceAccess) -> None:
    upload_id = uploaded(ws.full, png(), "a.png", "image/png")
    first = ws.full.post("/api/v1/assets", json={"uploadId": upload_id})
    again = ws.full.post("/api/v1/assets", json={"uploadId": upload_id})
    assert (first.status_code, again.status_code) == (201, 201), again.text
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["version"] == first.json()["version"]
    listed = ws.full.get("/api/v1/assets").json()
    assert [a["id"] for a in listed["items"]] == [first.json()["id"]]


def test_the_media_function_inspects_an_upload_as_on_aws(
    stack: LocalStack, ws: WorkspaceAccess
) -> None:
    """The template names the media function to the API (D130): completion invokes it, through
    the emulator's Lambda, with the head; its answer is the asset's type and size."""
    assert stack.recorder is not None
    upload_id = uploaded(ws.full, png(40, 10), "wide.png", "image/png")
    with stack.recorder.capture() as calls:
        completed = ws.full.post("/api/v1/assets", json={"uploadId": upload_id})
    assert completed.status_code == 201, completed.text
    assert (completed.json()["width"], completed.json()["height"]) == (40, 10)
    (invoke,) = [c for c in calls if c.path.endswith("/invocations")]
    assert invoke.path == "/2015-03-31/functions/MediaFunction/invocations"
    assert invoke.status == 200
    assert invoke.body["inspect"]["claimedType"] == "image/png"
    assert json.loads(invoke.raw_response) == {
        "contentType": "image/png",
        "width": 40,
        "height": 10,
    }


def test_an_invoke_that_fails_answers_503_and_the_same_completion_then_succeeds(
    ws: WorkspaceAccess, s3: S3Client, bucket: str
) -> None:
    """A failed invoke is not the file's fault: no asset is made (least of all a failed one),
    the upload stays, and completing it again works once the function answers."""
    upload_id = uploaded(ws.full, png(), "a.png", "image/png")
    with settings_changed(lambda s: dataclasses.replace(s, media_function_name="NoSuchFunction")):
        refused = ws.full.post("/api/v1/assets", json={"uploadId": upload_id})
    assert "again" in assert_error(refused, 503, "service_unavailable")["message"]
    assert ws.full.get("/api/v1/assets").json()["items"] == []
    assert keys(s3, bucket, f"uploads/{ws.id}/{upload_id}") == [f"uploads/{ws.id}/{upload_id}"]
    again = ws.full.post("/api/v1/assets", json={"uploadId": upload_id})
    assert again.status_code == 201, again.text
    assert (again.json()["state"], again.json()["version"]) == ("ready", 1)


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"fileName": "a.png", "contentType": "image/png"}, 400, "needs fileName, contentType"),
        ({"fileName": "a/b.png", "contentType": "image/png", "size": 3}, 400, "without '/'"),
        (
            {"fileName": "a.exe", "contentType": "application/x-msdownload", "size": 3},
            400,
            "not an allowed type",
        ),
        ({"fileName": "a.png", "contentType": "png", "size": 3}, 400, "media type"),
        ({"fileName": "a.png", "contentType": "image/png", "size": 0}, 422, None),
        ({"fileName": "a.png", "contentType": "image/png", "size": "3"}, 422, None),
        ({"url": "http://x.test/a.png", "size": 3}, 400, "either url"),
        ({"fileName": "a.png", "contentType": "image/png", "size": 3, "key": "x"}, 422, None),
    ],
)
def test_bad_upload_requests_are_readable_4xx(
    ws: WorkspaceAccess, body: dict[str, Any], status: int, words: str | None
) -> None:
    response = ws.full.post("/api/v1/assets/uploads", json=body)
    error = assert_error(response, status)
    if words is not None:
        assert words in error["message"]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"uploadId": "../../etc"}, 400, "uploadId must be"),
        ({"uploadId": "8f7c0d4e-5b8a-4d8f-9a53-0e1f2a3b4c5d"}, 404, "upload the file first"),
        ({}, 422, "uploadId"),
        (
            {"uploadId": "8f7c0d4e-5b8a-4d8f-9a53-0e1f2a3b4c5d", "file": {"state": "ready"}},
            422,
            "file",
        ),
    ],
)
def test_bad_completions_are_readable_4xx(
    ws: WorkspaceAccess, body: dict[str, Any], status: int, words: str
) -> None:
    error = assert_error(ws.full.post("/api/v1/assets", json=body), status)
    assert words in json.dumps(error)


def test_a_read_token_cannot_upload(ws: WorkspaceAccess) -> None:
    assert_error(presign(ws.read, "a.png", "image/png", 10), 403)
