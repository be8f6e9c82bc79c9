"""An asset's file: the value processing writes into the `file` field, and the processing.

`{id, key, fileName, contentType, size, width?, height?, state, reason?}` (docs/assets.md): `id`
is new per upload, `key` is where the bytes are, `state` is `ready` or `failed` (with a readable
`reason`). Delivery serves a file only when a live version of its asset holds it ready, so a
failed file is never served; its bytes are not even kept.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from content_service import runtime
from content_service.assets import objects
from content_service.assets.inspection import HEAD_BYTES, Rejected
from content_service.assets.remote_inspection import inspect_file
from content_service.content.entries import file_path

FileState = Literal["ready", "failed"]
_IDS = uuid.UUID("6c1f4f0e-52a1-4c55-9a47-3f1d3cf0a8b5")


def derived_id(workspace_id: str, upload_id: str, what: str) -> str:
    """An id that an upload always maps to (`asset` or `file`): completing the same upload
    twice names the same asset and the same key, so a retry after a crash makes no second."""
    return str(uuid.uuid5(_IDS, f"{workspace_id}/{upload_id}/{what}"))


@dataclass(frozen=True)
class AssetFile:
    id: str
    key: str
    file_name: str
    content_type: str
    size: int
    state: FileState
    width: int | None = None
    height: int | None = None
    reason: str | None = None

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    def to_value(self) -> dict[str, Any]:
        """The `file` field's value (the shape delivery relies on)."""
        value: dict[str, Any] = {
            "id": self.id,
            "key": self.key,
            "fileName": self.file_name,
            "contentType": self.content_type,
            "size": self.size,
            "state": self.state,
        }
        if self.width is not None and self.height is not None:
            value["width"], value["height"] = self.width, self.height
        if self.reason is not None:
            value["reason"] = self.reason
        return value

    def field_values(self) -> dict[str, Any]:
        """The asset's values processing sets: the file and its scalar copies for lists."""
        return {
            "file": self.to_value(),
            "fileName": self.file_name,
            "contentType": self.content_type,
            "state": self.state,
        }

    @classmethod
    def from_value(cls, raw: object) -> AssetFile | None:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
            return None
        return cls(
            id=str(raw["id"]),
            key=str(raw.get("key", "")),
            file_name=str(raw.get("fileName", "")),
            content_type=str(raw.get("contentType", "")),
            size=int(raw.get("size", 0)),
            state="ready" if raw.get("state") == "ready" else "failed",
            width=_optional_int(raw.get("width")),
            height=_optional_int(raw.get("height")),
            reason=str(raw["reason"]) if raw.get("reason") is not None else None,
        )


def _optional_int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def delivery_path(workspace_id: str, asset_id: str, file: AssetFile) -> str:
    """Where delivery serves the file."""
    return file_path(workspace_id, asset_id, file.id, file.file_name)


def process(workspace_id: str, asset_id: str, upload_id: str) -> AssetFile | None:
    """Reads the upload's head, inspects it (by the media function on AWS) and, when accepted,
    copies it to its file key (server-side); None when there is no such upload. The upload
    object stays: the caller deletes it once the asset holds the file, so a crash before that
    can be retried."""
    upload = objects.upload_key(workspace_id, upload_id)
    found = objects.read_head(upload, HEAD_BYTES)
    if found is None:
        return None
    file_id = derived_id(workspace_id, upload_id, "file")
    file_name = found.file_name or "file"
    key = objects.file_key(workspace_id, asset_id, file_id, file_name)
    claimed = found.content_type.split(";")[0].strip().lower()
    try:
        seen = inspect_file(found.head, found.size, claimed, runtime.settings())
    except Rejected as rejected:
        return AssetFile(
            file_id, key, file_name, claimed, found.size, "failed", reason=rejected.reason
        )
    objects.copy(upload, key, seen.content_type)
    return AssetFile(
        file_id,
        key,
        file_name,
        seen.content_type,
        found.size,
        "ready",
        width=seen.width,
        height=seen.height,
    )
