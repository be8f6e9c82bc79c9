"""An asset as the API answers it, from the entry of the `asset` type that holds it."""

from __future__ import annotations

from typing import Any

from content_service.assets import objects
from content_service.assets.files import AssetFile, delivery_path
from content_service.content.entries import Entry
from content_service.identity.principal import Caller


def file_of(entry: Entry) -> AssetFile | None:
    return AssetFile.from_value(entry.values.get("file"))


def asset_json(
    entry: Entry, workspace_id: str, caller: Caller, published: AssetFile | None
) -> dict[str, Any]:
    """`published` is the file the asset's live version holds (None while it has none): its
    delivery path is `url`. A caller who previews drafts also gets `previewUrl`, a presigned
    GET of the shown version's file, so editors see a draft's file before it is published."""
    file = file_of(entry)
    values = entry.values
    body: dict[str, Any] = {
        "id": entry.id,
        "fileName": file.file_name if file else None,
        "contentType": file.content_type if file else None,
        "size": file.size if file else None,
        "width": file.width if file else None,
        "height": file.height if file else None,
        "title": values.get("title"),
        "altText": values.get("altText"),
        "description": values.get("description"),
        "state": file.state if file else None,
        "status": entry.status,
        "audiences": list(entry.audiences or ()),
        "version": entry.version,
        "createdAt": entry.created_at,
        "updatedAt": entry.updated_at,
        "publishedAt": entry.published_at,
        "url": delivery_path(workspace_id, entry.id, published)
        if published is not None and published.ready
        else None,
    }
    if file is not None and file.reason is not None:
        body["reason"] = file.reason
    if caller.sees_drafts and file is not None and file.ready:
        body["previewUrl"] = objects.preview_url(file.key)
    if not entry.values_shown:
        return {k: v for k, v in body.items() if k in _SYSTEM_KEYS}
    return body


# What a caller that may write but not read learns of an asset it wrote (as for entries).
_SYSTEM_KEYS = frozenset(
    {"id", "status", "version", "createdAt", "updatedAt", "publishedAt", "audiences"}
)
