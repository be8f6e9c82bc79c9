"""The least-privilege run sees every S3 call the asset code makes (docs/decisions.md, D127).

boto3 calls and a browser's presigned POST and GET go through the session stack's recording
proxy to the emulator, as the app's do; each recorded call must come back as S3 answered it
(a HEAD keeps its `Content-Length`) and map to the IAM actions and ARNs AWS checks.
"""

from __future__ import annotations

import uuid

import httpx
from botocore.config import Config

from infra.local_stack import LocalStack
from infra.permissions import Permission, Resources, required


def test_each_recorded_s3_call_maps_to_its_actions_and_arns(stack: LocalStack) -> None:
    assert stack.recorder is not None
    assert stack.provisioned is not None
    bucket = stack.provisioned.buckets["AssetsBucket"].name
    arn = f"arn:aws:s3:::{bucket}"
    config = Config(signature_version="s3v4", retries={"max_attempts": 1})
    s3 = stack.emulator.session().client("s3", endpoint_url=stack.recorder.url, config=config)
    upload, asset = f"uploads/{uuid.uuid4().hex}", f"assets/{uuid.uuid4().hex}"
    with stack.recorder.capture() as calls:
        post = s3.generate_presigned_post(bucket, upload, Conditions=[["starts-with", "$key", ""]])
        posted = httpx.post(post["url"], data=post["fields"], files={"file": b"0123456789"})
        assert posted.status_code == 204, posted.text
        assert s3.head_object(Bucket=bucket, Key=upload)["ContentLength"] == 10
        ranged = s3.get_object(Bucket=bucket, Key=upload, Range="bytes=2-4")
        assert ranged["Body"].read() == b"234"
        s3.copy_object(Bucket=bucket, Key=asset, CopySource={"Bucket": bucket, "Key": upload})
        s3.delete_object(Bucket=bucket, Key=upload)
        url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": asset})
        assert httpx.get(url).content == b"0123456789"
    resources = Resources(stack.provisioned)
    needed = [[str(p) for p in required(call, resources)] for call in calls]
    assert needed == [
        [str(Permission("s3:PutObject", f"{arn}/{upload}"))],
        [str(Permission("s3:GetObject", f"{arn}/{upload}"))],
        [str(Permission("s3:GetObject", f"{arn}/{upload}"))],
        [
            str(Permission("s3:GetObject", f"{arn}/{upload}")),
            str(Permission("s3:PutObject", f"{arn}/{asset}")),
        ],
        [str(Permission("s3:DeleteObject", f"{arn}/{upload}"))],
        [str(Permission("s3:GetObject", f"{arn}/{asset}"))],
    ]
