"""The list index job: indexes a type's existing entries for a new layout, in the background.

A type change that alters the list layout (a sortable flag, `listShards`) of a type that has
entries sets the type's `listNext`, from which moment every write keeps both layouts, and
writes a job item (`LISTJOBS` / `<ws>#<type>`, naming the layout's `gen`) in the same
transaction. `run_jobs` is the scheduler function's `lists` job (EventBridge, every minute, on
AWS; the local stack's schedule poller in `make run`). For each job it takes a lease, walks
every locale and shard of the type's `A` / `@c` partitions (every entry not in the trash),
from the job's checkpoint, and re-indexes each entry in a transaction of its own: the items
and counts both layouts want, and a version bump, so a write validated against the old
layout that commits later is refused and validated again. When the walk is done, one
transaction makes `listNext` the layout lists read and turns the job to its second phase: a
second walk re-indexes every entry for that layout alone, deleting the items only the old one
had (each entry records them, so none is ever left behind or read), then the job is deleted.

Trashed entries have no index items; restoring one checks the type's revision, which the
type change bumped, so a restore validated against the old layout is tried again as well. A
run stops taking entries when `out_of_time()` says so, and the next run resumes from the
checkpoint; a run that dies leaves its lease to expire.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from content_service import camel
from content_service.content.entries import (
    PUBLISHED_SK,
    StoredEntry,
    content_digest,
    entry_key,
    from_item,
    published_key,
    summary_text,
)
from content_service.content.lists.list_keys import TERM, partition
from content_service.content.schema import (
    LIST_JOBS_PK,
    ContentType,
    get_type,
    list_job_key,
    type_key,
)
from content_service.content.store import store
from content_service.content.writes import Versions, indexed, put_version, snapshot_items
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

LEASE_SECONDS = 300
_PAGE = 100
_ATTEMPTS = 5


@dataclass
class JobReport:
    """What one run did, for the scheduler's log line."""

    jobs: int = 0
    entries: int = 0
    finished: list[str] = field(default_factory=list)
    stopped_early: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"job": "lists", **camel.dump(self, camel.field_names(JobReport))}


class _LostLease(Exception):
    """Another run took the job over, or a newer type change replaced it."""


def _fenced_update(
    stored: StoredEntry, indexed: StoredEntry, summary: str
) -> TransactWriteItemTypeDef:
    """The entry now records `indexed`'s items (and, upgraded, its version numbers); its
    version moves on (conditioned on it)."""
    sets = {
        "listKeys": [list(k) for k in indexed.list_keys],
        "listCounts": list(indexed.list_counts),
        "summary": summary,
        "versionCount": indexed.versions,
    }
    if indexed.published_version is not None:
        sets["publishedVersion"] = indexed.published_version
        sets["publishedHash"] = indexed.published_hash
    names = {f"#a{i}": name for i, name in enumerate(sets)}
    values = {f":a{i}": dynamo.encode_value(v) for i, v in enumerate(sets.values())}
    assignments = ", ".join(f"#a{i} = :a{i}" for i in range(len(sets)))
    return {
        "Update": {
            "TableName": store().table_name("content"),
            "Key": entry_key(stored.workspace_id, stored.id),
            "UpdateExpression": f"SET {assignments}, #version = #version + :one",
            "ConditionExpression": "#version = :version",
            "ExpressionAttributeNames": {**names, "#version": "version"},
            "ExpressionAttributeValues": {
                **values,
                ":one": {"N": "1"},
                ":version": {"N": str(stored.version)},
            },
        }
    }


def _read_versions(content_type: ContentType, workspace_id: str, entry_id: str) -> Versions | None:
    items = store().get_many(
        "content",
        [entry_key(workspace_id, entry_id), published_key(workspace_id, entry_id)],
    )
    by_sk = {str(item.get("sk")): item for item in items}
    if "ENTRY" not in by_sk:
        return None
    latest = from_item(workspace_id, by_sk["ENTRY"])
    if latest.deleted or latest.content_type != content_type.name:
        return None
    raw = by_sk.get(PUBLISHED_SK)
    return Versions(latest, from_item(workspace_id, raw) if raw and latest.is_live else None)


def _upgraded(versions: Versions) -> tuple[Versions, list[TransactWriteItemTypeDef]]:
    """An entry published before versions existed (status `published`, no published item)
    gets its published item and snapshot 1, equal to what it holds."""
    latest = versions.latest
    if not latest.is_live or versions.published is not None:
        return versions, []
    latest = latest.with_changes(
        status="published", published_version=1, versions=1, published_hash=content_digest(latest)
    )
    published = latest.with_changes(list_keys=(), list_counts=(), published_hash=None)
    return Versions(latest, published), [put_version(published), *snapshot_items(published)]


def reindex_entry(content_type: ContentType, workspace_id: str, entry_id: str) -> bool:
    """Gives one entry the index items and counts its type's layouts want (False when it is
    gone or trashed), upgrading one published before versions existed. The version bump
    refuses a concurrent write made with an older layout."""
    for _ in range(_ATTEMPTS):
        versions = _read_versions(content_type, workspace_id, entry_id)
        if versions is None:
            return False
        stored = versions.latest
        versions, upgrade = _upgraded(versions)
        new, changes = indexed(content_type, stored, versions, published_changed=True, whole=True)
        summary = summary_text(content_type, new)
        try:
            # At most two layouts of at most 45 items each are wanted; the items one of them
            # already has are not written again.
            store().transact([_fenced_update(stored, new, summary), *upgrade, *changes])
            return True
        except dynamo.TransactionCancelled:
            continue  # written meanwhile: read it again
    raise RuntimeError(f"entry {entry_id} kept changing; the job resumes from its checkpoint")


def _entry_ids(
    content_type: ContentType, workspace_id: str, cursor: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every entry id of the type (not trashed), with the checkpoint after it, from `cursor`."""
    locales = sorted(content_type.locales)
    shards = content_type.list_layout.shards
    start_locale, start_shard = int(cursor.get("locale", 0)), int(cursor.get("shard", 0))
    last = cursor.get("key")
    for locale_index in range(start_locale, len(locales)):
        for shard in range(start_shard if locale_index == start_locale else 0, shards):
            pk = partition(
                workspace_id, content_type.name, locales[locale_index], "A", shard, shards, "@c"
            )
            request: dict[str, Any] = {
                "TableName": store().table_name("content"),
                "KeyConditionExpression": "#pk = :pk",
                "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
                "ExpressionAttributeValues": {":pk": {"S": pk}},
                "ConsistentRead": True,
                "Limit": _PAGE,
                "ProjectionExpression": "#sk",
            }
            if last:
                request["ExclusiveStartKey"] = {"pk": {"S": pk}, "sk": {"S": last}}
            for page in store().query(request):
                for raw in page:
                    sk = raw["sk"]["S"]
                    yield (
                        sk.rpartition(TERM)[2],
                        {
                            "locale": locale_index,
                            "shard": shard,
                            "key": sk,
                        },
                    )
            last = None


def _checkpoint(key: dict[str, Any], owner: str, gen: int, cursor: dict[str, Any]) -> None:
    written = store().update(
        {
            "TableName": store().table_name("schema"),
            "Key": key,
            "UpdateExpression": "SET #cursor = :cursor",
            "ConditionExpression": "#owner = :owner AND #gen = :gen",
            "ExpressionAttributeNames": {"#cursor": "cursor", "#owner": "owner", "#gen": "gen"},
            "ExpressionAttributeValues": {
                ":cursor": dynamo.encode_value(cursor),
                ":owner": {"S": owner},
                ":gen": {"N": str(gen)},
            },
        }
    )
    if not written:
        raise _LostLease()


def _lease(key: dict[str, Any], gen: int, now: float) -> str | None:
    owner = str(uuid.uuid4())
    written = store().update(
        {
            "TableName": store().table_name("schema"),
            "Key": key,
            "UpdateExpression": "SET #owner = :owner, #until = :until",
            "ConditionExpression": (
                "#gen = :gen AND (attribute_not_exists(#until) OR #until < :now)"
            ),
            "ExpressionAttributeNames": {"#owner": "owner", "#until": "leaseUntil", "#gen": "gen"},
            "ExpressionAttributeValues": {
                ":owner": {"S": owner},
                ":until": {"N": str(int(now) + LEASE_SECONDS)},
                ":now": {"N": str(int(now))},
                ":gen": {"N": str(gen)},
            },
        }
    )
    return owner if written else None


def _switch(content_type: ContentType, workspace_id: str, gen: int) -> None:
    """Lists read the new layout from now on; the job turns to cleaning (both for `gen` only)."""
    assert content_type.list_next is not None
    store().transact(
        [
            {
                "Update": {
                    "TableName": store().table_name("schema"),
                    "Key": type_key(workspace_id, content_type.name),
                    "UpdateExpression": "SET #layout = :layout REMOVE #next",
                    "ConditionExpression": "#gen = :gen",
                    "ExpressionAttributeNames": {
                        "#layout": "listLayout",
                        "#next": "listNext",
                        "#gen": "listGen",
                    },
                    "ExpressionAttributeValues": {
                        ":layout": dynamo.encode_value(content_type.list_next.to_storage()),
                        ":gen": {"N": str(gen)},
                    },
                }
            },
            {
                "Update": {
                    "TableName": store().table_name("schema"),
                    "Key": list_job_key(workspace_id, content_type.name),
                    "UpdateExpression": "SET #phase = :clean REMOVE #cursor",
                    "ConditionExpression": "#gen = :gen",
                    "ExpressionAttributeNames": {
                        "#phase": "phase",
                        "#cursor": "cursor",
                        "#gen": "gen",
                    },
                    "ExpressionAttributeValues": {
                        ":clean": {"S": "clean"},
                        ":gen": {"N": str(gen)},
                    },
                }
            },
        ]
    )


def _drop(key: dict[str, Any], gen: int) -> None:
    """A job whose type is gone or was changed again without it."""
    store().delete(
        {
            "TableName": store().table_name("schema"),
            "Key": key,
            "ConditionExpression": "#gen = :gen",
            "ExpressionAttributeNames": {"#gen": "gen"},
            "ExpressionAttributeValues": {":gen": {"N": str(gen)}},
        }
    )


def _walk(
    content_type: ContentType,
    workspace_id: str,
    lease: tuple[dict[str, Any], str, int],
    cursor: dict[str, Any],
    out_of_time: Callable[[], bool],
    report: JobReport,
) -> bool:
    """Re-indexes every entry from `cursor`, checkpointing; False when out of time."""
    key, owner, gen = lease
    walk = _entry_ids(content_type, workspace_id, cursor)
    for done, (entry_id, checkpoint) in enumerate(walk, start=1):
        reindex_entry(content_type, workspace_id, entry_id)
        report.entries += 1
        if done % _PAGE == 0 or out_of_time():
            _checkpoint(key, owner, gen, checkpoint)
        if out_of_time():
            report.stopped_early = True
            return False
    return True


def _run_job(
    job: dict[str, Any], out_of_time: Callable[[], bool], now: float, report: JobReport
) -> None:
    workspace_id, name, gen = str(job["workspaceId"]), str(job["typeName"]), int(job["gen"])
    key = list_job_key(workspace_id, name)
    cleaning = job.get("phase") == "clean"
    content_type = get_type(workspace_id, name)
    if (
        content_type is None
        or content_type.list_gen != gen
        or (content_type.list_next is None) != cleaning
    ):
        _drop(key, gen)
        return
    owner = _lease(key, gen, now)
    if owner is None:
        return
    report.jobs += 1
    cursor: dict[str, Any] = job.get("cursor") or {}
    if not cleaning:
        if not _walk(content_type, workspace_id, (key, owner, gen), cursor, out_of_time, report):
            return
        try:
            _switch(content_type, workspace_id, gen)
        except dynamo.TransactionCancelled:
            return  # changed again meanwhile: the newer job does the work
        content_type = get_type(workspace_id, name)
        if content_type is None:
            return
        cursor = {}
    if not _walk(content_type, workspace_id, (key, owner, gen), cursor, out_of_time, report):
        return
    _drop(key, gen)
    report.finished.append(f"{workspace_id}/{name}")


def reindex_stored(workspace_id: str | None = None, *, legacy_only: bool = False) -> int:
    """Indexes every stored entry (of one workspace, or all) for its type's layouts, and
    records its locale on the type: the upgrade of entries written before list indexes
    existed, which the job, walking the index itself, cannot find, and of entries written
    before versions existed (no `versionCount`: a published one gets its published item and
    snapshot 1). One Scan of the content table; returns how many entries were indexed.
    `content-service lists reindex` runs it; `legacy_only` (what the local stack runs after a
    restore) takes only the entries written before versions existed."""
    names = {"#sk": "sk", "#ws": "workspaceId", "#type": "contentType", "#id": "id"}
    names["#locale"] = "locale"
    condition = "#sk = :entry" + (" AND #ws = :ws" if workspace_id else "")
    if legacy_only:
        condition += " AND attribute_not_exists(#count)"
        names["#count"] = "versionCount"
    values: dict[str, Any] = {":entry": {"S": "ENTRY"}}
    if workspace_id:
        values[":ws"] = {"S": workspace_id}
    request: dict[str, Any] = {
        "TableName": store().table_name("content"),
        "FilterExpression": condition,
        "ProjectionExpression": "#ws, #type, #id, #locale",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    types: dict[tuple[str, str], ContentType | None] = {}
    indexed = 0
    for page in store().scan(request):
        for raw in page:
            item = dynamo.decode(raw)
            ws, name = str(item["workspaceId"]), str(item["contentType"])
            if (ws, name) not in types:
                types[(ws, name)] = get_type(ws, name)
            content_type = types[(ws, name)]
            if content_type is None:
                continue
            locale = str(item.get("locale", "en"))
            if locale not in content_type.locales:
                store().update(
                    {
                        "TableName": store().table_name("schema"),
                        "Key": type_key(ws, name),
                        "UpdateExpression": "ADD locales :locale",
                        "ExpressionAttributeValues": {":locale": {"SS": [locale]}},
                    }
                )
                types[(ws, name)] = content_type = get_type(ws, name)
            if content_type is not None and reindex_entry(content_type, ws, str(item["id"])):
                indexed += 1
    return indexed


def run_jobs(out_of_time: Callable[[], bool], now: Callable[[], float] = time.time) -> JobReport:
    """Works on every pending list index job until done or out of time."""
    report = JobReport()
    for page in store().query(
        {
            "TableName": store().table_name("schema"),
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": LIST_JOBS_PK}},
            "ConsistentRead": True,
        }
    ):
        for raw in page:
            if out_of_time():
                report.stopped_early = True
                return report
            try:
                _run_job(dynamo.decode(raw), out_of_time, now(), report)
            except _LostLease:
                continue
    return report
