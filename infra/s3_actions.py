"""What IAM checks for one S3 REST request: its actions and resource ARNs, from the method, the
path, the query and the headers, as the least-privilege run sees the request at the wire
(docs/decisions.md, D127).

S3 has no `X-Amz-Target`: the operation is the method on a path-style URL (`/bucket/key`), its
subresource (`?uploads`, `?versionId=`, `?delete`...) and a few headers (`x-amz-copy-source`).
A copy (and an UploadPartCopy) needs `s3:GetObject` on its source as well as `s3:PutObject` on
its target; a multi-object delete needs `s3:DeleteObject` on each key its body names; a
multipart upload's parts and completion are `s3:PutObject`; a browser's POST upload is the
`s3:PutObject` of whoever signed its policy, on the key its form names. A presigned URL is the
request it signs. Only the operations this stack's code or its emulator set-up send are mapped;
any other is refused with its name rather than guessed.
"""

from __future__ import annotations

import email.parser
import email.policy
from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit
from xml.etree import ElementTree

from infra.template_model import TemplateError

_SIGNING = frozenset(
    {
        "X-Amz-Algorithm",
        "X-Amz-Credential",
        "X-Amz-Date",
        "X-Amz-Expires",
        "X-Amz-SignedHeaders",
        "X-Amz-Signature",
        "X-Amz-Security-Token",
        "x-id",
    }
)
# (method, subresource) on a bucket: the action. "" is no subresource.
_BUCKET_ACTIONS = {
    ("GET", ""): "ListBucket",
    ("HEAD", ""): "ListBucket",
    ("GET", "list-type"): "ListBucket",
    ("GET", "versions"): "ListBucketVersions",
    ("GET", "uploads"): "ListBucketMultipartUploads",
    ("GET", "location"): "GetBucketLocation",
    ("GET", "versioning"): "GetBucketVersioning",
    ("PUT", ""): "CreateBucket",
    ("PUT", "versioning"): "PutBucketVersioning",
    ("PUT", "publicAccessBlock"): "PutBucketPublicAccessBlock",
    ("DELETE", ""): "DeleteBucket",
}
# (method, subresource) on an object; "versionId" alone makes the action its Version form.
_OBJECT_ACTIONS = {
    ("GET", ""): "GetObject",
    ("HEAD", ""): "GetObject",
    ("GET", "tagging"): "GetObjectTagging",
    ("PUT", ""): "PutObject",
    ("PUT", "uploadId"): "PutObject",
    ("PUT", "tagging"): "PutObjectTagging",
    ("POST", "uploads"): "PutObject",
    ("POST", "uploadId"): "PutObject",
    ("GET", "uploadId"): "ListMultipartUploadParts",
    ("DELETE", ""): "DeleteObject",
    ("DELETE", "uploadId"): "AbortMultipartUpload",
    ("DELETE", "tagging"): "DeleteObjectTagging",
}
_VERSIONED = {"GetObject", "DeleteObject", "GetObjectTagging", "PutObjectTagging"}
_SUBRESOURCES = (
    "uploads",
    "uploadId",
    "tagging",
    "versioning",
    "versions",
    "location",
    "publicAccessBlock",
    "delete",
    "list-type",
)


# Query parameters that qualify an operation without making it another one.
_PARAMETERS = frozenset(
    {
        "prefix",
        "delimiter",
        "max-keys",
        "continuation-token",
        "start-after",
        "encoding-type",
        "fetch-owner",
        "marker",
        "key-marker",
        "version-id-marker",
        "upload-id-marker",
        "max-uploads",
        "max-parts",
        "part-number-marker",
        "partNumber",
        "versionId",
        "response-content-type",
        "response-content-disposition",
        "response-cache-control",
        "response-content-encoding",
        "response-content-language",
        "response-expires",
    }
)


class S3Permission(NamedTuple):
    action: str
    resource: str


def is_s3(headers: Mapping[str, str], path: str) -> bool:
    """Whether a request is for S3: signed for it (its Authorization header or presigned query),
    or a browser's POST upload (S3's only multipart/form-data request; its signature is a form
    field)."""
    if headers.get("content-type", "").lower().startswith("multipart/form-data"):
        return True
    authorization = headers.get("authorization", "")
    query = dict(parse_qsl(urlsplit(path).query))
    credential = query.get("X-Amz-Credential", authorization.partition("Credential=")[2])
    return credential.split(",")[0].split("/")[3:4] == ["s3"]


def required(method: str, path: str, headers: Mapping[str, str], body: bytes) -> list[S3Permission]:
    """The actions and ARNs one S3 request needs; `headers` with lower-case names."""
    parts = urlsplit(path)
    bucket, _, key = unquote(parts.path).lstrip("/").partition("/")
    query = {k: v for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in _SIGNING}
    unknown = set(query) - _PARAMETERS - set(_SUBRESOURCES)
    if unknown:
        raise TemplateError(f"no IAM mapping for the S3 request {method} {_shown(path)}")
    subresource = next((s for s in _SUBRESOURCES if s in query), "")
    if not bucket:
        return [_permission("ListAllMyBuckets", "*", method, path)]
    if method == "POST" and not key:
        return _bucket_post(bucket, subresource, headers, body, path)
    if not key:
        action = _BUCKET_ACTIONS.get((method, subresource))
        return [_permission(action, f"arn:aws:s3:::{bucket}", method, path)]
    action = _OBJECT_ACTIONS.get((method, subresource))
    if action in _VERSIONED and "versionId" in query:
        action = action.replace("Object", "ObjectVersion", 1)
    found = [_permission(action, f"arn:aws:s3:::{bucket}/{key}", method, path)]
    source = headers.get("x-amz-copy-source")
    if method == "PUT" and source:
        found.insert(0, _copy_source(source))
    return found


def _permission(action: str | None, resource: str, method: str, path: str) -> S3Permission:
    if action is None:
        raise TemplateError(f"no IAM mapping for the S3 request {method} {_shown(path)}")
    return S3Permission(f"s3:{action}", resource)


def _shown(path: str) -> str:
    """The path and the query's names, never a presigned URL's signature or session token."""
    parts = urlsplit(path)
    names = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True) if k not in _SIGNING]
    return f"{parts.path}?{'&'.join(names)}" if names else parts.path


def _copy_source(source: str) -> S3Permission:
    """`s3:GetObject` (or `GetObjectVersion`) on a copy's source, `bucket/key[?versionId=]`."""
    location, _, version = unquote(source).lstrip("/").partition("?versionId=")
    action = "s3:GetObjectVersion" if version else "s3:GetObject"
    return S3Permission(action, f"arn:aws:s3:::{location}")


def _bucket_post(
    bucket: str, subresource: str, headers: Mapping[str, str], body: bytes, path: str
) -> list[S3Permission]:
    if subresource == "delete":
        return _deleted(bucket, body)
    if headers.get("content-type", "").lower().startswith("multipart/form-data"):
        key = _form_key(headers["content-type"], body)
        return [S3Permission("s3:PutObject", f"arn:aws:s3:::{bucket}/{key}")]
    raise TemplateError(f"no IAM mapping for the S3 request POST {_shown(path)}")


def _deleted(bucket: str, body: bytes) -> list[S3Permission]:
    """DeleteObjects: `s3:DeleteObject` (or `DeleteObjectVersion`) on each key it names."""
    found = []
    # The body is a request our own code sent through the recorder, not someone else's input.
    for element in ElementTree.fromstring(body):  # noqa: S314
        if element.tag.rsplit("}", 1)[-1] != "Object":
            continue
        fields = {child.tag.rsplit("}", 1)[-1]: child.text or "" for child in element}
        action = "s3:DeleteObjectVersion" if fields.get("VersionId") else "s3:DeleteObject"
        found.append(S3Permission(action, f"arn:aws:s3:::{bucket}/{fields['Key']}"))
    return found


def _form_key(content_type: str, body: bytes) -> str:
    """The key a browser POST stores: its `key` field, `${filename}` replaced by the file's."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    key, filename = None, ""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name == "key":
            key = str(part.get_content())
        elif name == "file":
            filename = part.get_filename() or ""
    if key is None:
        raise TemplateError("an S3 POST upload without a key field")
    return key.replace("${filename}", filename)
