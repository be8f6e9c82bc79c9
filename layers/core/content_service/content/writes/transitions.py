"""The state changes of an entry: publish, unpublish, discard, trash, restore, purge.

| Action    | From               | To                                 | Event               |
|-----------|--------------------|------------------------------------|---------------------|
| publish   | draft, changed     | published (snapshot n+1 taken)     | `entry.published`   |
| unpublish | published, changed | draft (the latest draft kept)      | `entry.unpublished` |
| discard   | changed            | published (the draft thrown away)  | `entry.updated`     |
| delete    | not trashed        | trashed, state kept                | `entry.deleted`     |
| restore   | trashed            | not trashed, the state it had      | `entry.restored`    |
| purge     | trashed            | gone, versions too                 | `entry.purged`      |

Anything else is 409 (404 for a trashed entry, which only restore and purge reach). Each is one
transaction (`content.writes.write_transaction`): the entry item, the published item when the
published version changes, the snapshot, the index moves and the event, whose title is the
version the event is about (the new published one for a publish, the one taken down for an
unpublish, the published one a discard returns to).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from content_service.clock import Clock, SystemClock, iso_utc
from content_service.content.entries import (
    Entry,
    StoredEntry,
    content_digest,
    entry_key,
    entry_view,
    group_claim_key,
    published_key,
    single_claim_key,
    version_key,
    written,
)
from content_service.content.relations import Source, held, published_linkers
from content_service.content.requests import EntryAction
from content_service.content.schema import ASSET_TYPE, ContentType
from content_service.content.store import store
from content_service.content.writes import role_guard
from content_service.content.writes.events import EventKind
from content_service.content.writes.versions import MAX_VERSIONS, snapshot_items
from content_service.content.writes.write_transaction import (
    Refusal,
    Transaction,
    Versions,
    audit,
    content_table,
    delete,
    encoded,
    entry_for_write,
    entry_target,
    indexed,
    not_found,
    record,
    run,
    type_check,
    type_count,
    unclaim,
    write_versions,
    written_by,
)
from content_service.errors import Conflict
from content_service.identity.principal import Caller
from content_service.identity.roles import PUBLISH, RESTORE, TRASH, UNPUBLISH, UPDATE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef


@dataclass(frozen=True)
class _Outcome:
    """What a transition makes of the entry, and which version its event is about."""

    new: Versions
    about: StoredEntry
    published_changed: bool = False
    snapshot: bool = False


_Change = Callable[[ContentType, Versions, str, Caller], _Outcome]
Also = tuple[Sequence["TransactWriteItemTypeDef"], Refusal]
"""Items a caller adds to the transition's transaction (a schedule turning `done`), and what a
refused condition on the first of them means."""


def _check_role(
    caller: Caller, action: str, content_type: ContentType, current: StoredEntry
) -> None:
    target = entry_target(content_type.name, current.id)
    role_guard.check(caller, content_type.workspace_id, action, target, entry=current)


def _transition(
    request: EntryAction,
    kind: EventKind,
    clock: Clock | None,
    change: _Change,
    *,
    action: str,
    check_type: bool = False,
    also: Also | None = None,
) -> Entry:
    """Reads the entry's versions, checks the caller's role may do `action` to it, lets
    `change` check the state (raising 404/409) and say what they become, and writes that in
    one transaction with the event. `check_type` adds a ConditionCheck of the type's revision,
    for a transition that brings back an entry the list index job cannot have seen (restore)."""
    caller, workspace_id = request.caller, request.workspace_id

    def build(_: dict[str, str]) -> tuple[Transaction, Entry]:
        content_type, versions = entry_for_write(
            caller, workspace_id, request.content_type, request.id
        )
        _check_role(caller, action, content_type, versions.latest)
        now = (clock or SystemClock()).now()
        outcome = change(content_type, versions, iso_utc(now), caller)
        new = outcome.new
        new = Versions(new.latest.with_changes(version=versions.latest.version + 1), new.published)
        transaction = Transaction()
        latest = write_versions(
            transaction,
            content_type,
            versions,
            new,
            published_changed=outcome.published_changed,
        )
        if outcome.snapshot and new.published is not None:
            transaction.add_index(snapshot_items(new.published))
        if check_type:
            transaction.add(type_check(content_type))
        moved = outcome.published_changed or (versions.published is not None) != (
            new.published is not None
        )
        record(transaction, kind, caller, outcome.about, now, published=moved)
        transaction.add(audit(kind, caller, content_type, versions.latest, latest, now))
        if also is not None:
            for index, item in enumerate(also[0]):
                transaction.add(item, also[1] if index == 0 else None)
        return transaction, entry_view(content_type, latest)

    return written(caller, run(workspace_id, request.id, build))


def _live(current: StoredEntry) -> None:
    if current.deleted:
        raise not_found(current.id)


def publish_entry(
    request: EntryAction, clock: Clock | None = None, *, also: Also | None = None
) -> Entry:
    """draft or changed -> published: the draft becomes the live version and snapshot n+1
    (409 if already published). Emits `entry.published`."""

    def change(_: ContentType, versions: Versions, now: str, caller: Caller) -> _Outcome:
        current = versions.latest
        _live(current)
        if current.status == "published":
            raise Conflict("the entry is already published: nothing in its draft to publish")
        number = current.versions + 1
        latest = current.with_changes(
            status="published",
            published_at=now,
            updated_at=now,
            updated_by=written_by(caller),
            published_version=number,
            versions=number,
            published_hash=content_digest(current),
        )
        published = latest.with_changes(list_keys=(), list_counts=(), published_hash=None)
        return _Outcome(Versions(latest, published), published, True, snapshot=True)

    return _transition(request, "entry.published", clock, change, action=PUBLISH, also=also)


def unpublish_entry(
    request: EntryAction, clock: Clock | None = None, *, also: Also | None = None
) -> Entry:
    """published or changed -> draft: the live version is taken down, the latest draft stays
    (409 if a draft). Emits `entry.unpublished` about the version taken down."""

    def change(_: ContentType, versions: Versions, now: str, caller: Caller) -> _Outcome:
        current = versions.latest
        _live(current)
        if not current.is_live or versions.published is None:
            raise Conflict("the entry is not published")
        latest = current.with_changes(
            status="draft",
            published_at=None,
            updated_at=now,
            updated_by=written_by(caller),
            published_version=None,
            published_hash=None,
        )
        return _Outcome(Versions(latest, None), versions.published, True)

    return _transition(request, "entry.unpublished", clock, change, action=UNPUBLISH, also=also)


def discard_changes(request: EntryAction, clock: Clock | None = None) -> Entry:
    """changed -> published: the draft is thrown away and the live version is the latest
    again (409 unless changed). Emits `entry.updated`. Claims the draft alone held on
    exclusive targets are left stale, and the next writer linking those targets takes them."""

    def change(_: ContentType, versions: Versions, now: str, caller: Caller) -> _Outcome:
        current, published = versions.latest, versions.published
        _live(current)
        if current.status != "changed" or published is None:
            raise Conflict("only a changed entry has a draft to discard")
        latest = current.with_changes(
            status="published",
            values=published.values,
            links=published.links,
            audiences=published.audiences,
            title=published.title,
            updated_at=now,
            updated_by=written_by(caller),
        )
        return _Outcome(Versions(latest, published), published)

    return _transition(request, "entry.updated", clock, change, action=UPDATE)


_NAMED_LINKERS = 20


def _refuse_if_linked(caller: Caller, content_type: ContentType, entry: StoredEntry) -> None:
    """409 when published, non-trashed entries link the entry: trashing it would take it out
    of their published pages. Names those the caller may see (at most 20) and counts all."""
    every, named = published_linkers(caller, entry.workspace_id, content_type, entry.id)
    every = [linker for linker in every if linker.id != entry.id]
    named = [linker for linker in named if linker.id != entry.id]
    if not every:
        return
    raise Conflict(
        f"{'asset' if entry.content_type == ASSET_TYPE else 'entry'} {entry.id} is linked from "
        f"{len(every)} published "
        f"entr{'y' if len(every) == 1 else 'ies'}; unlink it there first, or trash it anyway "
        "with force=true",
        details={
            "count": len(every),
            "linkedFrom": [
                {**linker.to_json(), "problem": "links it in its published version"}
                for linker in named[:_NAMED_LINKERS]
            ],
        },
    )


def delete_entry(request: EntryAction, clock: Clock | None = None) -> None:
    """Moves the entry to the trash, its published version with it (409 if already there, and
    unless `force`, 409 while published entries link it). Emits `entry.deleted`. Its links
    and their reverse items stay, so a restore brings them back."""

    def change(content_type: ContentType, versions: Versions, now: str, caller: Caller) -> _Outcome:
        current = versions.latest
        if current.deleted:
            raise Conflict("the entry is already in the trash")
        if not request.force:
            _refuse_if_linked(caller, content_type, current)
        published = versions.published.with_changes(deleted=True) if versions.published else None
        latest = current.with_changes(deleted=True)
        return _Outcome(Versions(latest, published), latest, published is not None)

    _transition(request, "entry.deleted", clock, change, action=TRASH)


def restore_entry(request: EntryAction, clock: Clock | None = None) -> Entry:
    """Brings a trashed entry back in the state it had, live again if it was (409 if not in
    the trash). Emits `entry.restored`."""

    def change(_: ContentType, versions: Versions, now: str, caller: Caller) -> _Outcome:
        current = versions.latest
        if not current.deleted:
            raise Conflict("the entry is not in the trash")
        published = versions.published.with_changes(deleted=False) if versions.published else None
        latest = current.with_changes(deleted=False)
        return _Outcome(Versions(latest, published), latest, published is not None)

    return _transition(request, "entry.restored", clock, change, action=RESTORE, check_type=True)


def _purged_items(
    transaction: Transaction, content_type: ContentType, versions: Versions
) -> list[dict[str, dict[str, str]]]:
    """The claims, snapshots and reverse-link items a purge removes, as many as fit in its
    transaction; returns the snapshot and reverse-link keys left for after it commits."""
    current = versions.latest
    for definition in content_type.relation_fields:
        if not definition.exclusive:
            continue
        for target_id in current.links.get(definition.key, ()):
            if transaction.room <= 0:
                break
            transaction.add_link(unclaim(content_type, definition, target_id, current.id))
    snapshots = [
        version_key(current.workspace_id, current.id, number)
        for number in range(max(1, current.versions - MAX_VERSIONS + 1), current.versions + 1)
    ]
    source = Source.of(current)
    keys = [*snapshots, *(source.key(link) for link in sorted(held(current, versions.published)))]
    fitting = max(0, transaction.room)
    for key in keys[:fitting]:
        transaction.add(delete(key))
    return keys[fitting:]


def purge_entry(request: EntryAction, clock: Clock | None = None) -> None:
    """Removes a trashed entry for good, its published version and its snapshots with it
    (409 if not in the trash). Emits `entry.purged` with the title snapshot. Its locale and
    single-type claims go in the same transaction, and so do its one-to-one/one-to-many link
    claims and its snapshots as far as they fit; claims left over are stale (their source is
    gone: the next writer to link those targets takes them over), snapshots left over are
    deleted right after the commit (a crash in between leaves them unreachable: no route
    reads the versions of an entry that does not exist). Its reverse-link items go the same
    way: in the transaction as far as they fit, the rest right after (a crash in between
    leaves them stale, which reads skip and `links reindex` removes)."""
    caller, workspace_id = request.caller, request.workspace_id
    leftovers: list[dict[str, dict[str, str]]] = []

    def build(_: dict[str, str]) -> tuple[Transaction, None]:
        content_type, versions = entry_for_write(
            caller, workspace_id, request.content_type, request.id
        )
        current = versions.latest
        _check_role(caller, TRASH, content_type, current)
        if not current.deleted:
            raise Conflict("only an entry in the trash can be purged; delete it first")
        now = (clock or SystemClock()).now()
        transaction = Transaction()
        transaction.add(
            {
                "Delete": {
                    "TableName": content_table(),
                    "Key": entry_key(workspace_id, current.id),
                    "ConditionExpression": "#version = :version AND #deleted = :true",
                    "ExpressionAttributeNames": {"#version": "version", "#deleted": "deleted"},
                    "ExpressionAttributeValues": encoded(
                        {":version": current.version, ":true": True}
                    ),
                }
            }
        )
        if versions.published is not None:
            transaction.add(delete(published_key(workspace_id, current.id)))
        transaction.add(type_count(content_type, -1))
        transaction.add(
            delete(group_claim_key(workspace_id, current.locale_group_id, current.locale))
        )
        if content_type.is_single:
            transaction.add(
                delete(single_claim_key(workspace_id, content_type.name, current.locale))
            )
        transaction.add_index(indexed(content_type, current, Versions(current, None))[1])
        record(transaction, "entry.purged", caller, current, now, published=False)
        transaction.add(audit("entry.purged", caller, content_type, current, current, now))
        leftovers[:] = _purged_items(transaction, content_type, versions)
        return transaction, None

    run(workspace_id, request.id, build)
    if leftovers:
        store().delete_many("content", leftovers)
