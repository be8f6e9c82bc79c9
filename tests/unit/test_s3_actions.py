"""S3 REST requests map to the IAM actions and ARNs AWS authorises them against (D127).

Each request is the one botocore itself sends (captured before it leaves), or a presigned URL
or POST made by botocore's presigners, so the mapping is held to real requests' methods, paths,
queries and headers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import boto3
import httpx
import pytest
from botocore.config import Config

from infra.s3_actions import S3Permission, is_s3, required
from infra.template_model import TemplateError

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import (
        CompletedMultipartUploadTypeDef,
        CopySourceTypeDef,
        DeleteTypeDef,
    )

BUCKET = "assets-bucket"
ARN = f"arn:aws:s3:::{BUCKET}"


class Captured(Exception):
    """Raised in place of sending: carries the request botocore prepared."""

    def __init__(self, request: Any) -> None:
        super().__init__("captured")
        self.request = request


def _capture(request: Any, **kwargs: Any) -> None:
    raise Captured(request)


@pytest.fixture
def s3() -> S3Client:
    client = boto3.client(
        "s3",
        endpoint_url="http://127.0.0.1:4566",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"}),
    )
    client.meta.events.register("before-send.s3", _capture)
    return client


def _needs(call: Callable[[], Any]) -> list[S3Permission]:
    with pytest.raises(Captured) as sent:
        call()
    request = sent.value.request
    path = request.url.split("127.0.0.1:4566", 1)[1]
    headers = {
        k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()
    }
    assert is_s3(headers, path)
    body = request.body if isinstance(request.body, bytes) else (request.body or b"")
    return required(request.method, path, headers, body)


def test_object_reads_writes_and_deletes(s3: S3Client) -> None:
    key = "assets/a 1/photo.png"
    assert _needs(lambda: s3.put_object(Bucket=BUCKET, Key=key, Body=b"x")) == [
        S3Permission("s3:PutObject", f"{ARN}/{key}")
    ]
    for read in (
        lambda: s3.get_object(Bucket=BUCKET, Key=key, Range="bytes=0-9"),
        lambda: s3.head_object(Bucket=BUCKET, Key=key),
    ):
        assert _needs(read) == [S3Permission("s3:GetObject", f"{ARN}/{key}")]
    assert _needs(lambda: s3.get_object(Bucket=BUCKET, Key=key, VersionId="v1")) == [
        S3Permission("s3:GetObjectVersion", f"{ARN}/{key}")
    ]
    assert _needs(lambda: s3.delete_object(Bucket=BUCKET, Key=key)) == [
        S3Permission("s3:DeleteObject", f"{ARN}/{key}")
    ]
    assert _needs(lambda: s3.delete_object(Bucket=BUCKET, Key=key, VersionId="v1")) == [
        S3Permission("s3:DeleteObjectVersion", f"{ARN}/{key}")
    ]


def test_a_copy_reads_its_source_and_writes_its_target(s3: S3Client) -> None:
    source: CopySourceTypeDef = {"Bucket": BUCKET, "Key": "uploads/in file.png"}
    assert _needs(lambda: s3.copy_object(Bucket=BUCKET, Key="assets/a1", CopySource=source)) == [
        S3Permission("s3:GetObject", f"{ARN}/uploads/in file.png"),
        S3Permission("s3:PutObject", f"{ARN}/assets/a1"),
    ]
    versioned: CopySourceTypeDef = {**source, "VersionId": "v7"}
    assert _needs(lambda: s3.copy_object(Bucket=BUCKET, Key="assets/a1", CopySource=versioned))[
        0
    ] == S3Permission("s3:GetObjectVersion", f"{ARN}/uploads/in file.png")


def test_multipart_uploads_are_put_object(s3: S3Client) -> None:
    key = f"{ARN}/big"
    put = [S3Permission("s3:PutObject", key)]
    assert _needs(lambda: s3.create_multipart_upload(Bucket=BUCKET, Key="big")) == put
    assert (
        _needs(
            lambda: s3.upload_part(Bucket=BUCKET, Key="big", UploadId="u", PartNumber=1, Body=b"x")
        )
        == put
    )
    parts: CompletedMultipartUploadTypeDef = {"Parts": [{"ETag": '"e"', "PartNumber": 1}]}
    assert (
        _needs(
            lambda: s3.complete_multipart_upload(
                Bucket=BUCKET, Key="big", UploadId="u", MultipartUpload=parts
            )
        )
        == put
    )
    assert _needs(lambda: s3.abort_multipart_upload(Bucket=BUCKET, Key="big", UploadId="u")) == [
        S3Permission("s3:AbortMultipartUpload", key)
    ]


def test_bucket_operations_name_the_bucket(s3: S3Client) -> None:
    assert _needs(lambda: s3.list_objects_v2(Bucket=BUCKET, Prefix="assets/")) == [
        S3Permission("s3:ListBucket", ARN)
    ]
    assert _needs(lambda: s3.head_bucket(Bucket=BUCKET)) == [S3Permission("s3:ListBucket", ARN)]
    assert _needs(lambda: s3.list_object_versions(Bucket=BUCKET)) == [
        S3Permission("s3:ListBucketVersions", ARN)
    ]
    assert _needs(lambda: s3.list_buckets()) == [S3Permission("s3:ListAllMyBuckets", "*")]


def test_a_multi_object_delete_needs_each_key(s3: S3Client) -> None:
    delete: DeleteTypeDef = {"Objects": [{"Key": "a"}, {"Key": "b", "VersionId": "v2"}]}
    assert _needs(lambda: s3.delete_objects(Bucket=BUCKET, Delete=delete)) == [
        S3Permission("s3:DeleteObject", f"{ARN}/a"),
        S3Permission("s3:DeleteObjectVersion", f"{ARN}/b"),
    ]


def test_a_presigned_get_is_the_get_it_signs(s3: S3Client) -> None:
    url = s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": "assets/x"})
    path = url.split("127.0.0.1:4566", 1)[1]
    assert is_s3({}, path)
    assert required("GET", path, {"host": "127.0.0.1:4566"}, b"") == [
        S3Permission("s3:GetObject", f"{ARN}/assets/x")
    ]


def test_a_browser_post_upload_is_put_object_on_its_key(s3: S3Client) -> None:
    post = s3.generate_presigned_post(BUCKET, "uploads/u1/${filename}")
    request = httpx.Request(
        "POST",
        post["url"],
        data=post["fields"],
        files={"file": ("cat.png", b"\x89PNG", "image/png")},
    )
    body = request.read()
    headers = {k.lower(): v for k, v in request.headers.items()}
    # A browser's POST carries its signature in the form, not in a header: the policy's signer is
    # the role the least-privilege run holds it to.
    assert required("POST", f"/{BUCKET}", headers, body) == [
        S3Permission("s3:PutObject", f"{ARN}/uploads/u1/cat.png")
    ]


def test_other_services_are_not_s3_and_unknown_operations_are_refused() -> None:
    dynamodb = "AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/dynamodb/aws4_request, x"
    assert not is_s3({"authorization": dynamodb}, "/")
    with pytest.raises(TemplateError, match=r"PUT /assets-bucket\?cors$"):
        required("PUT", f"/{BUCKET}?cors", {}, b"")
    # A presigned URL's signature and session token never reach the message.
    signed = f"/{BUCKET}?cors&X-Amz-Signature=abc&X-Amz-Security-Token=secret-token"
    with pytest.raises(TemplateError) as refused:
        required("PUT", signed, {}, b"")
    assert "abc" not in str(refused.value)
    assert "secret-token" not in str(refused.value)
