"""Which files a URL may serve, read from the asset entry's items in the content table.

An asset is an entry of the built-in type `asset`; its field `f4` holds the file:
`{"id", "key", "fileName", "contentType", "size", "width"?, "height"?, "state", "reason"?}`,
the object at `key` = `files/<ws>/<assetId>/<fileId>/<fileName>` in the assets bucket. A file
is servable while its asset exists, is not trashed and is live (published or changed), and the
published item or one of the version items (every version ever published) holds that file,
ready. So a draft's new file stays private until it is published, and a URL a site embedded
keeps working after the asset gets a new file, until the asset is unpublished or trashed.
Only GetItem and Query are used, with projections: the media function's role grants no more.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from content_service import runtime
from content_service.assets.files import AssetFile
from content_service.content.entries import VERSION_SK_PREFIX, entry_key, entry_pk, published_key
from content_service.content.schema import ASSET_FILE_KEY as FILE_KEY
from content_service.content.schema import ASSET_TYPE
from content_service.errors import NotFound
from content_service.storage import dynamo

LIVE = frozenset({"published", "changed"})
_ENTRY = dynamo.Projection.of([("contentType",), ("deleted",), ("status",)])
_FILE = dynamo.Projection.of([("sk",), ("values", FILE_KEY)])


@dataclass(frozen=True)
class FileAddress:
    """The parts of `/files/<ws>/<assetId>/<fileId>/<fileName>`."""

    workspace_id: str
    asset_id: str
    file_id: str
    file_name: str

    @property
    def key(self) -> str:
        return f"files/{self.workspace_id}/{self.asset_id}/{self.file_id}/{self.file_name}"


@dataclass(frozen=True)
class StoredFile:
    """A servable file: where it is in the bucket and what it is."""

    address: FileAddress
    key: str
    content_type: str
    size: int


def servable(address: FileAddress) -> StoredFile:
    """The file the address names, or NotFound, the same for every reason it is not served
    (unknown, draft, unpublished, trashed, failed, another name), so a URL tells nothing."""
    table = runtime.settings().tables.content
    entry = dynamo.get_item(table, entry_key(address.workspace_id, address.asset_id), _ENTRY)
    if (
        entry is None
        or entry.get("contentType") != ASSET_TYPE
        or entry.get("deleted")
        or entry.get("status") not in LIVE
    ):
        raise _not_found()
    published = dynamo.get_item(table, published_key(address.workspace_id, address.asset_id), _FILE)
    for item in _published_then_versions(table, address, published):
        found = _ready_file(address, item)
        if found is not None:
            return found
    raise _not_found()


def _published_then_versions(
    table: str, address: FileAddress, published: Mapping[str, Any] | None
) -> Iterator[Mapping[str, Any]]:
    """The published item first (almost every request names its file), then every version."""
    if published is not None:
        yield published
    request = {
        "TableName": table,
        "KeyConditionExpression": "pk = :pk AND begins_with(sk, :versions)",
        "ExpressionAttributeValues": dynamo.values(
            pk=entry_pk(address.workspace_id, address.asset_id), versions=VERSION_SK_PREFIX
        ),
        "ProjectionExpression": _FILE.expression,
        "ExpressionAttributeNames": _FILE.names,
        "ScanIndexForward": False,
    }
    for page in dynamo.query_pages(request):
        yield from (dynamo.decode(item) for item in page)


def _ready_file(address: FileAddress, item: Mapping[str, Any]) -> StoredFile | None:
    file = AssetFile.from_value(_decoded((item.get("values") or {}).get(FILE_KEY)))
    if file is None or file.id != address.file_id or not file.ready or file.key != address.key:
        return None
    return StoredFile(
        address=address,
        key=address.key,
        content_type=file.content_type or "application/octet-stream",
        size=file.size,
    )


def _decoded(stored: object) -> object:
    """The file field as stored: a json field is kept as its JSON text."""
    if not isinstance(stored, str):
        return stored
    try:
        parsed: object = json.loads(stored)
    except ValueError:
        return None
    return parsed


def _not_found() -> NotFound:
    return NotFound("no such file")
