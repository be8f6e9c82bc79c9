"""The emulator's S3 checks presigned uploads as S3 does: WSGI middleware in front of moto.

moto 5 stores whatever a presigned upload sends: a POST whose file is larger than its policy's
`content-length-range`, whose `Content-Type` breaks a condition, whose policy expired or whose
signature is forged; a PUT past its URL's expiry, or with another `Content-Length` than the one
signed. Browsers upload assets straight to S3 with exactly these (docs/decisions.md, D121), so
the local stack must refuse what S3 refuses. Here a browser POST (multipart/form-data) is held
to its policy (`infra.s3_post_policy`), and a presigned request (`X-Amz-Signature` in its query)
to its expiry and its signature, which covers the signed headers (`content-length`,
`content-type`): botocore's `S3SigV4QueryAuth` computes what the signature should be. A refused
request gets S3's XML error and never reaches moto; any other request passes untouched.
"""

from __future__ import annotations

import calendar
import hmac
import io
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl
from xml.sax.saxutils import escape

from botocore.auth import S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from werkzeug.formparser import parse_form_data

from infra.s3_post_policy import (
    ALGORITHM,
    SIGNATURE_MISMATCH,
    UNKNOWN_ACCESS_KEY,
    UNSUPPORTED_SIGNATURE,
    PostUpload,
    Refusal,
)
from infra.s3_post_policy import check as check_post_policy

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
_MAX_EXPIRES_S = 7 * 24 * 3600
_STATUS_TEXT = {400: "400 Bad Request", 403: "403 Forbidden"}


class UploadCheck:
    """Wraps moto's WSGI app; `secrets` are the emulator's secret keys by access key id."""

    def __init__(self, app: WsgiApp, secrets: Mapping[str, str]) -> None:
        self._app = app
        self._secrets = dict(secrets)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        refusal: Refusal | None = None
        if _is_form_upload(environ):
            refusal = check_post_policy(_read_upload(environ), self._secrets, time.time())
        elif environ.get("QUERY_STRING"):
            query = _query(environ)
            if "X-Amz-Signature" in query:
                refusal = self._presigned_refusal(environ, query)
            elif {"AWSAccessKeyId", "Signature"} <= query.keys():
                refusal = UNSUPPORTED_SIGNATURE
        if refusal is None:
            return self._app(environ, start_response)
        body = _error_xml(refusal)
        start_response(
            _STATUS_TEXT[refusal.status],
            [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))],
        )
        return [body]

    def _presigned_refusal(
        self, environ: Mapping[str, Any], query: Mapping[str, str]
    ) -> Refusal | None:
        if query.get("X-Amz-Algorithm") != ALGORITHM:
            return _query_error('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"')
        try:
            signed_at = calendar.timegm(time.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ"))
            expires = int(query["X-Amz-Expires"])
            access_key, _, region, service, _ = query["X-Amz-Credential"].split("/")
        except (KeyError, ValueError):
            return _query_error(
                "Query-string authentication version 4 requires the X-Amz-Algorithm, "
                "X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and "
                "X-Amz-Expires parameters."
            )
        expired = _expiry_refusal(signed_at, expires, time.time())
        if expired is not None:
            return expired
        secret = self._secrets.get(access_key)
        if secret is None:
            return UNKNOWN_ACCESS_KEY
        signer = S3SigV4QueryAuth(Credentials(access_key, secret), service, region, expires)
        request = _as_signed(environ, query)
        canonical = signer.canonical_request(request)
        expected = signer.signature(signer.string_to_sign(request, canonical), request)
        if not hmac.compare_digest(expected, query["X-Amz-Signature"]):
            return SIGNATURE_MISMATCH
        return None


def _expiry_refusal(signed_at: int, expires: int, now: float) -> Refusal | None:
    if not 1 <= expires <= _MAX_EXPIRES_S:
        return _query_error("X-Amz-Expires must be less than a week (in seconds) that is; 604800")
    if now <= signed_at + expires:
        return None
    return Refusal(
        403,
        "AccessDenied",
        "Request has expired",
        (
            ("X-Amz-Expires", str(expires)),
            ("Expires", _iso(signed_at + expires)),
            ("ServerTime", _iso(now)),
        ),
    )


def _is_form_upload(environ: Mapping[str, Any]) -> bool:
    """A browser POST upload: S3's only multipart/form-data request (no other AWS service the
    emulator serves takes one)."""
    return environ.get("REQUEST_METHOD") == "POST" and str(
        environ.get("CONTENT_TYPE", "")
    ).lower().startswith("multipart/form-data")


def _read_upload(environ: dict[str, Any]) -> PostUpload:
    """Parses the form, then gives moto the same body to read again."""
    length = str(environ.get("CONTENT_LENGTH") or "").strip()
    stream = environ["wsgi.input"]
    body: bytes = stream.read(int(length)) if length else stream.read()
    environ["wsgi.input"] = io.BytesIO(body)
    _, form, files = parse_form_data({**environ, "wsgi.input": io.BytesIO(body)})
    fields: dict[str, str] = {}
    for name, value in form.items(multi=True):
        fields.setdefault(name.lower(), value)
    upload = files.get("file")
    size = None if upload is None else upload.stream.seek(0, io.SEEK_END)
    return PostUpload(fields, size, _bucket(environ))


def _bucket(environ: Mapping[str, Any]) -> str:
    """The bucket a path-style URL (`/bucket`) or a virtual-hosted one (`bucket.host`) names."""
    segment = str(environ.get("PATH_INFO", "")).lstrip("/").split("/", 1)[0]
    if segment:
        return segment
    return str(environ.get("HTTP_HOST", "")).split(".", 1)[0]


def _query(environ: Mapping[str, Any]) -> dict[str, str]:
    return dict(parse_qsl(str(environ.get("QUERY_STRING", "")), keep_blank_values=True))


def _as_signed(environ: Mapping[str, Any], query: Mapping[str, str]) -> AWSRequest:
    """The request as its signer saw it: its raw path and query (less the signature) and the
    signed headers with the values this request carries."""
    raw_uri = str(environ.get("REQUEST_URI") or environ.get("PATH_INFO", "/"))
    path = raw_uri.split("?", 1)[0]
    raw_query = "&".join(
        pair
        for pair in str(environ.get("QUERY_STRING", "")).split("&")
        if pair.partition("=")[0] != "X-Amz-Signature"
    )
    headers = {
        name: value
        for name in query.get("X-Amz-SignedHeaders", "").split(";")
        if (value := _header(environ, name)) is not None
    }
    host = _header(environ, "host") or ""
    request = AWSRequest(
        method=str(environ.get("REQUEST_METHOD")),
        url=f"http://{host}{path}?{raw_query}",
        headers=headers,
    )
    request.context["timestamp"] = query["X-Amz-Date"]
    return request


def _header(environ: Mapping[str, Any], name: str) -> str | None:
    key = name.upper().replace("-", "_")
    if key not in ("CONTENT_LENGTH", "CONTENT_TYPE"):
        key = f"HTTP_{key}"
    value = environ.get(key)
    return None if value is None else str(value)


def _query_error(message: str) -> Refusal:
    return Refusal(400, "AuthorizationQueryParametersError", message)


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


def _error_xml(refusal: Refusal) -> bytes:
    """S3's error body: code, message, the refusal's own elements, then request ids."""
    details = "".join(f"<{name}>{escape(value)}</{name}>" for name, value in refusal.details)
    request_id = uuid.uuid4().hex[:16].upper()
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{refusal.code}</Code><Message>{escape(refusal.message)}</Message>"
        f"{details}<RequestId>{request_id}</RequestId><HostId>{request_id}</HostId></Error>"
    ).encode()
