"""Serving a file URL: the original, streamed from the assets bucket, or an image transform.

A file URL names an immutable object (a new file gets a new file id), so every answer is
cacheable for a year (`public, max-age=31536000, immutable`) and its ETag is known before S3
is read: the file id and the normalised parameters. A conditional request that matches costs
the servability reads and no S3 call.

Every answer says `X-Content-Type-Options: nosniff` and carries a sandboxing
Content-Security-Policy: an SVG (or an HTML file uploaded as an asset) opened from its URL is a
document of the API's origin, and the sandbox keeps any script in it from running there.
SVG is never transformed: it is served as stored. A file that is not one of the five image
formats is served as an attachment, so a browser downloads it instead of rendering it.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from content_service import runtime
from content_service.assets.image_params import ImageParams, parse_image_params
from content_service.errors import BadRequest
from content_service.media.stored_files import StoredFile
from content_service.storage import aws

if TYPE_CHECKING:
    from mypy_boto3_s3.type_defs import GetObjectOutputTypeDef

IMMUTABLE = "public, max-age=31536000, immutable"
SANDBOX = "sandbox; default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:"
CHUNK_BYTES = 64 * 1024
IMAGE_FORMATS: dict[str, str] = {
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/webp": "webp",
    "image/avif": "avif",
    "image/gif": "gif",
}
SVG = "image/svg+xml"


@dataclass(frozen=True)
class Plan:
    """What a request gets: the original (`params` None) or a transform, and its validator."""

    file: StoredFile
    params: ImageParams | None
    etag: str

    def headers(self) -> dict[str, str]:
        """The headers every answer for this plan carries, a 304 included."""
        return {
            "ETag": self.etag,
            "Cache-Control": IMMUTABLE,
            "Content-Security-Policy": SANDBOX,
            "X-Content-Type-Options": "nosniff",
        }


def plan(file: StoredFile, query: Iterable[tuple[str, str]]) -> Plan:
    """Parses the query against the file's type: parameters on anything but the five image
    formats are refused, never ignored (a cached original under a transform's URL would be
    served to every page that asked for the transform)."""
    pairs = list(query)
    source = IMAGE_FORMATS.get(file.content_type.lower())
    if pairs and source is None:
        what = "SVG images are served as stored" if file.content_type == SVG else "this file"
        raise BadRequest(
            f"{what} ({file.content_type}) cannot be transformed: image parameters apply only "
            "to JPEG, PNG, WebP, AVIF and GIF images"
        )
    params = parse_image_params(pairs) if pairs and source is not None else None
    return Plan(file, params, _etag(file, params))


def _etag(file: StoredFile, params: ImageParams | None) -> str:
    identity = f"{file.address.file_id}?{params.normalised() if params else 'original'}"
    digest = hashlib.sha256(identity.encode()).digest()[:18]
    return '"' + base64.urlsafe_b64encode(digest).decode() + '"'


@dataclass(frozen=True)
class Original:
    """The stored object as a stream of chunks, never held whole."""

    chunks: Iterator[bytes]
    length: int
    media_type: str
    disposition: str


def original(chosen: Plan) -> Original:
    file = chosen.file
    settings = runtime.settings()
    answer: GetObjectOutputTypeDef = aws.s3(settings).get_object(
        Bucket=settings.assets_bucket, Key=file.key
    )
    return Original(
        chunks=answer["Body"].iter_chunks(CHUNK_BYTES),
        length=answer["ContentLength"],
        media_type=file.content_type,
        disposition=disposition(file),
    )


def disposition(file: StoredFile) -> str:
    """Images (SVG included, under its sandbox) inline; anything else an attachment."""
    kind = (
        "inline"
        if file.content_type in IMAGE_FORMATS or file.content_type == SVG
        else ("attachment")
    )
    name = file.address.file_name
    ascii_name = name.encode("ascii", "replace").decode().replace('"', "_").replace("\\", "_")
    return f"{kind}; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


@dataclass(frozen=True)
class Derived:
    body: bytes
    media_type: str


def derived(chosen: Plan) -> Derived:
    """The transform's bytes. The original is read whole: Pillow's decoders seek."""
    from content_service.assets.image_transform import transform

    assert chosen.params is not None
    settings = runtime.settings()
    answer = aws.s3(settings).get_object(Bucket=settings.assets_bucket, Key=chosen.file.key)
    source = io.BytesIO(answer["Body"].read())
    body, media_type = transform(source, chosen.params, max_pixels=settings.assets_max_pixels)
    return Derived(body, media_type)
