"""`make crash`'s object uploader: puts objects into the stack's assets bucket while the stack
is killed, and checks after each restart that every upload S3 acknowledged reads back whole,
with its `Content-Type` (docs/decisions.md, D127).

An upload that got no answer (the stack died under it) is uncertain: after the restart it may
be missing, but if it is there it must be the whole body that was sent, never a truncated one.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from infra.emulator import FAKE_CREDENTIALS

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

_TYPES = ("image/png", "image/jpeg", "application/pdf", "text/plain")


@dataclass
class Upload:
    digest: str
    content_type: str
    acknowledged: bool


@dataclass
class ObjectLedger:
    uploads: dict[str, Upload] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def acknowledged(self) -> int:
        with self.lock:
            return sum(1 for u in self.uploads.values() if u.acknowledged)


def stack_s3(local_dir: Path) -> tuple[S3Client, str]:
    """A client of the running stack's emulator, and its assets bucket (from the stack file)."""
    stack = json.loads((local_dir / "stack.json").read_text())
    client = boto3.client(
        "s3",
        endpoint_url=stack["awsEndpointUrl"],
        region_name=stack["region"],
        aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
        config=Config(retries={"max_attempts": 1}, connect_timeout=2, read_timeout=10),
    )
    return client, str(stack["env"]["ASSETS_BUCKET"])


class Uploader(threading.Thread):
    """Puts objects of 1 byte to 256 KB until told to stop, each one's answer in the ledger."""

    def __init__(self, local_dir: Path, ledger: ObjectLedger, rng: random.Random) -> None:
        super().__init__(name="crash-uploader", daemon=True)
        self.s3, self.bucket = stack_s3(local_dir)
        self.ledger, self.rng = ledger, rng
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            key = f"crash/{self.rng.getrandbits(64):016x}"
            body = self.rng.randbytes(self.rng.randint(1, 256 * 1024))
            upload = Upload(hashlib.sha256(body).hexdigest(), self.rng.choice(_TYPES), False)
            with self.ledger.lock:
                self.ledger.uploads[key] = upload
            try:
                self.s3.put_object(
                    Bucket=self.bucket, Key=key, Body=body, ContentType=upload.content_type
                )
            except (BotoCoreError, ClientError):
                return  # the stack is going: this upload stays uncertain
            upload.acknowledged = True


def verify_objects(local_dir: Path, ledger: ObjectLedger) -> list[str]:
    """What the restarted stack's bucket got wrong: an acknowledged upload missing or changed,
    an uncertain one present but not whole."""
    s3, bucket = stack_s3(local_dir)
    with ledger.lock:
        uploads = dict(ledger.uploads)
    problems = []
    for key, upload in uploads.items():
        found = _read(s3, bucket, key)
        if found is None:
            if upload.acknowledged:
                problems.append(f"object {key}: acknowledged, missing after the restart")
            continue
        if found != (upload.digest, upload.content_type):
            problems.append(f"object {key}: {found} after the restart, not what was sent")
    return problems


def _read(s3: Any, bucket: str, key: str) -> tuple[str, str] | None:
    try:
        got = s3.get_object(Bucket=bucket, Key=key)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "NoSuchKey":
            return None
        raise
    return hashlib.sha256(got["Body"].read()).hexdigest(), str(got["ContentType"])
