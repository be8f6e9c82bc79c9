"""The transaction every entry write is: its items, what a refused condition means, retries.

Every successful write is ONE TransactWriteItems with exactly one event. It holds the entry
item and, while the entry has one, its published item (`content.entries.items`), the list index and
count items the change moves (`content.lists.list_index`), plus whatever keeps the write honest:
- the content type's item (an Update of `entryCount` on create and purge, a ConditionCheck of
  its `revision` on update), so a write validated against a definition that changed meanwhile
  is refused and validated again, and a type cannot be deleted while it has entries;
- claim items (one entry per localeGroupId and locale, one per locale for a single type, one
  source per target for one-to-one and one-to-many links);
- a ConditionCheck per newly linked target (it still exists and is not trashed);
- the reverse-link items the change makes (a Put per new link) and, as far as room is left,
  deletes of the ones it leaves stale (`content.relations.link_refs`);
- beside the event, the write's change item (`content.writes.change_log`), what sync deltas read.
Conditions on the entry's `version` make concurrent writes serialise instead of losing updates:
a refused transaction writes nothing, and the write is read, validated and tried again (up to
five times) before answering 409.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from content_service.audit.entry_changes import entry_changes
from content_service.audit.records import Actor, Target, record_put
from content_service.content.entries import (
    MAX_ITEM_BYTES,
    PUBLISHED_SK,
    StoredEntry,
    audiences_allow,
    entry_item,
    entry_key,
    from_item,
    is_entry_id,
    item_size,
    link_claim_key,
    published_item,
    published_key,
    summary_text,
)
from content_service.content.lists import Visibility, index_changes, index_state, with_state
from content_service.content.relations import Link, Source, changes, held
from content_service.content.schema import ASSET_TYPE, ContentType, FieldDef, get_type, type_key
from content_service.content.store import store
from content_service.content.writes.change_log import change_put
from content_service.content.writes.events import EventKind, actor_of, event_put
from content_service.errors import Conflict, Forbidden, NotFound, ValidationFailed
from content_service.identity.principal import Caller
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
        PutTypeDef,
        TransactWriteItemTypeDef,
    )

_ATTEMPTS = 5
T = TypeVar("T")


def content_table() -> str:
    return store().table_name("content")


def encoded(values: Mapping[str, Any]) -> dict[str, AttributeValueTypeDef]:
    return {k: dynamo.encode_value(v) for k, v in values.items()}


# ---------------------------------------------------------------------------------------------
# What a refused condition means


class Refusal:
    """What a failed condition on one transaction item means. By default nothing the writer
    is told: the entry, its type or a target changed, so the write is read, validated and
    tried again."""

    def settle(self, workspace_id: str, me: str, takeovers: dict[str, str]) -> None:
        return None


@dataclass(frozen=True)
class Taken(Refusal):
    """An exclusive claim the write needs (a locale of a group, a single type's locale)."""

    message: str

    def settle(self, workspace_id: str, me: str, takeovers: dict[str, str]) -> None:
        raise Conflict(self.message) from None


@dataclass(frozen=True)
class LinkClaim(Refusal):
    """A one-to-one or one-to-many target another source claims: a conflict while that claim
    holds, else a stale claim the next try takes over."""

    content_type: str
    relation: FieldDef
    target_id: str

    def settle(self, workspace_id: str, me: str, takeovers: dict[str, str]) -> None:
        stale = _claim_is_stale(workspace_id, self, me)
        if stale is not None:
            takeovers[self.target_id + "#" + self.relation.key] = stale
            return
        raise Conflict(
            f"entry {self.target_id} is already linked from another entry "
            f"through {self.relation.name!r} ({self.relation.cardinality})",
            details=[
                {
                    "location": f"relations.{self.relation.name}.link",
                    "problem": f"{self.target_id} is taken",
                }
            ],
        ) from None


def _claim_is_stale(workspace_id: str, claim: LinkClaim, me: str) -> str | None:
    """The claiming source's id when its claim on the target no longer holds, else None.

    A claim holds while its source exists and still links the target through the field, in
    its draft or in its published version (a trashed source still holds: restore brings its
    links back). A purged source or a link removed from both leaves a stale claim, which the
    next writer takes over.
    """
    found = store().get(
        "content",
        link_claim_key(workspace_id, claim.content_type, claim.relation.key, claim.target_id),
    )
    if found is None:
        return None
    source_id = str(found.get("sourceId", ""))
    if source_id == me:
        return None
    if not is_entry_id(source_id):
        return source_id
    versions = store().get_many(
        "content",
        [entry_key(workspace_id, source_id), published_key(workspace_id, source_id)],
        [["links", claim.relation.key]],
    )
    for item in versions:
        if claim.target_id in (item.get("links") or {}).get(claim.relation.key, ()):
            return None
    return source_id


# ---------------------------------------------------------------------------------------------
# The transaction


@dataclass
class Transaction:
    """Transaction items, what a failed condition on each means, and how many change links
    and list index items (for a readable refusal over DynamoDB's limit). `stale` holds
    deletes of reverse-link items no version needs any more: they go in last, as many as fit,
    since one left behind is harmless (every read verifies its source)."""

    items: list[TransactWriteItemTypeDef] = field(default_factory=list)
    refusals: dict[int, Refusal] = field(default_factory=dict)
    link_items: int = 0
    index_items: int = 0
    stale: list[TransactWriteItemTypeDef] = field(default_factory=list)

    def add(self, item: TransactWriteItemTypeDef, refusal: Refusal | None = None) -> None:
        if refusal is not None:
            self.refusals[len(self.items)] = refusal
        self.items.append(item)

    def add_link(self, item: TransactWriteItemTypeDef, refusal: Refusal | None = None) -> None:
        self.link_items += 1
        self.add(item, refusal)

    def add_index(self, items: Sequence[TransactWriteItemTypeDef]) -> None:
        self.index_items += len(items)
        self.items.extend(items)

    def add_stale(self, items: Sequence[TransactWriteItemTypeDef]) -> None:
        self.stale.extend(items)

    def committed_items(self) -> list[TransactWriteItemTypeDef]:
        """What is sent: every item, then the stale deletes that fit (after the others, so a
        refusal's index still names its item)."""
        return [*self.items, *self.stale[: max(0, self.room)]]

    @property
    def room(self) -> int:
        return dynamo.TRANSACT_LIMIT - len(self.items)


def _fits(transaction: Transaction) -> None:
    """DynamoDB's 100-item limit, as a readable refusal rather than a failed call."""
    size = len(transaction.items)
    if size <= dynamo.TRANSACT_LIMIT:
        return
    index, links = transaction.index_items, transaction.link_items
    raise ValidationFailed(
        f"this write needs {size} items in its transaction ({links} for link changes, {index} "
        f"for list index and count items) and DynamoDB allows {dynamo.TRANSACT_LIMIT}; "
        "change fewer links in one write",
        details=[{"location": "relations", "problem": "too many link changes for one write"}],
    )


def run(workspace_id: str, me: str, build: Callable[[dict[str, str]], tuple[Transaction, T]]) -> T:
    """Builds and commits a transaction, again after a lost race; maps refusals to errors."""
    takeovers: dict[str, str] = {}
    for attempt in range(_ATTEMPTS):
        transaction, result = build(takeovers)
        _fits(transaction)
        try:
            store().transact(transaction.committed_items())
            return result
        except dynamo.TransactionCancelled as cancelled:
            if cancelled.conflicted:
                time.sleep(0.01 * 2**attempt)
                continue
            for index, refusal in sorted(transaction.refusals.items()):
                if cancelled.failed(index):
                    refusal.settle(workspace_id, me, takeovers)
    raise Conflict("the entry changed concurrently; try again")


# ---------------------------------------------------------------------------------------------
# Reading what a write acts on


@dataclass(frozen=True)
class Versions:
    """An entry's latest version and its published one (None while it has none)."""

    latest: StoredEntry
    published: StoredEntry | None


def type_for_write(caller: Caller, workspace_id: str, name: str) -> ContentType:
    if not caller.can_write:
        raise Forbidden("writing content needs a full token with content:write, or a sign-in")
    content_type = get_type(workspace_id, name) if caller.grants(name) else None
    if content_type is None:
        raise NotFound(f"content type {name!r} not found")
    return content_type


def not_found(entry_id: str) -> NotFound:
    return NotFound(f"entry {entry_id[:64]!r} not found")


def read_for_write(
    caller: Caller, content_type: ContentType, workspace_id: str, entry_id: str
) -> Versions:
    """The entry a write acts on, trashed or not, if the writer may see it at all: its entry
    item and, while it is live, its published item, in one strongly consistent read."""
    if not is_entry_id(entry_id):
        raise not_found(entry_id)
    items = store().get_many(
        "content", [entry_key(workspace_id, entry_id), published_key(workspace_id, entry_id)]
    )
    by_sk = {str(item.get("sk")): item for item in items}
    item = by_sk.get("ENTRY")
    if item is None or item.get("contentType") != content_type.name:
        raise not_found(entry_id)
    latest = from_item(workspace_id, item)
    if not audiences_allow(caller, content_type, latest.audiences):
        raise not_found(entry_id)
    published_raw = by_sk.get(PUBLISHED_SK) if latest.is_live else None
    published = from_item(workspace_id, published_raw) if published_raw else None
    return Versions(latest, published)


def entry_for_write(
    caller: Caller, workspace_id: str, type_name: str, entry_id: str
) -> tuple[ContentType, Versions]:
    """The content type a write names and the entry it acts on (`type_for_write`, then
    `read_for_write`)."""
    content_type = type_for_write(caller, workspace_id, type_name)
    return content_type, read_for_write(caller, content_type, workspace_id, entry_id)


def written_by(caller: Caller) -> dict[str, str] | None:
    """Who a new version names as its writer: the signed-in user, or None for a token."""
    return actor_of(caller)


# ---------------------------------------------------------------------------------------------
# Transaction items


def type_check(content_type: ContentType) -> TransactWriteItemTypeDef:
    return {
        "ConditionCheck": {
            "TableName": store().table_name("schema"),
            "Key": type_key(content_type.workspace_id, content_type.name),
            "ConditionExpression": "revision = :revision",
            "ExpressionAttributeValues": encoded({":revision": content_type.revision}),
        }
    }


def type_count(
    content_type: ContentType, delta: int, locale: str | None = None
) -> TransactWriteItemTypeDef:
    """`entryCount` moved by `delta`; a create also records its locale (the list index job
    walks every locale a type has entries in)."""
    condition = "revision = :revision" if delta > 0 else "attribute_exists(pk)"
    values = encoded({":delta": delta, ":zero": 0})
    if delta > 0:
        values[":revision"] = dynamo.encode_value(content_type.revision)
    expression = "SET entryCount = if_not_exists(entryCount, :zero) + :delta"
    if locale is not None:
        expression += " ADD locales :locale"
        values[":locale"] = {"SS": [locale]}
    return {
        "Update": {
            "TableName": store().table_name("schema"),
            "Key": type_key(content_type.workspace_id, content_type.name),
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values,
        }
    }


def _sized(item: dict[str, Any]) -> dict[str, Any]:
    if item_size(item) > MAX_ITEM_BYTES:
        raise ValidationFailed(
            f"the entry would exceed DynamoDB's item size limit ({MAX_ITEM_BYTES // 1024} KB "
            "including the summary); shorten the text fields"
        )
    return item


def put_entry(
    content_type: ContentType, entry: StoredEntry, previous: StoredEntry | None
) -> TransactWriteItemTypeDef:
    """The whole entry item: new (`previous` None) or replacing `previous` unchanged since."""
    put: PutTypeDef = {
        "TableName": content_table(),
        "Item": dynamo.encode(_sized(entry_item(content_type, entry))),
        "ConditionExpression": "attribute_not_exists(pk)",
    }
    if previous is not None:
        put["ConditionExpression"] = "#version = :version AND #deleted = :deleted"
        put["ExpressionAttributeNames"] = {"#version": "version", "#deleted": "deleted"}
        put["ExpressionAttributeValues"] = encoded(
            {":version": previous.version, ":deleted": previous.deleted}
        )
    return {"Put": put}


def put_version(entry: StoredEntry, sk: str = PUBLISHED_SK) -> TransactWriteItemTypeDef:
    """The published item (or a snapshot, `sk` `VERSION#n`, which must not exist yet)."""
    put: PutTypeDef = {
        "TableName": content_table(),
        "Item": dynamo.encode(_sized(published_item(entry, sk))),
    }
    if sk != PUBLISHED_SK:
        put["ConditionExpression"] = "attribute_not_exists(pk)"
    return {"Put": put}


def put_claim(key: Mapping[str, Any], attributes: Mapping[str, Any]) -> TransactWriteItemTypeDef:
    """A locale or single-type claim item, written only where none exists yet."""
    return {
        "Put": {
            "TableName": content_table(),
            "Item": {**key, **dynamo.encode(attributes)},
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }


def delete(key: Mapping[str, Any]) -> TransactWriteItemTypeDef:
    return {"Delete": {"TableName": content_table(), "Key": key}}


def exists(key: Mapping[str, Any]) -> TransactWriteItemTypeDef:
    return {
        "ConditionCheck": {
            "TableName": content_table(),
            "Key": key,
            "ConditionExpression": "attribute_exists(pk)",
        }
    }


def target_check(workspace_id: str, target_id: str) -> TransactWriteItemTypeDef:
    """A newly linked target still exists and is not trashed."""
    return {
        "ConditionCheck": {
            "TableName": content_table(),
            "Key": entry_key(workspace_id, target_id),
            "ConditionExpression": "attribute_exists(pk) AND #deleted = :false",
            "ExpressionAttributeNames": {"#deleted": "deleted"},
            "ExpressionAttributeValues": encoded({":false": False}),
        }
    }


def unclaim(
    content_type: ContentType, definition: FieldDef, target_id: str, source_id: str
) -> TransactWriteItemTypeDef:
    """Releases the source's claim on a target (none there, or another source's: nothing)."""
    return {
        "Delete": {
            "TableName": content_table(),
            "Key": link_claim_key(
                content_type.workspace_id, content_type.name, definition.key, target_id
            ),
            "ConditionExpression": "attribute_not_exists(pk) OR sourceId = :me",
            "ExpressionAttributeValues": encoded({":me": source_id}),
        }
    }


def claim_link(
    content_type: ContentType,
    definition: FieldDef,
    target_id: str,
    source_id: str,
    stale: str | None,
) -> TransactWriteItemTypeDef:
    """The source's claim on a target, unless another source holds it (`stale`: a source
    whose claim no longer holds, taken over)."""
    condition = "attribute_not_exists(pk) OR sourceId = :me"
    values: dict[str, Any] = {":me": source_id}
    if stale is not None:
        condition += " OR sourceId = :stale"
        values[":stale"] = stale
    attributes = {
        "entity": "link_claim",
        "sourceId": source_id,
        "targetId": target_id,
        "fieldKey": definition.key,
    }
    key = link_claim_key(content_type.workspace_id, content_type.name, definition.key, target_id)
    return {
        "Put": {
            "TableName": content_table(),
            "Item": {**key, **dynamo.encode(attributes)},
            "ConditionExpression": condition,
            "ExpressionAttributeValues": encoded(values),
        }
    }


def indexed(
    content_type: ContentType,
    old: StoredEntry | None,
    new: Versions,
    *,
    published_changed: bool = False,
    whole: bool = False,
) -> tuple[StoredEntry, list[TransactWriteItemTypeDef]]:
    """`new.latest` recording the list index and count items the entry should have (what the
    entry item stores), and the transaction elements that take the index there from `old`
    (the entry item as it was; None for a new entry). `published_changed` rewrites the
    published summary on the items that carry it; `whole` rewrites both summaries."""
    state = index_state(content_type, new.latest, new.published)
    summaries: dict[Visibility, str] = {"A": summary_text(content_type, new.latest)}
    rewrite: set[Visibility] = set()
    if whole or old is None or summary_text(content_type, old) != summaries["A"]:
        rewrite.add("A")
    if new.published is not None:
        summaries["P"] = summary_text(content_type, new.published)
        if published_changed or whole:
            rewrite.add("P")
    return with_state(new.latest, state), index_changes(old, state, summaries, rewrite)


def write_versions(
    transaction: Transaction,
    content_type: ContentType,
    old: Versions,
    new: Versions,
    *,
    published_changed: bool,
) -> StoredEntry:
    """The entry item, the published item when it changed (put; deleted when the entry has no
    published version any more) and the index moves, into `transaction`. Returns the latest
    version as stored (with its index bookkeeping)."""
    latest, index = indexed(content_type, old.latest, new, published_changed=published_changed)
    transaction.add(put_entry(content_type, latest, old.latest))
    if published_changed and new.published is not None:
        transaction.add(put_version(new.published))
    elif old.published is not None and new.published is None:
        transaction.add(delete(published_key(latest.workspace_id, latest.id)))
    transaction.add_index(index)
    add_refs(
        transaction, old.latest, held(old.latest, old.published), held(new.latest, new.published)
    )
    return latest


def add_refs(
    transaction: Transaction, source: StoredEntry, before: set[Link], after: set[Link]
) -> None:
    """The reverse-link items a change of the source's links needs: every Put (counted as a
    link item), and the stale deletes as far as they fit."""
    found = changes(Source.of(source), before, after, content_table())
    for put in found.puts:
        transaction.add_link(put)
    transaction.add_stale(found.deletes)


def event(
    kind: EventKind, caller: Caller, about: StoredEntry, now: float
) -> TransactWriteItemTypeDef:
    """The write's one event; `about` is the version it concerns (its title is the snapshot)."""
    return event_put(
        kind,
        workspace_id=about.workspace_id,
        caller=caller,
        entry_id=about.id,
        content_type=about.content_type,
        title=about.title,
        now=now,
    )


def record(
    transaction: Transaction,
    kind: EventKind,
    caller: Caller,
    about: StoredEntry,
    now: float,
    *,
    published: bool,
) -> None:
    """The write's event and its change item (`published`: the write changed or removed the
    entry's published version), so webhooks and sync deltas learn of every committed write."""
    transaction.add(event(kind, caller, about, now))
    transaction.add(
        change_put(
            about.workspace_id,
            entry_id=about.id,
            content_type=about.content_type,
            locale=about.locale,
            published=published,
            now=now,
        )
    )


def audit(
    kind: EventKind,
    caller: Caller,
    content_type: ContentType,
    before: StoredEntry | None,
    after: StoredEntry,
    now: float,
) -> TransactWriteItemTypeDef:
    """The write's audit record (`audit.records`): its event's kind as the action, the entry
    (or asset) as the target, and the fields that changed from `before` to `after`."""
    return record_put(
        after.workspace_id,
        kind,
        Actor.of(caller),
        entry_target(content_type.name, after.id),
        now,
        entry_changes(content_type, before, after),
    )


def entry_target(content_type: str, entry_id: str) -> Target:
    """An entry as an audit target; an entry of the built-in `asset` type is an asset."""
    return Target("asset" if content_type == ASSET_TYPE else "entry", entry_id, content_type)
