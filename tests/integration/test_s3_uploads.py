"""The emulator's S3 refuses presigned uploads as S3 does (docs/development.md, "The
emulator's S3"; docs/decisions.md, D121).

Over real HTTP to the test stack's emulator, a browser-style POST (multipart/form-data, the
policy's fields then the file) and presigned PUTs, each made with boto3's own presigners: moto
alone stores every one of them, whatever its policy or signature says.
"""

from __future__ import annotations

import base64
import datetime
import json
import re
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from unittest import mock

import httpx
import pytest
from botocore.config import Config

from infra.local_stack import LocalStack

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

PNG_ONLY_UP_TO_100_BYTES: list[Any] = [
    ["content-length-range", 1, 100],
    {"Content-Type": "image/png"},
]


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as client:
        yield client


def presigned_post(s3: S3Client, bucket: str, key: str, expires_in: int = 900) -> dict[str, Any]:
    post: dict[str, Any] = s3.generate_presigned_post(
        bucket,
        key,
        Fields={"Content-Type": "image/png"},
        Conditions=PNG_ONLY_UP_TO_100_BYTES,
        ExpiresIn=expires_in,
    )
    return post


def upload(http: httpx.Client, post: dict[str, Any], body: bytes, **fields: str) -> httpx.Response:
    """A browser's form: the presigned fields (some replaced or added), then the file."""
    form = {**post["fields"], **fields}
    return http.post(post["url"], data=form, files={"file": ("image.png", body, "image/png")})


def stored(s3: S3Client, bucket: str, key: str) -> bool:
    return s3.list_objects_v2(Bucket=bucket, Prefix=key)["KeyCount"] > 0


def error(response: httpx.Response) -> dict[str, str]:
    """S3's XML error body as {element: text} (flat: an S3 error nests nothing)."""
    assert response.headers["content-type"] == "application/xml"
    return dict(re.findall(r"<(\w+)>([^<]*)</\1>", response.text))


def new_key() -> str:
    return f"uploads/{uuid.uuid4().hex}.png"


def test_an_upload_within_its_policy_is_stored(
    s3: S3Client, bucket: str, http: httpx.Client
) -> None:
    key = new_key()
    response = upload(http, presigned_post(s3, bucket, key), b"p" * 50)
    assert response.status_code == 204, response.text
    head = s3.head_object(Bucket=bucket, Key=key)
    assert (head["ContentLength"], head["ContentType"]) == (50, "image/png")


def test_a_file_larger_than_the_signed_range_is_entity_too_large(
    s3: S3Client, bucket: str, http: httpx.Client
) -> None:
    key = new_key()
    response = upload(http, presigned_post(s3, bucket, key), b"p" * 5000)
    assert response.status_code == 400
    refused = error(response)
    assert refused["Code"] == "EntityTooLarge"
    assert (refused["ProposedSize"], refused["MaxSizeAllowed"]) == ("5000", "100")
    assert not stored(s3, bucket, key)


def test_an_empty_file_below_the_signed_range_is_entity_too_small(
    s3: S3Client, bucket: str, http: httpx.Client
) -> None:
    key = new_key()
    response = upload(http, presigned_post(s3, bucket, key), b"")
    assert response.status_code == 400
    assert error(response)["Code"] == "EntityTooSmall"
    assert not stored(s3, bucket, key)


def test_another_content_type_fails_its_condition(
    s3: S3Client, bucket: str, http: httpx.Client
) -> None:
    key = new_key()
    response = upload(
        http, presigned_post(s3, bucket, key), b"p" * 50, **{"Content-Type": "text/html"}
    )
    assert response.status_code == 403
    refused = error(response)
    assert (refused["Code"], refused["Message"]) == (
        "AccessDenied",
        "Invalid according to Policy: Policy Condition failed: "
        '["eq", "$Content-Type", "image/png"]',
    )
    assert not stored(s3, bucket, key)


def test_another_key_than_the_signed_one_fails_its_condition(
    s3: S3Client, bucket: str, http: httpx.Client
) -> None:
    post, elsewhere = presigned_post(s3, bucket, new_key()), new_key()
    response = upload(http, post, b"p" * 50, key=elsewhere)
    assert response.status_code == 403
    assert '"$key"' in error(response)["Message"]
    assert not stored(s3, bucket, elsewhere)


def test_an_expired_policy_is_refused(s3: S3Client, bucket: str, http: httpx.Client) -> None:
    key = new_key()
    # Signed a minute after its expiration: a policy whose time is up, without waiting for it.
    post = presigned_post(s3, bucket, key, expires_in=-60)
    response = upload(http, post, b"p" * 50)
    assert response.status_code == 403
    refused = error(response)
    assert (refused["Code"], refused["Message"]) == (
        "AccessDenied",
        "Invalid according to Policy: Policy expired.",
    )
    assert not stored(s3, bucket, key)


def _widened(policy: str) -> str:
    """The same policy allowing 10 MB: what a client would like to have been signed."""
    document = json.loads(base64.b64decode(policy))
    document["conditions"][0] = ["content-length-range", 1, 10_000_000]
    return base64.b64encode(json.dumps(document).encode()).decode()


@pytest.mark.parametrize(
    ("tamper", "code"),
    [
        (lambda f: {"policy": _widened(f["policy"])}, "SignatureDoesNotMatch"),
        (lambda f: {"x-amz-signature": "0" * 64}, "SignatureDoesNotMatch"),
        (
            lambda f: {"x-amz-credential": f["x-amz-credential"].replace("testing/", "AKIDOTHER/")},
            "InvalidAccessKeyId",
        ),
    ],
    ids=["widened-policy", "forged-signature", "unknown-access-key"],
)
def test_a_tampered_policy_or_signature_is_refused(
    s3: S3Client, bucket: str, http: httpx.Client, tamper: Any, code: str
) -> None:
    key = new_key()
    post = presigned_post(s3, bucket, key)
    response = upload(http, post, b"p" * 5000, **tamper(post["fields"]))
    assert response.status_code == 403
    assert error(response)["Code"] == code
    assert not stored(s3, bucket, key)


def test_a_policy_signed_with_another_secret_is_refused(
    stack: LocalStack, bucket: str, http: httpx.Client
) -> None:
    forger = stack.emulator.session().client(
        "s3",
        endpoint_url=stack.emulator.endpoint_url,
        aws_access_key_id="testing",
        aws_secret_access_key="not the emulator's",
        config=Config(signature_version="s3v4"),
    )
    key = new_key()
    response = upload(http, presigned_post(forger, bucket, key), b"p" * 50)
    assert response.status_code == 403
    assert error(response)["Code"] == "SignatureDoesNotMatch"
    assert not stored(stack.emulator.s3(), bucket, key)


def test_a_field_no_condition_names_is_refused_unless_x_ignore(
    s3: S3Client, bucket: str, http: httpx.Client
) -> None:
    key = new_key()
    post = presigned_post(s3, bucket, key)
    response = upload(http, post, b"p" * 50, **{"x-amz-meta-owner": "someone"})
    assert response.status_code == 403
    assert error(response)["Message"] == (
        "Invalid according to Policy: Extra input fields: x-amz-meta-owner"
    )
    assert not stored(s3, bucket, key)
    assert upload(http, post, b"p" * 50, **{"x-ignore-tracking": "1"}).status_code == 204


def test_a_signature_version_2_upload_is_refused(
    stack: LocalStack, bucket: str, http: httpx.Client
) -> None:
    legacy = stack.emulator.session().client(
        "s3", endpoint_url=stack.emulator.endpoint_url, config=Config(signature_version="s3")
    )
    key = new_key()
    response = upload(http, presigned_post(legacy, bucket, key), b"p" * 50)
    assert response.status_code == 400
    assert error(response)["Code"] == "InvalidRequest"
    assert not stored(stack.emulator.s3(), bucket, key)


def presigned_put(s3: S3Client, bucket: str, key: str, expires_in: int = 900) -> str:
    return s3.generate_presigned_url(
        "put_object",
        Params={"Bucket": bucket, "Key": key, "ContentLength": 100, "ContentType": "image/png"},
        ExpiresIn=expires_in,
    )


def test_a_put_with_the_signed_length_and_type_is_stored(
    s3: S3Client, bucket: str, http: httpx.Client
) -> None:
    key = new_key()
    url = presigned_put(s3, bucket, key)
    response = http.put(url, content=b"p" * 100, headers={"Content-Type": "image/png"})
    assert response.status_code == 200, response.text
    assert s3.head_object(Bucket=bucket, Key=key)["ContentLength"] == 100


@pytest.mark.parametrize(
    ("body", "content_type"),
    [(b"p" * 5000, "image/png"), (b"p" * 100, "text/html")],
    ids=["longer-than-signed", "another-content-type"],
)
def test_a_put_unlike_what_was_signed_is_refused(
    s3: S3Client, bucket: str, http: httpx.Client, body: bytes, content_type: str
) -> None:
    key = new_key()
    url = presigned_put(s3, bucket, key)
    response = http.put(url, content=body, headers={"Content-Type": content_type})
    assert response.status_code == 403
    assert error(response)["Code"] == "SignatureDoesNotMatch"
    assert not stored(s3, bucket, key)


def test_an_expired_put_url_is_refused(s3: S3Client, bucket: str, http: httpx.Client) -> None:
    key = new_key()
    # Presigned an hour ago for 15 minutes (botocore's clock, in this process, set back).
    an_hour_ago = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(
        hours=1
    )
    with mock.patch("botocore.auth.get_current_datetime", return_value=an_hour_ago):
        url = presigned_put(s3, bucket, key)
    response = http.put(url, content=b"p" * 100, headers={"Content-Type": "image/png"})
    assert response.status_code == 403
    refused = error(response)
    assert (refused["Code"], refused["Message"]) == ("AccessDenied", "Request has expired")
    assert not stored(s3, bucket, key)
