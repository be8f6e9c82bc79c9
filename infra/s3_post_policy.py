"""S3's evaluation of a browser POST upload's policy, as S3 itself makes it.

A presigned POST is a form: the object's `key` and other fields, a base64 JSON `policy` (an
expiration and conditions), its SigV4 signature with the signer's credential, then the `file`.
S3 stores the file only when the signature of the base64 policy verifies, the policy has not
expired, every condition holds (`eq`, `starts-with`, an exact `{"field": value}`, the bucket,
`content-length-range` against the file's size) and every field but `policy`,
`x-amz-signature`, `file` and `x-ignore-*` is named by a condition. moto makes none of these
checks; `infra.s3_uploads` runs this one in front of it. The expected signature is botocore's
own (`S3SigV4PostAuth`), so this module derives no key and hashes nothing itself.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from botocore.auth import S3SigV4PostAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ALGORITHM = "AWS4-HMAC-SHA256"
# Fields S3 takes without a condition naming them.
_UNCONDITIONED = frozenset({"policy", "x-amz-signature", "file"})
_IGNORED_PREFIX = "x-ignore-"


@dataclass(frozen=True)
class Refusal:
    """S3's error answer: status, code, message and the extra elements of its XML body."""

    status: int
    code: str
    message: str
    details: tuple[tuple[str, str], ...] = ()


def access_denied(message: str) -> Refusal:
    return Refusal(403, "AccessDenied", message)


def invalid_policy(message: str) -> Refusal:
    return Refusal(400, "InvalidPolicyDocument", f"Invalid Policy: {message}")


SIGNATURE_MISMATCH = Refusal(
    403,
    "SignatureDoesNotMatch",
    "The request signature we calculated does not match the signature you provided. "
    "Check your key and signing method.",
)
UNKNOWN_ACCESS_KEY = Refusal(
    403,
    "InvalidAccessKeyId",
    "The AWS Access Key Id you provided does not exist in our records.",
)
UNSUPPORTED_SIGNATURE = Refusal(
    400,
    "InvalidRequest",
    "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.",
)


@dataclass(frozen=True)
class PostUpload:
    """A POST upload as S3 reads it: its fields (names in lower case), the size of its file,
    and the bucket its URL names."""

    fields: Mapping[str, str]
    file_size: int | None
    bucket: str


def check(upload: PostUpload, secrets: Mapping[str, str], now: float) -> Refusal | None:
    """The refusal S3 would answer this upload with, or None when S3 would store it."""
    fields = upload.fields
    if upload.file_size is None:
        return Refusal(
            400,
            "InvalidArgument",
            "POST requires exactly one file upload per request.",
            (("ArgumentName", "file"), ("ArgumentValue", "0")),
        )
    if "policy" not in fields:
        # An anonymous upload: the bucket blocks public access.
        return access_denied("Access Denied")
    refused = _signature_refusal(fields, secrets)
    if refused is not None:
        return refused
    policy = _decode(fields["policy"])
    if isinstance(policy, Refusal):
        return policy
    return _expiry_refusal(policy, now) or _conditions_refusal(policy, upload)


def _signature_refusal(fields: Mapping[str, str], secrets: Mapping[str, str]) -> Refusal | None:
    if fields.get("x-amz-algorithm") != ALGORITHM:
        return UNSUPPORTED_SIGNATURE
    scope = fields.get("x-amz-credential", "").split("/")
    if len(scope) != 5 or scope[4] != "aws4_request":
        return Refusal(
            400,
            "InvalidArgument",
            "Invalid argument: x-amz-credential must be <key>/<date>/<region>/<service>/"
            "aws4_request.",
        )
    access_key, date, region, service, _ = scope
    secret = secrets.get(access_key)
    if secret is None:
        return UNKNOWN_ACCESS_KEY
    request = AWSRequest(method="POST")
    request.context["timestamp"] = date
    signer = S3SigV4PostAuth(Credentials(access_key, secret), service, region)
    expected = signer.signature(fields["policy"], request)
    if not hmac.compare_digest(expected, fields.get("x-amz-signature", "")):
        return SIGNATURE_MISMATCH
    return None


def _decode(encoded: str) -> dict[str, Any] | Refusal:
    try:
        policy = json.loads(base64.b64decode(encoded, validate=True))
    except (binascii.Error, ValueError):
        return invalid_policy("Invalid JSON.")
    if not isinstance(policy, dict):
        return invalid_policy("Invalid JSON.")
    return policy


def _expiry_refusal(policy: Mapping[str, Any], now: float) -> Refusal | None:
    expiration = policy.get("expiration")
    if not isinstance(expiration, str):
        return invalid_policy("Policy missing expiration.")
    try:
        expires = datetime.fromisoformat(expiration)
    except ValueError:
        return invalid_policy(f"Invalid 'expiration' value: '{expiration}'")
    if expires.tzinfo is None or expires.timestamp() <= now:
        return access_denied("Invalid according to Policy: Policy expired.")
    return None


@dataclass(frozen=True)
class _Condition:
    """One condition in S3's `[op, "$field", value]` form; `field` keeps the policy's case."""

    op: str
    field: str
    value: str

    def holds(self, upload: PostUpload) -> bool:
        name = self.field.lower()
        actual = upload.bucket if name == "bucket" else upload.fields.get(name)
        if actual is None:
            return False
        if self.op == "eq":
            return actual == self.value
        return actual.startswith(self.value)

    def __str__(self) -> str:
        return json.dumps([self.op, f"${self.field}", self.value])


def _conditions_refusal(policy: Mapping[str, Any], upload: PostUpload) -> Refusal | None:
    raw = policy.get("conditions")
    if not isinstance(raw, list):
        return invalid_policy("Policy missing conditions.")
    conditions: list[_Condition] = []
    size_range: tuple[int, int] | None = None
    for item in raw:
        parsed = _parse_condition(item)
        if isinstance(parsed, Refusal):
            return parsed
        if isinstance(parsed, tuple):
            size_range = parsed
        else:
            conditions.append(parsed)
    for condition in conditions:
        if not condition.holds(upload):
            return access_denied(
                f"Invalid according to Policy: Policy Condition failed: {condition}"
            )
    covered = {c.field.lower() for c in conditions}
    extra = [
        name
        for name in upload.fields
        if name not in covered
        and name not in _UNCONDITIONED
        and not name.startswith(_IGNORED_PREFIX)
    ]
    if extra:
        return access_denied(f"Invalid according to Policy: Extra input fields: {extra[0]}")
    return _size_refusal(size_range, upload.file_size or 0)


def _parse_condition(item: Any) -> _Condition | tuple[int, int] | Refusal:
    """A condition, or a `content-length-range`'s bounds, or the policy's refusal."""
    if isinstance(item, dict) and len(item) == 1:
        ((field, value),) = item.items()
        return _Condition("eq", str(field), str(value))
    if isinstance(item, list) and len(item) == 3:
        op = str(item[0]).lower()
        if op == "content-length-range":
            try:
                return int(item[1]), int(item[2])
            except (TypeError, ValueError):
                return invalid_policy(f"Invalid content-length-range: {json.dumps(item)}")
        field = str(item[1])
        if op in ("eq", "starts-with") and field.startswith("$"):
            return _Condition(op, field[1:], str(item[2]))
    return invalid_policy(f"Invalid Simple-Condition: {json.dumps(item)}")


def _size_refusal(size_range: tuple[int, int] | None, size: int) -> Refusal | None:
    if size_range is None:
        return None
    smallest, largest = size_range
    if size > largest:
        return Refusal(
            400,
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size",
            (("ProposedSize", str(size)), ("MaxSizeAllowed", str(largest))),
        )
    if size < smallest:
        return Refusal(
            400,
            "EntityTooSmall",
            "Your proposed upload is smaller than the minimum allowed size",
            (("ProposedSize", str(size)), ("MinSizeAllowed", str(smallest))),
        )
    return None
