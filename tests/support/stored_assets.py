"""Assets written straight into storage, in the shape the asset entries have (an entry of type
`asset` whose `f4` field holds the file as JSON text, and the file's object in the bucket).

For the states the API reaches only through many steps (a failed file under a published
version, a trashed asset, an old version's file); tests/integration/test_asset_delivery.py
holds delivery to the assets the API itself makes.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from content_service import runtime
from content_service.content.entries import entry_key, published_key, version_key
from content_service.storage import dynamo
from infra.local_stack import LocalStack


@dataclass(frozen=True)
class StoredAsset:
    workspace_id: str
    asset_id: str
    file_id: str
    file_name: str

    @property
    def url(self) -> str:
        return f"/files/{self.workspace_id}/{self.asset_id}/{self.file_id}/{self.file_name}"


def stored_asset(
    stack: LocalStack,
    workspace_id: str,
    body: bytes,
    content_type: str,
    file_name: str,
    *,
    status: str = "published",
    deleted: bool = False,
    state: str = "ready",
) -> StoredAsset:
    """An asset with one file; `status` draft gives it no published item and no version."""
    asset = StoredAsset(workspace_id, uuid.uuid4().hex, uuid.uuid4().hex, file_name)
    key = f"files/{workspace_id}/{asset.asset_id}/{asset.file_id}/{file_name}"
    file = {
        "id": asset.file_id,
        "key": key,
        "fileName": file_name,
        "contentType": content_type,
        "size": len(body),
        "state": state,
    }
    assert stack.provisioned is not None
    bucket = stack.provisioned.buckets["AssetsBucket"].name
    stack.emulator.s3().put_object(Bucket=bucket, Key=key, Body=body, ContentType=content_type)
    entry: dict[str, Any] = {"contentType": "asset", "deleted": deleted, "status": status}
    _put(entry_key(workspace_id, asset.asset_id), {**entry, "values": {"f4": json.dumps(file)}})
    if status != "draft":
        live = {**entry, "status": "published", "values": {"f4": json.dumps(file)}}
        _put(published_key(workspace_id, asset.asset_id), live)
        _put(version_key(workspace_id, asset.asset_id, 1), live)
    return asset


def _put(key: dict[str, Any], attributes: dict[str, Any]) -> None:
    table = runtime.settings().tables.content
    dynamo.client().put_item(TableName=table, Item={**key, **dynamo.encode(attributes)})
