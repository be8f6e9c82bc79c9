"""`content-service links reindex`: the reverse-link items made right for every stored entry.

Entries written before the reverse-link index existed have none, and a write whose
transaction had no room left (or a purge that stopped between its transaction and the deletes
after it) leaves stale ones (`content.relations.link_refs`). This walks every reverse item (one
Scan) and every entry item (another), and for each source writes what its versions' links want: a
Put per missing reverse item, a Delete per one no version holds, a purged source's all deleted.

Each source is fixed in transactions of its own, fenced on the entry item as read (its
`version`, or its absence for a purged source), so a write committed meanwhile makes the fix
read the source again rather than delete a reverse item a new link needs. A run that stops
halfway leaves every source it reached exact and the others as they were: running it again
resumes, and a run with nothing to fix writes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.content.entries import PUBLISHED_SK, entry_key, from_item, published_key
from content_service.content.relations.link_refs import REF_PK_PREFIX, Source, held
from content_service.content.store import store
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

_ATTEMPTS = 5
RefKey = tuple[str, str]


@dataclass
class LinkReindexReport:
    """What a run did: sources looked at, reverse items written and deleted."""

    sources: int = 0
    written: int = 0
    deleted: int = 0

    def to_json(self) -> dict[str, int]:
        return {"sources": self.sources, "written": self.written, "deleted": self.deleted}


_NAMES = {"#pk": "pk", "#sk": "sk", "#ws": "workspaceId", "#id": "id"}


def _scan(condition: str, values: dict[str, Any], projection: str) -> Iterator[dict[str, Any]]:
    used = f"{condition} {projection}"
    request = {
        "TableName": store().table_name("content"),
        "FilterExpression": condition,
        "ProjectionExpression": projection,
        "ExpressionAttributeNames": {k: v for k, v in _NAMES.items() if k in used},
        "ExpressionAttributeValues": values,
    }
    for page in store().scan(request):
        for raw in page:
            yield dynamo.decode(raw)


def _stored_refs(workspace_id: str | None) -> dict[tuple[str, str], set[RefKey]]:
    """Every reverse item's key, by (workspace, source id)."""
    prefix = f"{REF_PK_PREFIX}{workspace_id}#" if workspace_id else REF_PK_PREFIX
    found: dict[tuple[str, str], set[RefKey]] = defaultdict(set)
    for item in _scan("begins_with(#pk, :prefix)", {":prefix": {"S": prefix}}, "#pk, #sk"):
        pk, sk = str(item["pk"]), str(item["sk"])
        workspace = pk[len(REF_PK_PREFIX) :].rsplit("#", 1)[0]
        found[(workspace, sk.rsplit("#", 1)[-1])].add((pk, sk))
    return found


def _entries(workspace_id: str | None) -> Iterator[tuple[str, str]]:
    """(workspace, id) of every entry item."""
    condition = "#sk = :entry" + (" AND #ws = :ws" if workspace_id else "")
    values: dict[str, Any] = {":entry": {"S": "ENTRY"}}
    if workspace_id:
        values[":ws"] = {"S": workspace_id}
    for item in _scan(condition, values, "#ws, #id"):
        yield str(item["workspaceId"]), str(item["id"])


def _ref_key(key: dict[str, Any]) -> RefKey:
    return (str(key["pk"]["S"]), str(key["sk"]["S"]))


def _wanted(
    workspace_id: str, source_id: str
) -> tuple[dict[RefKey, dict[str, Any]], TransactWriteItemTypeDef]:
    """The reverse items the source's versions want (by key), and the fence on its entry item
    as read now."""
    table = store().table_name("content")
    items = store().get_many(
        "content", [entry_key(workspace_id, source_id), published_key(workspace_id, source_id)]
    )
    by_sk = {str(item.get("sk")): item for item in items}
    key = entry_key(workspace_id, source_id)
    if "ENTRY" not in by_sk:
        fence = "attribute_not_exists(pk)"
        return {}, {
            "ConditionCheck": {"TableName": table, "Key": key, "ConditionExpression": fence}
        }
    latest = from_item(workspace_id, by_sk["ENTRY"])
    raw = by_sk.get(PUBLISHED_SK)
    published = from_item(workspace_id, raw) if raw and latest.is_live else None
    source = Source.of(latest)
    wanted = {_ref_key(source.key(link)): source.item(link) for link in held(latest, published)}
    check: TransactWriteItemTypeDef = {
        "ConditionCheck": {
            "TableName": table,
            "Key": key,
            "ConditionExpression": "#version = :version",
            "ExpressionAttributeNames": {"#version": "version"},
            "ExpressionAttributeValues": {":version": dynamo.encode_value(latest.version)},
        }
    }
    return wanted, check


def _fix_source(
    workspace_id: str, source_id: str, stored: set[RefKey], report: LinkReindexReport
) -> None:
    """Takes one source's reverse items from `stored` to what its versions want."""
    table = store().table_name("content")
    for _ in range(_ATTEMPTS):
        wanted, fence = _wanted(workspace_id, source_id)
        puts: list[TransactWriteItemTypeDef] = [
            {"Put": {"TableName": table, "Item": item}}
            for key, item in sorted(wanted.items())
            if key not in stored
        ]
        deletes: list[TransactWriteItemTypeDef] = [
            {"Delete": {"TableName": table, "Key": dynamo.key(*key)}}
            for key in sorted(stored - set(wanted))
        ]
        writes = [*puts, *deletes]
        step = dynamo.TRANSACT_LIMIT - 1
        try:
            for start in range(0, len(writes), step):
                store().transact([fence, *writes[start : start + step]])
        except dynamo.TransactionCancelled:
            continue  # written meanwhile: read it again (a Put or Delete repeated is harmless)
        report.written += len(puts)
        report.deleted += len(deletes)
        return
    raise RuntimeError(f"entry {source_id} kept changing; run the command again")


def reindex_links(workspace_id: str | None = None) -> LinkReindexReport:
    """Every source's reverse items made exact (of one workspace, or all)."""
    report = LinkReindexReport()
    stored = _stored_refs(workspace_id)
    for workspace, source_id in _entries(workspace_id):
        report.sources += 1
        _fix_source(workspace, source_id, stored.pop((workspace, source_id), set()), report)
    for (workspace, source_id), keys in stored.items():
        report.sources += 1
        _fix_source(workspace, source_id, keys, report)
    return report
