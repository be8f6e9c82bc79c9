"""The assets bucket in template.yaml (docs/decisions.md, D121): encrypted, versioned, private,
owned by the bucket owner, kept when the stack goes, reachable over TLS only, with uploads never
completed into an asset and old versions expiring. (`make sam-check` lints the same file and
runs checkov on it; tests/unit/test_template_grants.py holds who may write to it.)"""

from __future__ import annotations

from typing import Any

import pytest

from infra.template_model import Template


@pytest.fixture(scope="module")
def template() -> Template:
    return Template.load()


def _rules(template: Template) -> dict[str, dict[str, Any]]:
    properties = template.resources["AssetsBucket"].properties
    return {rule["Id"]: rule for rule in properties["LifecycleConfiguration"]["Rules"]}


def test_the_bucket_is_encrypted_versioned_private_and_kept(template: Template) -> None:
    spec = template.body["Resources"]["AssetsBucket"]
    assert spec["Type"] == "AWS::S3::Bucket"
    assert (spec["DeletionPolicy"], spec["UpdateReplacePolicy"]) == ("Retain", "Retain")
    properties = spec["Properties"]
    (encryption,) = properties["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert encryption["ServerSideEncryptionByDefault"] == {"SSEAlgorithm": "AES256"}
    assert properties["VersioningConfiguration"] == {"Status": "Enabled"}
    assert properties["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert properties["OwnershipControls"] == {
        "Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]
    }
    assert "BucketName" not in properties  # CloudFormation names it: two stacks never collide


def test_abandoned_uploads_and_old_versions_expire(template: Template) -> None:
    rules = _rules(template)
    assert all(rule["Status"] == "Enabled" for rule in rules.values())
    assert rules["AbortIncompleteMultipartUploads"]["AbortIncompleteMultipartUpload"] == {
        "DaysAfterInitiation": 1
    }
    uploads = rules["ExpireAbandonedUploads"]
    assert (uploads["Prefix"], uploads["ExpirationInDays"]) == ("uploads/", 1)
    assert uploads["NoncurrentVersionExpiration"] == {"NoncurrentDays": 1}
    versions = rules["ExpireNoncurrentVersions"]
    assert "Prefix" not in versions
    assert versions["NoncurrentVersionExpiration"] == {"NoncurrentDays": 30}
    assert versions["ExpiredObjectDeleteMarker"] is True


def test_the_bucket_policy_refuses_every_request_without_tls(template: Template) -> None:
    policy = template.resources["AssetsBucketPolicy"].properties
    assert policy["Bucket"] == {"Ref": "AssetsBucket"}
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert (statement["Effect"], statement["Principal"], statement["Action"]) == (
        "Deny",
        "*",
        "s3:*",
    )
    assert statement["Resource"] == [
        {"Fn::GetAtt": ["AssetsBucket", "Arn"]},
        {"Fn::Sub": "${AssetsBucket.Arn}/*"},
    ]
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_the_upload_cap_defaults_to_100_mb_and_stays_within_5_gib(template: Template) -> None:
    cap = template.parameters["AssetsMaxBytes"]
    assert (cap.type, cap.default) == ("Number", "104857600")
    assert (cap.min_value, cap.max_value) == (1, 5 * 1024**3)
