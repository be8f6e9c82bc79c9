"""The emulator's bucket objects survive a restart and a SIGKILL like its tables
(docs/development.md, "What survives a restart"; docs/decisions.md, D127).

A stack with the emulator in a process of its own, as `make run` has it: objects are written
through its HTTP endpoint (a browser-style presigned POST, plain puts, a copy, a second version,
a delete), then the emulator process is killed with SIGKILL (no compaction, the journal as
written) or the stack is stopped as SIGTERM and Ctrl-C stop it; a new emulator process started
on the same directory must serve every acknowledged object byte for byte with its
`Content-Type`, its metadata and its versions.
"""

from __future__ import annotations

import os
import signal
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from botocore.exceptions import ClientError
from moto.s3.models import S3Backend

from infra.emulator import Emulator
from infra.local_stack import LocalStack, LocalStackOptions
from tests.support.waiting import wait_until

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
BIG = os.urandom(3 * 1024 * 1024 + 17)


def _options(local_dir: Path) -> LocalStackOptions:
    return LocalStackOptions(
        local_dir=local_dir,
        moto_port=0,
        prefix="s3d-",
        api=False,
        pollers=False,
        bootstrap=False,
        apply_environment=False,
        request_check=False,
        user_env={},
        resumer=None,
    )


@pytest.fixture
def local_dir(tmp_path: Path) -> Path:
    return tmp_path / ".local"


@pytest.fixture
def restarted(local_dir: Path) -> Iterator[LocalStack]:
    """A second stack on the same directory, started by the test, always stopped."""
    stack = LocalStack(_options(local_dir))
    yield stack
    stack.stop()


def _bucket(stack: LocalStack) -> str:
    assert stack.provisioned is not None
    return stack.provisioned.buckets["AssetsBucket"].name


def _write(stack: LocalStack, s3: S3Client, bucket: str) -> dict[str, str]:
    """The writes under test; the key of each object that must read back."""
    keys = {name: f"{name}/{uuid.uuid4().hex}" for name in ("posted", "put", "big", "copy")}
    post = s3.generate_presigned_post(
        bucket,
        keys["posted"],
        Fields={"Content-Type": "image/png"},
        Conditions=[["content-length-range", 1, 10_000], {"Content-Type": "image/png"}],
    )
    answer = httpx.post(
        post["url"], data=post["fields"], files={"file": ("a.png", PNG, "image/png")}, timeout=30
    )
    assert answer.status_code == 204, answer.text
    s3.put_object(Bucket=bucket, Key=keys["put"], Body=b"first", ContentType="text/plain")
    s3.put_object(
        Bucket=bucket,
        Key=keys["put"],
        Body=b"second version",
        ContentType="text/markdown",
        Metadata={"asset": "a1"},
    )
    s3.put_object(Bucket=bucket, Key=keys["big"], Body=BIG, ContentType="video/mp4")
    s3.copy_object(
        Bucket=bucket, Key=keys["copy"], CopySource={"Bucket": bucket, "Key": keys["posted"]}
    )
    s3.put_object(Bucket=bucket, Key="gone/one", Body=b"deleted later")
    s3.delete_object(Bucket=bucket, Key="gone/one")
    return keys


def _check(s3: S3Client, bucket: str, keys: dict[str, str]) -> None:
    expected = {
        "posted": (PNG, "image/png"),
        "put": (b"second version", "text/markdown"),
        "big": (BIG, "video/mp4"),
        "copy": (PNG, "image/png"),
    }
    for name, (body, content_type) in expected.items():
        got = s3.get_object(Bucket=bucket, Key=keys[name])
        assert got["Body"].read() == body, name
        assert got["ContentType"] == content_type, name
    metadata = s3.head_object(Bucket=bucket, Key=keys["put"])["Metadata"]
    assert {k.lower(): v for k, v in metadata.items()} == {"asset": "a1"}  # moto capitalises
    versions = s3.list_object_versions(Bucket=bucket, Prefix=keys["put"])["Versions"]
    assert len(versions) == 2
    (oldest,) = [v for v in versions if not v["IsLatest"]]
    first = s3.get_object(Bucket=bucket, Key=keys["put"], VersionId=oldest["VersionId"])
    assert first["Body"].read() == b"first"
    ranged = s3.get_object(Bucket=bucket, Key=keys["big"], Range="bytes=100-199")
    assert ranged["Body"].read() == BIG[100:200]
    deleted = s3.list_object_versions(Bucket=bucket, Prefix="gone/one")
    assert [m["IsLatest"] for m in deleted["DeleteMarkers"]] == [True]
    assert s3.list_objects_v2(Bucket=bucket, Prefix="gone/").get("KeyCount") == 0


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").exists() and ") Z" in Path(f"/proc/{pid}/stat").read_text()


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_acknowledged_objects_survive_the_emulator_killed_or_stopped(
    local_dir: Path, restarted: LocalStack, how: str
) -> None:
    stack = LocalStack(_options(local_dir))
    stack.start()
    try:
        bucket = _bucket(stack)
        keys = _write(stack, stack.emulator.s3(), bucket)
        if how == "SIGKILL":
            pid = stack.emulator.pid  # type: ignore[attr-defined]
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            wait_until(lambda: _dead(pid), timeout=10, message="the emulator gone")
    finally:
        # After a SIGKILL there is nothing left to save; otherwise this is the clean stop that
        # SIGTERM and Ctrl-C ask of `make run`.
        stack.stop()

    restarted.start()
    _check(restarted.emulator.s3(), _bucket(restarted), keys)
    assert restarted.restored_items >= len(keys)


def test_a_start_removes_body_files_no_record_names(local_dir: Path, restarted: LocalStack) -> None:
    """A body written by a request killed before its journal line, or a temporary file of one
    killed mid-write, is never served and is removed at the next start."""
    blobs = local_dir / "s3" / "blobs"
    blobs.mkdir(parents=True)
    (blobs / ("0" * 64)).write_bytes(b"never acknowledged")
    (blobs / ".torn.tmp").write_bytes(b"half a bo")
    restarted.start()
    assert sorted(p.name for p in blobs.iterdir()) == []


def test_a_write_once_the_stop_closed_the_journal_is_refused(local_dir: Path) -> None:
    """Browsers upload straight to S3, so uploads can arrive while the stack stops: once the
    last snapshot is taken, a write would be acknowledged and then lost, so it is refused."""
    with Emulator(port=0) as emulator:
        stack = LocalStack(replace(_options(local_dir), emulator=emulator))
        stack.start()
        s3, bucket = emulator.s3(), _bucket(stack)
        s3.put_object(Bucket=bucket, Key="kept", Body=b"kept")
        stack.stop()
        with pytest.raises(ClientError) as refused:
            s3.put_object(Bucket=bucket, Key="late", Body=b"late")
        assert refused.value.response["Error"]["Code"] == "ServiceUnavailable"
        assert s3.get_object(Bucket=bucket, Key="kept")["Body"].read() == b"kept"


def test_a_write_under_way_when_the_stop_closes_the_journal_is_not_acknowledged(
    local_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upload moto applies after the stop closed the bucket's journal (it arrived before)
    is kept by nothing: it is answered 503, never acknowledged and then lost."""
    with Emulator(port=0) as emulator:
        stack = LocalStack(replace(_options(local_dir), emulator=emulator))
        stack.start()
        s3, bucket = emulator.s3(), _bucket(stack)
        inside, release = threading.Event(), threading.Event()
        applied = S3Backend.put_object

        def held(self: S3Backend, *args: Any, **kwargs: Any) -> Any:
            written = applied(self, *args, **kwargs)
            if kwargs.get("key_name", args[1] if len(args) > 1 else None) == "in-flight":
                inside.set()
                release.wait(30)
            return written

        monkeypatch.setattr(S3Backend, "put_object", held)
        outcome: list[str] = []

        def upload() -> None:
            try:
                s3.put_object(Bucket=bucket, Key="in-flight", Body=b"late")
                outcome.append("acknowledged")
            except ClientError as refused:
                outcome.append(refused.response["Error"]["Code"])

        writer = threading.Thread(target=upload)
        writer.start()
        assert inside.wait(30)
        stack.stop()
        release.set()
        writer.join(30)
        assert outcome == ["ServiceUnavailable"]
