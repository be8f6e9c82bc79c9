"""How an asset field shows a linked asset: its file's facts and the URL delivery serves it at.

A linked asset is an entry of the built-in type `asset` (D128), read like any relation target,
in the source's view. REST's `expand` and GraphQL's `Asset` both show it through these
functions, so the two protocols cannot disagree on what an asset link carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from content_service.content.entries.views import Entry

FILE_FIELDS = ("fileName", "contentType", "size", "width", "height")


def file_of(entry: Entry) -> Mapping[str, Any]:
    """The asset's file value (`{id, key, fileName, contentType, size, width?, height?, state}`),
    or an empty mapping when it has none."""
    file = entry.values.get("file")
    return file if isinstance(file, Mapping) else {}


def file_url(entry: Entry) -> str | None:
    """`/files/<ws>/<asset>/<file>/<name>`, which delivery serves while the asset is published:
    in the published view always, in the latest view only while no draft changed it (a
    draft's file is not served yet). None when the file is not ready."""
    file = file_of(entry)
    if file.get("state") != "ready" or not isinstance(file.get("key"), str):
        return None
    if entry.view != "published" and entry.status != "published":
        return None
    parts = str(file["key"]).split("/", 4)
    if len(parts) != 5 or parts[0] != "files":
        return None
    return file_path(*parts[1:])


def file_path(workspace_id: str, asset_id: str, file_id: str, file_name: str) -> str:
    """The one spelling of a file's URL path: `/files/<ws>/<asset>/<file>/<fileName>`."""
    return f"/files/{workspace_id}/{asset_id}/{file_id}/{quote(file_name, safe='')}"


def linked_asset_json(entry: Entry) -> dict[str, Any]:
    """The asset as an asset field's `expand` shows it (the assets API's fields, no preview)."""
    file = file_of(entry)
    return {
        "id": entry.id,
        "status": entry.status,
        "title": entry.values.get("title"),
        "altText": entry.values.get("altText"),
        "description": entry.values.get("description"),
        **{name: file.get(name) for name in FILE_FIELDS},
        "url": file_url(entry),
    }
