"""Version history: one immutable snapshot per publish, numbered from 1, the last 100 kept.

A snapshot is its own item beside the entry (`ENTRY#<ws>#<id>` / `VERSION#<n, 6 digits>`, the
published item's shape plus `publishedBy`), never inside the entry's item, which DynamoDB caps
at 400 KB. The publish that takes snapshot `n` also deletes snapshot `n - MAX_VERSIONS` in its
transaction, so at most MAX_VERSIONS are ever kept. Reading a page of them is one Query over a
range of numbers (they are dense), newest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service import camel
from content_service.content.entries import (
    Entry,
    NumberedPage,
    StoredEntry,
    audiences_allow,
    entry_key,
    entry_pk,
    entry_view,
    from_item,
    is_entry_id,
    version_key,
    version_sk,
)
from content_service.content.lists import select
from content_service.content.requests import VersionRequest, VersionsRequest
from content_service.content.schema import ContentType, require_type
from content_service.content.store import store
from content_service.content.writes.write_transaction import delete, put_version
from content_service.errors import Forbidden, NotFound
from content_service.identity.principal import Caller
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

MAX_VERSIONS = 100
"""Snapshots kept per entry; publishing the 101st deletes the 1st."""


def snapshot_items(published: StoredEntry) -> list[TransactWriteItemTypeDef]:
    """The new snapshot (the published version `published.published_version`), and the
    deletion of the one that falls out of the kept range."""
    number = published.published_version or 0
    items = [put_version(published, version_sk(number))]
    if number > MAX_VERSIONS:
        items.append(
            delete(version_key(published.workspace_id, published.id, number - MAX_VERSIONS))
        )
    return items


def read_snapshot(workspace_id: str, entry_id: str, number: int) -> StoredEntry | None:
    if not is_entry_id(entry_id) or number < 1:
        return None
    item = store().get("content", version_key(workspace_id, entry_id, number))
    return from_item(workspace_id, item) if item else None


@dataclass(frozen=True)
class VersionSummary:
    number: int
    published_at: str | None
    published_by: dict[str, str] | None
    title: str

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.number,
            **camel.dump(self, ("published_at", "published_by", "title")),
        }


VersionPage = NumberedPage[VersionSummary]


@dataclass(frozen=True)
class VersionDetail:
    summary: VersionSummary
    entry: Entry

    def to_json(self) -> dict[str, Any]:
        return {**self.summary.to_json(), "entry": self.entry.to_json()}


def _summary(stored: StoredEntry) -> VersionSummary:
    return VersionSummary(
        number=stored.published_version or 0,
        published_at=stored.published_at,
        published_by=dict(stored.updated_by) if stored.updated_by else None,
        title=stored.title,
    )


def _entry_for_history(
    caller: Caller, workspace_id: str, type_name: str, entry_id: str
) -> tuple[ContentType, StoredEntry]:
    """The content type and the entry whose history is read: the history is editorial (a
    full token or a sign-in), of an entry the caller may see that is not in the trash."""
    if not caller.sees_drafts:
        raise Forbidden("version history needs a full token or a sign-in")
    content_type = require_type(caller, workspace_id, type_name)
    item = (
        store().get("content", entry_key(workspace_id, entry_id)) if is_entry_id(entry_id) else None
    )
    stored = from_item(workspace_id, item) if item else None
    if (
        stored is None
        or stored.content_type != content_type.name
        or stored.deleted
        or not audiences_allow(caller, content_type, stored.audiences)
    ):
        raise NotFound(f"entry {entry_id[:64]!r} not found")
    return content_type, stored


def list_versions(request: VersionsRequest) -> VersionPage:
    """`GET /{id}/versions`: the kept snapshots, newest first, paged by number."""
    _, stored = _entry_for_history(
        request.caller, request.workspace_id, request.content_type, request.id
    )
    newest, oldest = stored.versions, max(1, stored.versions - MAX_VERSIONS + 1)
    total = newest - oldest + 1 if newest else 0
    high = newest - (request.page - 1) * request.page_size
    low = max(oldest, high - request.page_size + 1)
    if total == 0 or high < oldest:
        return VersionPage([], total, request.page, request.page_size)
    names = {"#pk": "pk", "#sk": "sk"}
    projection = dynamo.Projection.of(
        [["publishedVersion"], ["publishedAt"], ["updatedBy"], ["title"]]
    )
    found: list[VersionSummary] = []
    for page in store().query(
        {
            "TableName": store().table_name("content"),
            "KeyConditionExpression": "#pk = :pk AND #sk BETWEEN :low AND :high",
            "ExpressionAttributeNames": {**names, **projection.names},
            "ExpressionAttributeValues": {
                ":pk": {"S": entry_pk(request.workspace_id, request.id)},
                ":low": {"S": version_sk(low)},
                ":high": {"S": version_sk(high)},
            },
            "ProjectionExpression": projection.expression,
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }
    ):
        found.extend(_summary(from_item(request.workspace_id, dynamo.decode(i))) for i in page)
    return VersionPage(found, total, request.page, request.page_size)


def get_version(request: VersionRequest) -> VersionDetail:
    """`GET /{id}/versions/{n}`: one snapshot, with the entry as it was published."""
    content_type, _ = _entry_for_history(
        request.caller, request.workspace_id, request.content_type, request.id
    )
    snapshot = read_snapshot(request.workspace_id, request.id, request.number)
    if snapshot is None:
        raise NotFound(f"entry {request.id[:64]!r} has no version {request.number}")
    selection = select(request.caller, content_type, None)
    entry = entry_view(content_type, snapshot, selection.value_fields)
    return VersionDetail(_summary(snapshot), entry)
