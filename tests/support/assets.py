"""Helpers for the asset tests: files of a known kind, and uploads as a browser makes them."""

from __future__ import annotations

import io
from typing import Any

import httpx
from PIL import Image


def png(width: int = 30, height: int = 20) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "red").save(buffer, "PNG")
    return buffer.getvalue()


def jpeg_turned(width: int, height: int) -> bytes:
    """A JPEG stored `width` x `height` whose EXIF says to turn it a quarter (orientation 6)."""
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "blue").save(buffer, "JPEG", exif=exif.tobytes())
    return buffer.getvalue()


def presign(client: httpx.Client, file_name: str, content_type: str, size: int) -> httpx.Response:
    return client.post(
        "/api/v1/assets/uploads",
        json={"fileName": file_name, "contentType": content_type, "size": size},
    )


def post_form(upload: dict[str, Any], body: bytes, content_type: str) -> httpx.Response:
    """The browser's part: the presigned fields, then the file, straight to S3."""
    return httpx.post(
        upload["url"],
        data=upload["fields"],
        files={"file": ("upload", body, content_type)},
        timeout=30,
    )


def uploaded(client: httpx.Client, body: bytes, file_name: str, content_type: str) -> str:
    """An upload sent through its presigned POST; its id, to complete."""
    started = presign(client, file_name, content_type, len(body))
    assert started.status_code == 201, started.text
    sent = post_form(started.json(), body, content_type)
    assert sent.status_code == 204, sent.text
    upload_id: str = started.json()["uploadId"]
    return upload_id


def new_asset(
    client: httpx.Client, body: bytes, file_name: str, content_type: str, **fields: Any
) -> dict[str, Any]:
    upload_id = uploaded(client, body, file_name, content_type)
    completed = client.post("/api/v1/assets", json={"uploadId": upload_id, **fields})
    assert completed.status_code == 201, completed.text
    asset: dict[str, Any] = completed.json()
    return asset
