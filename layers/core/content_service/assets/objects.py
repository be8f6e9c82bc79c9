"""The assets bucket: presigned uploads, the head of an upload, moving it, preview links.

Every S3 call assets make is here, on the keys docs/assets.md lays out: `uploads/<ws>/<upload>`
for what a client sent (the bucket expires them after a day) and
`files/<ws>/<asset>/<file>/<fileName>` for an asset's files. The API's role holds exactly these
calls on exactly these prefixes (template.yaml).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import quote, unquote, urlsplit

from botocore.exceptions import ClientError

from content_service import runtime
from content_service.storage import aws

UPLOAD_SECONDS = 15 * 60
"""How long a presigned POST (and a preview link) stays valid."""
FILE_NAME_META = "file-name"
"""The upload's `x-amz-meta-file-name`: the client's file name, percent-encoded (S3 metadata
is ASCII), bound by the presigned policy like its type and size."""
_CONTENT_RANGE = re.compile(r"^bytes \d+-\d+/(\d+)$")


def _bucket() -> str:
    return runtime.settings().assets_bucket


def _client() -> Any:
    return aws.s3(runtime.settings())


def bucket_origin() -> str:
    """The origin presigned URLs of the bucket point at (`scheme://host[:port]`), which the
    pages' Content-Security-Policy allows for previews and uploads; empty without a bucket."""
    if not _bucket():
        return ""
    url: str = _client().generate_presigned_url(
        "get_object", Params={"Bucket": _bucket(), "Key": "origin"}, ExpiresIn=60
    )
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def upload_key(workspace_id: str, upload_id: str) -> str:
    return f"uploads/{workspace_id}/{upload_id}"


def file_key(workspace_id: str, asset_id: str, file_id: str, file_name: str) -> str:
    return f"files/{workspace_id}/{asset_id}/{file_id}/{file_name}"


def presigned_post(key: str, file_name: str, content_type: str, size: int) -> dict[str, Any]:
    """`{url, fields}` of a POST that S3 takes only for this key, type, name and exact size."""
    name = quote(file_name, safe="")
    meta = f"x-amz-meta-{FILE_NAME_META}"
    post: dict[str, Any] = _client().generate_presigned_post(
        _bucket(),
        key,
        Fields={"Content-Type": content_type, meta: name},
        Conditions=[
            ["content-length-range", size, size],
            {"Content-Type": content_type},
            {meta: name},
        ],
        ExpiresIn=UPLOAD_SECONDS,
    )
    return post


@dataclass(frozen=True)
class UploadHead:
    """The first bytes of an upload and what S3 says of the whole object."""

    head: bytes
    size: int
    content_type: str
    file_name: str


def read_head(key: str, length: int) -> UploadHead | None:
    """A ranged GET of the first `length` bytes (never the whole object); None when absent."""
    try:
        answer = _client().get_object(Bucket=_bucket(), Key=key, Range=f"bytes=0-{length - 1}")
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise
    with answer["Body"] as body:
        head = body.read(length)
    matched = _CONTENT_RANGE.match(str(answer.get("ContentRange", "")))
    size = int(matched.group(1)) if matched else int(answer.get("ContentLength", len(head)))
    # S3 answers metadata names in lower case; the emulator capitalises them.
    metadata = {str(k).lower(): v for k, v in (answer.get("Metadata") or {}).items()}
    return UploadHead(
        head=head,
        size=size,
        content_type=str(answer.get("ContentType", "")),
        file_name=unquote(str(metadata.get(FILE_NAME_META, ""))),
    )


def copy(source: str, target: str, content_type: str) -> None:
    """Server-side CopyObject: the bytes never pass through the service."""
    _client().copy_object(
        Bucket=_bucket(),
        Key=target,
        CopySource={"Bucket": _bucket(), "Key": source},
        ContentType=content_type,
        MetadataDirective="REPLACE",
    )


def delete(key: str) -> None:
    _client().delete_object(Bucket=_bucket(), Key=key)


def put_stream(key: str, stream: IO[bytes], content_type: str, file_name: str) -> None:
    """Streams `stream` into the bucket in parts (boto3's managed upload: 8 MB at a time)."""
    _client().upload_fileobj(
        stream,
        _bucket(),
        key,
        ExtraArgs={
            "ContentType": content_type,
            "Metadata": {FILE_NAME_META: quote(file_name, safe="")},
        },
    )


def preview_url(key: str) -> str:
    """A presigned GET of one file, valid `UPLOAD_SECONDS`: editors see drafts' files."""
    url: str = _client().generate_presigned_url(
        "get_object", Params={"Bucket": _bucket(), "Key": key}, ExpiresIn=UPLOAD_SECONDS
    )
    return url
