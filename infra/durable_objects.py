"""The local stack's bucket objects on disk: a body file per object version, and the tables'
snapshot-plus-journal for everything else (docs/decisions.md, D127).

Under `<local dir>/s3/`: the `blobs` directory holds each version's body as a file of its own,
written to a temporary name, fsynced and renamed (a body file is whole or absent); the journal
and the snapshot are a `DurableState` whose "tables" are the template's buckets and whose
"items" are keys: the after-image of one key is every version moto holds of it, in order, each a
small JSON record
(version id, body file, size, ETag, last modified, metadata such as `Content-Type`, storage
class, encryption, checksum) or a delete marker. The body file of a version is durable before
the journal line naming it, and that line before the answer leaves (`infra.moto_s3_journal`),
so a SIGKILL loses no acknowledged object and never shows a truncated one.

A start restores each key's versions into moto's buckets (the buckets themselves come from the
template, as the tables do), then deletes the body files no record names: those of versions
replaced or deleted since, and of writes killed before their journal line.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moto.s3.models import FakeDeleteMarker, FakeKey
from moto.utilities.utils import LowercaseDict

from infra import moto_s3_journal
from infra.durable_state import DurableState
from infra.snapshot import Snapshot

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from infra.provisioning import ProvisionedBucket

_CHUNK = 1024 * 1024


class ObjectState(DurableState):
    """Body files, snapshot and journal of one stack's buckets, under `<local dir>/s3/`."""

    def __init__(
        self, local_dir: Path, buckets: Mapping[str, ProvisionedBucket], *, fsync: bool = True
    ) -> None:
        super().__init__(local_dir / "s3", {}, fsync=fsync)
        self.buckets = dict(buckets)
        self.blob_dir = local_dir / "s3" / "blobs"

    @property
    def _keys(self) -> dict[str, tuple[str, ...]]:
        return {logical_id: ("key",) for logical_id in self.buckets}

    def _register(self) -> None:
        moto_s3_journal.register(self, [(b.name, i) for i, b in self.buckets.items()])

    def _unregister(self) -> None:
        moto_s3_journal.unregister(self)

    def _restore(self, snapshot: Snapshot, client: DynamoDBClient) -> int:
        """Puts every key's versions back into moto's buckets; removes unnamed body files."""
        self.blob_dir.mkdir(parents=True, exist_ok=True)
        named: set[str] = set()
        restored = 0
        for logical_id, items in snapshot.tables.items():
            bucket = moto_s3_journal.backend().get_bucket(self.buckets[logical_id].name)
            for item in items:
                restored_versions = self._versions(bucket, item)
                bucket.keys.setlist(item["key"], restored_versions)
                named.update(v["blob"] for v in item["versions"] if v.get("blob"))
                restored += 1
        for path in self.blob_dir.iterdir():
            if path.name not in named:
                path.unlink()
        return restored

    def _versions(self, bucket: Any, item: Mapping[str, Any]) -> list[Any]:
        restored: list[Any] = []
        for record in item["versions"]:
            if record.get("deleteMarker"):
                previous = restored[-1] if restored else self._key(bucket, item["key"], None)
                marker = FakeDeleteMarker(previous)
                marker._version_id = record["id"]
                marker.last_modified = datetime.datetime.fromisoformat(record["modified"])
                restored.append(marker)
            else:
                restored.append(self._key(bucket, item["key"], record))
        return restored

    def _key(self, bucket: Any, name: str, record: Mapping[str, Any] | None) -> FakeKey:
        """A moto object from its record, its body streamed from its file (none: empty)."""
        record = record or {"id": "null", "storage": None, "etag": None}
        backend = moto_s3_journal.backend()
        key = FakeKey(
            name=name,
            value=b"",
            account_id=backend.account_id,
            region_name=backend.region_name,
            storage=record["storage"],
            etag=record["etag"],
            is_versioned=bucket.is_versioned,
            version_id=record["id"],
            bucket_name=bucket.name,
            encryption=record.get("encryption"),
            kms_key_id=record.get("kmsKeyId"),
            checksum_value=record.get("checksumValue"),
        )
        if "blob" in record:
            with (self.blob_dir / record["blob"]).open("rb") as body:
                shutil.copyfileobj(body, key._value_buffer, _CHUNK)
            key.contentsize = int(record["size"])
            key.last_modified = datetime.datetime.fromisoformat(record["modified"])
            key._metadata = LowercaseDict()
            key._metadata.update(record["metadata"])
            key.checksum_algorithm = record.get("checksumAlgorithm")
        return key

    def keep_bodies(self, versions: list[Any]) -> None:
        """Writes the body file of each version that has none yet."""
        for version in versions:
            if isinstance(version, FakeKey):
                self._keep_body(version)

    def image(self, versions: list[Any]) -> dict[str, Any] | None:
        """The key's after-image: a record per version, or None when it holds none."""
        records = [r for v in versions if (r := self._record(v)) is not None]
        if not records:
            return None
        return {"key": versions[0].name, "versions": records}

    def _record(self, version: Any) -> dict[str, Any] | None:
        if isinstance(version, FakeDeleteMarker):
            modified = version.last_modified.isoformat()
            return {"id": version.version_id, "deleteMarker": True, "modified": modified}
        blob = self._keep_body(version)
        if blob is None:
            return None  # replaced and discarded while this request ran: not a version any more
        return {
            "id": version.version_id,
            "blob": blob,
            "size": version.size,
            "etag": version.etag.strip('"'),
            "modified": version.last_modified.isoformat(),
            "metadata": dict(version.metadata),
            "storage": version.storage_class,
            "encryption": version.encryption,
            "kmsKeyId": version.kms_key_id,
            "checksumAlgorithm": version.checksum_algorithm,
            "checksumValue": version.checksum_value,
        }

    def _keep_body(self, version: FakeKey) -> str | None:
        """The version's body file, written (whole, durably) when missing; None when moto has
        already discarded the body."""
        identity = "\0".join(
            (
                str(version.bucket_name),
                version.name,
                version.version_id,
                version.etag,
                version.last_modified.isoformat(),
            )
        )
        name = hashlib.sha256(identity.encode()).hexdigest()
        path = self.blob_dir / name
        if path.exists():
            return name
        self.blob_dir.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=self.blob_dir)
        try:
            with os.fdopen(descriptor, "wb") as out:
                with version.lock:
                    version._value_buffer.seek(0)
                    shutil.copyfileobj(version._value_buffer, out, _CHUNK)
                if self.fsync:
                    out.flush()
                    os.fdatasync(out.fileno())
            os.replace(temporary, path)
        except ValueError:  # the buffer is closed: moto discarded the version
            Path(temporary).unlink(missing_ok=True)
            return None
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        if self.fsync:
            _sync_directory(self.blob_dir)
        return name


def _sync_directory(directory: Path) -> None:
    """Makes a rename in `directory` durable."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
