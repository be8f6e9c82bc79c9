"""Starting an upload: a presigned POST straight to S3, or an import from a URL.

Either way the bytes land under `uploads/<ws>/<uploadId>` and the client completes the upload
(`POST /api/v1/assets`); nothing is an asset before that. A presigned POST binds the key, the
`Content-Type`, the file name and the exact size, so S3 itself refuses any other body.
"""

from __future__ import annotations

import http.client
import io
import posixpath
import re
import uuid
from typing import Any
from urllib.parse import unquote, urlsplit

from content_service import runtime
from content_service.assets import objects
from content_service.assets.bodies import MAX_FILE_NAME, UploadBody
from content_service.audit.records import Target
from content_service.clock import iso_utc
from content_service.content.schema import ASSET_TYPE
from content_service.content.writes import check as role_check
from content_service.errors import BadRequest, Forbidden, PayloadTooLarge
from content_service.identity.principal import Caller
from content_service.identity.roles import MANAGE_ASSETS
from content_service.webhooks import wiring
from content_service.webhooks.endpoints import UrlPolicyError
from content_service.webhooks.sending import fetch

_MEDIA_TYPE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$")
_UPLOAD_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
IMPORT_TIMEOUT_MS = 25_000
"""An import ends within API Gateway's 29 seconds: connect, request and the whole body."""


def require_writer(caller: Caller) -> None:
    if not caller.can_write:
        raise Forbidden("uploading assets needs a full token with content:write, or a sign-in")


def check_upload_id(upload_id: str) -> None:
    if not _UPLOAD_ID.match(upload_id):
        raise BadRequest("uploadId must be an id this API answered for an upload")


def check_file_name(name: str) -> str:
    """A file name is one path segment: it ends an S3 key and a delivery URL."""
    bad = any(ord(c) < 32 or c in "/\\\x7f" for c in name)
    if bad or name.strip() in ("", ".", "..") or len(name) > MAX_FILE_NAME:
        raise BadRequest(
            f"fileName must be 1 to {MAX_FILE_NAME} characters without '/', '\\' or control "
            "characters"
        )
    return name


def check_media_type(value: str) -> str:
    media_type = value.split(";")[0].strip().lower()
    if not _MEDIA_TYPE.match(media_type):
        raise BadRequest("contentType must be a media type such as image/png")
    allowed = runtime.settings().assets_allowed_types
    if media_type not in allowed:
        raise BadRequest(f"{media_type} is not an allowed type (allowed: {', '.join(allowed)})")
    return media_type


def _check_size(size: int) -> None:
    limit = runtime.settings().assets_max_bytes
    if size > limit:
        raise PayloadTooLarge(f"the file is {size:,} bytes; an asset holds at most {limit:,}")


def start_upload(caller: Caller, workspace_id: str, body: UploadBody, now: float) -> dict[str, Any]:
    """`POST /api/v1/assets/uploads`: a presigned POST, or an import when `url` is given,
    for a caller whose role may manage assets (the asset itself is checked again when made)."""
    require_writer(caller)
    target = Target("asset", "upload", ASSET_TYPE)
    role_check(caller, workspace_id, MANAGE_ASSETS, target)
    if body.url is not None:
        if body.contentType is not None or body.size is not None:
            raise BadRequest("give either url (and fileName) or fileName, contentType and size")
        return import_url(workspace_id, body.url, body.fileName)
    if body.fileName is None or body.contentType is None or body.size is None:
        raise BadRequest("an upload needs fileName, contentType and size (or a url to import)")
    file_name = check_file_name(body.fileName)
    media_type = check_media_type(body.contentType)
    _check_size(body.size)
    upload_id = str(uuid.uuid4())
    post = objects.presigned_post(
        objects.upload_key(workspace_id, upload_id), file_name, media_type, body.size
    )
    return {
        "uploadId": upload_id,
        "url": post["url"],
        "fields": post["fields"],
        "expiresAt": iso_utc(now + objects.UPLOAD_SECONDS),
        "maxBytes": runtime.settings().assets_max_bytes,
    }


class _Capped(io.RawIOBase):
    """The response body, refused once it passes the cap (read as the upload streams it)."""

    def __init__(self, response: http.client.HTTPResponse, limit: int) -> None:
        super().__init__()
        self._response = response
        self._limit = limit
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        read = self._response.readinto(buffer)
        self.count += read
        if self.count > self._limit:
            raise PayloadTooLarge(f"the file is larger than {self._limit:,} bytes, the most")
        return read


def _name_from(url: str, given: str | None) -> str:
    if given is not None:
        return check_file_name(given)
    last = posixpath.basename(unquote(urlsplit(url).path))
    return check_file_name(last[:MAX_FILE_NAME] or "file")


def import_url(workspace_id: str, url: str, file_name: str | None) -> dict[str, Any]:
    """Fetches `url` into the bucket, streamed (never the whole body in memory), under the URL
    policy and the size cap; answers the `uploadId` to complete."""
    settings = runtime.settings()
    name = _name_from(url, file_name)
    deps = wiring.dependencies()
    upload_id = str(uuid.uuid4())
    try:
        with fetch(
            url,
            wiring.url_policy(settings.webhooks),
            resolver=deps.resolver,
            timeout_ms=IMPORT_TIMEOUT_MS,
            ca_bundle=deps.ca_bundle,
        ) as response:
            media_type = _accepted(response)
            stream = _Capped(response, settings.assets_max_bytes)
            key = objects.upload_key(workspace_id, upload_id)
            objects.put_stream(key, io.BufferedReader(stream), media_type, name)
        if stream.count == 0:
            objects.delete(key)
            raise BadRequest("url answered an empty body")
    except UrlPolicyError as refused:
        raise BadRequest(f"url refused by the URL policy: {refused.reason}") from None
    except (OSError, http.client.HTTPException) as error:
        raise BadRequest(f"url could not be fetched: {error or type(error).__name__}") from None
    return {
        "uploadId": upload_id,
        "fileName": name,
        "contentType": media_type,
        "size": stream.count,
    }


def _accepted(response: http.client.HTTPResponse) -> str:
    """The answer's media type, once its status and announced length are acceptable."""
    if response.status != 200:
        raise BadRequest(f"url answered {response.status}, not 200 (redirects are not followed)")
    length = response.getheader("Content-Length")
    if length is not None and length.isdigit():
        _check_size(int(length))
    return check_media_type(response.getheader("Content-Type") or "application/octet-stream")
