"""Writing entries: every successful write is ONE TransactWriteItems with exactly one event.

The transaction holds the entry change and its event, the list index and count items the
change moves (`content.list_index`), plus whatever keeps the write honest:
- the content type's item (an Update of `entryCount` on create and purge, a ConditionCheck of
  its `revision` on update), so a write validated against a definition that changed meanwhile
  is refused and validated again, and a type cannot be deleted while it has entries;
- claim items (one entry per localeGroupId and locale, one per locale for a single type, one
  source per target for one-to-one and one-to-many links);
- a ConditionCheck per newly linked target (it still exists and is not trashed).
Conditions on the entry's `version` make concurrent writes serialise instead of losing updates:
a refused transaction writes nothing, and the write is read, validated and tried again (up to
five times) before answering 409.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from content_service.clock import Clock, SystemClock, iso_utc
from content_service.content import values as value_rules
from content_service.content.events import EventKind, event_put
from content_service.content.items import (
    MAX_ITEM_BYTES,
    SYSTEM_ATTRIBUTES,
    StoredEntry,
    entry_item,
    entry_key,
    from_item,
    group_claim_key,
    item_size,
    link_claim_key,
    single_claim_key,
    summary_text,
    title_of,
)
from content_service.content.list_index import index_changes, index_state, with_state
from content_service.content.model import ContentType, FieldDef
from content_service.content.reads import fetch_entries, stored_visible
from content_service.content.requests import (
    DEFAULT_LOCALE,
    LOCALE_PATTERN,
    EntryAction,
    RelationChange,
    WriteRequest,
    is_entry_id,
    is_locale,
)
from content_service.content.schema import get_type, type_key
from content_service.content.views import Entry, entry_view
from content_service.content.visibility import audiences_allow
from content_service.errors import Conflict, Forbidden, NotFound, ValidationFailed
from content_service.identity.principal import Caller, TokenCaller
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
        PutTypeDef,
        TransactWriteItemTypeDef,
    )

MAX_LINK_CHANGES_PER_WRITE = 40
MAX_LINKS_PER_FIELD = 1000
MAX_AUDIENCES = 50
_ATTEMPTS = 5
T = TypeVar("T")


# ---------------------------------------------------------------------------------------------
# Plumbing


class _Refusal:
    """What a failed condition on one transaction item means. By default nothing the writer
    is told: the entry, its type or a target changed, so the write is read, validated and
    tried again."""

    def settle(self, workspace_id: str, me: str, takeovers: dict[str, str]) -> None:
        return None


@dataclass(frozen=True)
class _Taken(_Refusal):
    """An exclusive claim the write needs (a locale of a group, a single type's locale)."""

    message: str

    def settle(self, workspace_id: str, me: str, takeovers: dict[str, str]) -> None:
        raise Conflict(self.message) from None


@dataclass(frozen=True)
class _LinkClaim(_Refusal):
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


@dataclass
class _Transaction:
    """Transaction items, what a failed condition on each means, and how many change links
    and list index items (for a readable refusal over DynamoDB's limit)."""

    items: list[TransactWriteItemTypeDef] = field(default_factory=list)
    refusals: dict[int, _Refusal] = field(default_factory=dict)
    link_items: int = 0
    index_items: int = 0

    def add(self, item: TransactWriteItemTypeDef, refusal: _Refusal | None = None) -> None:
        if refusal is not None:
            self.refusals[len(self.items)] = refusal
        self.items.append(item)

    def add_link(self, item: TransactWriteItemTypeDef, refusal: _Refusal | None = None) -> None:
        self.link_items += 1
        self.add(item, refusal)

    def add_index(self, items: Sequence[TransactWriteItemTypeDef]) -> None:
        self.index_items += len(items)
        self.items.extend(items)


def _content_table() -> str:
    return dynamo.tables().content


def _values(values: Mapping[str, Any]) -> dict[str, AttributeValueTypeDef]:
    return {k: dynamo.encode_value(v) for k, v in values.items()}


def _claim_is_stale(workspace_id: str, claim: _LinkClaim, me: str) -> str | None:
    """The claiming source's id when its claim on the target no longer holds, else None.

    A claim holds while its source exists and still links the target through the field (a
    trashed source still holds: restore brings its links back). A purged source or a removed
    link leaves a stale claim, which the next writer takes over.
    """
    found = dynamo.get_item(
        _content_table(),
        link_claim_key(workspace_id, claim.content_type, claim.relation.key, claim.target_id),
    )
    if found is None:
        return None
    source_id = str(found.get("sourceId", ""))
    if source_id == me:
        return None
    source = fetch_entries(workspace_id, [source_id], (), (claim.relation.key,)).get(source_id)
    if source is None or claim.target_id not in source.links.get(claim.relation.key, ()):
        return source_id
    return None


def _fits(transaction: _Transaction) -> None:
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


def _run(
    workspace_id: str, me: str, build: Callable[[dict[str, str]], tuple[_Transaction, T]]
) -> T:
    """Builds and commits a transaction, again after a lost race; maps refusals to errors."""
    takeovers: dict[str, str] = {}
    for attempt in range(_ATTEMPTS):
        transaction, result = build(takeovers)
        _fits(transaction)
        try:
            dynamo.transact(transaction.items)
            return result
        except dynamo.TransactionCancelled as cancelled:
            if cancelled.conflicted:
                time.sleep(0.01 * 2**attempt)
                continue
            for index, refusal in sorted(transaction.refusals.items()):
                if cancelled.failed(index):
                    refusal.settle(workspace_id, me, takeovers)
    raise Conflict("the entry changed concurrently; try again")


def _type_for_write(caller: Caller, workspace_id: str, name: str) -> ContentType:
    if not caller.can_write:
        raise Forbidden("writing content needs a full token with content:write, or a sign-in")
    content_type = get_type(workspace_id, name) if caller.grants(name) else None
    if content_type is None:
        raise NotFound(f"content type {name!r} not found")
    return content_type


def _not_found(entry_id: str) -> NotFound:
    return NotFound(f"entry {entry_id[:64]!r} not found")


def _read_for_write(
    caller: Caller,
    content_type: ContentType,
    workspace_id: str,
    entry_id: str,
    *,
    full: bool,
) -> StoredEntry:
    """The entry a write acts on, trashed or not, if the writer may see it at all."""
    if not is_entry_id(entry_id):
        raise _not_found(entry_id)
    paths = None if full else dynamo.Projection.of([[a] for a in SYSTEM_ATTRIBUTES])
    item = dynamo.get_item(_content_table(), entry_key(workspace_id, entry_id), paths)
    if item is None or item.get("contentType") != content_type.name:
        raise _not_found(entry_id)
    stored = from_item(workspace_id, item)
    if not audiences_allow(caller, content_type, stored.audiences):
        raise _not_found(entry_id)
    return stored


# ---------------------------------------------------------------------------------------------
# Transaction items


def _type_check(content_type: ContentType) -> TransactWriteItemTypeDef:
    return {
        "ConditionCheck": {
            "TableName": dynamo.tables().schema,
            "Key": type_key(content_type.workspace_id, content_type.name),
            "ConditionExpression": "revision = :revision",
            "ExpressionAttributeValues": _values({":revision": content_type.revision}),
        }
    }


def _type_count(
    content_type: ContentType, delta: int, locale: str | None = None
) -> TransactWriteItemTypeDef:
    """`entryCount` moved by `delta`; a create also records its locale (the list index job
    walks every locale a type has entries in)."""
    condition = "revision = :revision" if delta > 0 else "attribute_exists(pk)"
    values = _values({":delta": delta, ":zero": 0})
    if delta > 0:
        values[":revision"] = dynamo.encode_value(content_type.revision)
    expression = "SET entryCount = if_not_exists(entryCount, :zero) + :delta"
    if locale is not None:
        expression += " ADD locales :locale"
        values[":locale"] = {"SS": [locale]}
    return {
        "Update": {
            "TableName": dynamo.tables().schema,
            "Key": type_key(content_type.workspace_id, content_type.name),
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values,
        }
    }


def _put_entry(
    content_type: ContentType, entry: StoredEntry, previous: StoredEntry | None
) -> TransactWriteItemTypeDef:
    """The whole entry item: new (`previous` None) or replacing `previous` unchanged since."""
    put: PutTypeDef = {
        "TableName": _content_table(),
        "Item": dynamo.encode(_sized(content_type, entry)),
        "ConditionExpression": "attribute_not_exists(pk)",
    }
    if previous is not None:
        put["ConditionExpression"] = "#version = :version AND #deleted = :false"
        put["ExpressionAttributeNames"] = {"#version": "version", "#deleted": "deleted"}
        put["ExpressionAttributeValues"] = _values({":version": previous.version, ":false": False})
    return {"Put": put}


def _put_claim(key: Mapping[str, Any], attributes: Mapping[str, Any]) -> TransactWriteItemTypeDef:
    """A locale or single-type claim item, written only where none exists yet."""
    return {
        "Put": {
            "TableName": _content_table(),
            "Item": {**key, **dynamo.encode(attributes)},
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }


def _delete(key: Mapping[str, Any]) -> TransactWriteItemTypeDef:
    return {"Delete": {"TableName": _content_table(), "Key": key}}


def _exists(key: Mapping[str, Any]) -> TransactWriteItemTypeDef:
    return {
        "ConditionCheck": {
            "TableName": _content_table(),
            "Key": key,
            "ConditionExpression": "attribute_exists(pk)",
        }
    }


def _target_check(workspace_id: str, target_id: str) -> TransactWriteItemTypeDef:
    """A newly linked target still exists and is not trashed."""
    return {
        "ConditionCheck": {
            "TableName": _content_table(),
            "Key": entry_key(workspace_id, target_id),
            "ConditionExpression": "attribute_exists(pk) AND #deleted = :false",
            "ExpressionAttributeNames": {"#deleted": "deleted"},
            "ExpressionAttributeValues": _values({":false": False}),
        }
    }


def _unclaim(
    content_type: ContentType, definition: FieldDef, target_id: str, source_id: str
) -> TransactWriteItemTypeDef:
    """Releases the source's claim on a target (none there, or another source's: nothing)."""
    return {
        "Delete": {
            "TableName": _content_table(),
            "Key": link_claim_key(
                content_type.workspace_id, content_type.name, definition.key, target_id
            ),
            "ConditionExpression": "attribute_not_exists(pk) OR sourceId = :me",
            "ExpressionAttributeValues": _values({":me": source_id}),
        }
    }


def _claim_link(
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
            "TableName": _content_table(),
            "Item": {**key, **dynamo.encode(attributes)},
            "ConditionExpression": condition,
            "ExpressionAttributeValues": _values(values),
        }
    }


def _indexed(
    content_type: ContentType, old: StoredEntry | None, new: StoredEntry
) -> tuple[StoredEntry, list[TransactWriteItemTypeDef]]:
    """`new` recording the list index and count items it should have (what the entry item
    stores), and the transaction elements that take the index there from `old`."""
    state = index_state(content_type, new)
    summary = summary_text(content_type, new)
    rewrite = old is None or summary_text(content_type, old) != summary
    return with_state(new, state), index_changes(old, state, summary, rewrite=rewrite)


def _event(
    kind: EventKind, caller: Caller, entry: StoredEntry, now: float
) -> TransactWriteItemTypeDef:
    return event_put(
        kind,
        workspace_id=entry.workspace_id,
        caller=caller,
        entry_id=entry.id,
        content_type=entry.content_type,
        title=entry.title,
        now=now,
    )


# ---------------------------------------------------------------------------------------------
# Validation of a write body


@dataclass
class _Problems:
    items: list[dict[str, str]] = field(default_factory=list)

    def add(self, location: str, problem: str) -> None:
        self.items.append({"location": location, "problem": problem})

    def has(self, location: str) -> bool:
        return any(p["location"] == location for p in self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise ValidationFailed("the entry is invalid", details=self.items)


def _apply_values(
    content_type: ContentType,
    current: Mapping[str, Any],
    patch: Mapping[str, Any],
    problems: _Problems,
) -> dict[str, Any]:
    """`current` (by key) with `patch` (by name) applied: omitted unchanged, None clears."""
    known = {f.key for f in content_type.value_fields}
    result = {k: v for k, v in current.items() if k in known}
    for name, raw in patch.items():
        definition = content_type.field(name) if isinstance(name, str) else None
        where = f"values.{str(name)[:64]}"
        if definition is None:
            problems.add(
                where, f"content type {content_type.name!r} has no field {str(name)[:64]!r}"
            )
        elif definition.is_relation:
            problems.add(where, "is a relation: change it under relations with link/unlink")
        elif raw is None:
            result.pop(definition.key, None)
        else:
            try:
                result[definition.key] = value_rules.to_storage(definition, raw)
            except value_rules.InvalidValue as error:
                problems.add(where, str(error))
    return result


@dataclass
class _LinkPlan:
    links: dict[str, tuple[str, ...]]
    linked: list[tuple[FieldDef, str]]
    unlinked: list[tuple[FieldDef, str]]


def _plan_links(
    caller: Caller,
    content_type: ContentType,
    source_id: str,
    current: Mapping[str, tuple[str, ...]],
    changes: Mapping[str, RelationChange],
    problems: _Problems,
) -> _LinkPlan:
    known = {f.key for f in content_type.relation_fields}
    links = {k: v for k, v in current.items() if k in known}
    linked: list[tuple[FieldDef, str]] = []
    unlinked: list[tuple[FieldDef, str]] = []
    for name, change in changes.items():
        where = f"relations.{str(name)[:64]}"
        definition = content_type.field(name) if isinstance(name, str) else None
        if (
            definition is None
            or not definition.is_relation
            or not caller.grants(definition.target or "")
        ):
            problems.add(where, f"content type {content_type.name!r} has no relation field")
            continue
        bad = [i for i in (*change.link, *change.unlink) if not is_entry_id(i)]
        if bad:
            problems.add(where, "link and unlink take entry ids (lower-case UUIDs)")
            continue
        to_link = list(dict.fromkeys(change.link))
        to_unlink = list(dict.fromkeys(change.unlink))
        if set(to_link) & set(to_unlink):
            problems.add(where, "an id cannot be linked and unlinked in one write")
            continue
        if definition.to_one and len(to_link) > 1:
            problems.add(f"{where}.link", f"a {definition.cardinality} field holds one target")
            continue
        ids = list(links.get(definition.key, ()))
        for target_id in to_unlink:
            if target_id in ids:
                ids.remove(target_id)
                unlinked.append((definition, target_id))
        for target_id in to_link:
            if target_id in ids:
                continue
            if definition.to_one:
                unlinked.extend((definition, old) for old in ids)
                ids = []
            ids.append(target_id)
            linked.append((definition, target_id))
        if len(ids) > MAX_LINKS_PER_FIELD:
            problems.add(where, f"a relation field holds at most {MAX_LINKS_PER_FIELD} links")
        links[definition.key] = tuple(ids)
    if len(linked) + len(unlinked) > MAX_LINK_CHANGES_PER_WRITE:
        problems.add(
            "relations",
            f"at most {MAX_LINK_CHANGES_PER_WRITE} links and unlinks in one write "
            f"(this one makes {len(linked) + len(unlinked)}); split it",
        )
    return _LinkPlan(links=links, linked=linked, unlinked=unlinked)


def _check_targets(
    caller: Caller,
    workspace_id: str,
    source_id: str,
    source_type: ContentType,
    linked: Sequence[tuple[FieldDef, str]],
    problems: _Problems,
) -> list[str]:
    """Newly linked targets must exist here, be of the field's target type and be visible to
    the writer. Returns the ids the transaction must check again (all but the source itself)."""
    others = {target_id for _, target_id in linked if target_id != source_id}
    fetched = fetch_entries(workspace_id, others, (), ())
    types: dict[str, ContentType | None] = {source_type.name: source_type}
    for definition, target_id in linked:
        target_name = definition.target or ""
        if target_name not in types:
            types[target_name] = get_type(workspace_id, target_name)
        target_type = types[target_name]
        if target_id == source_id:
            ok = target_type is not None and target_type.name == source_type.name
        else:
            stored = fetched.get(target_id)
            ok = (
                stored is not None
                and target_type is not None
                and stored_visible(caller, target_type, stored)
            )
        if not ok:
            problems.add(
                f"relations.{definition.name}.link",
                f"no entry {target_id} of content type {target_name!r}",
            )
    return sorted(others)


def _check_required(
    content_type: ContentType,
    values: Mapping[str, Any],
    links: Mapping[str, tuple[str, ...]],
    problems: _Problems,
) -> None:
    for definition in content_type.fields:
        if not definition.required:
            continue
        if definition.is_relation:
            if not links.get(definition.key):
                problems.add(f"relations.{definition.name}", "is required: link a target")
        elif values.get(definition.key) is None and not problems.has(f"values.{definition.name}"):
            problems.add(f"values.{definition.name}", "is required")


def _check_audiences(
    caller: Caller,
    content_type: ContentType,
    audiences: tuple[str, ...] | None,
    problems: _Problems,
) -> tuple[str, ...] | None:
    if audiences is None:
        return None
    if not content_type.audience_gated:
        if audiences:
            problems.add("audiences", f"content type {content_type.name!r} is not audience-gated")
        return ()
    cleaned = tuple(sorted({a.strip() for a in audiences if isinstance(a, str)}))
    if len(cleaned) > MAX_AUDIENCES or any(
        not a or len(a) > 64 or not value_rules.is_unicode(a) for a in cleaned
    ):
        problems.add("audiences", f"at most {MAX_AUDIENCES} names of 1 to 64 characters")
        return None
    if isinstance(caller, TokenCaller) and caller.audiences.isdisjoint(cleaned):
        problems.add(
            "audiences",
            "must include one of this token's audiences, or the entry would be invisible to it",
        )
    return cleaned


def _link_items(
    transaction: _Transaction,
    content_type: ContentType,
    source_id: str,
    plan: _LinkPlan,
    target_checks: Sequence[str],
    takeovers: Mapping[str, str],
) -> None:
    for target_id in target_checks:
        transaction.add_link(_target_check(content_type.workspace_id, target_id))
    for definition, target_id in plan.unlinked:
        if definition.exclusive:
            transaction.add_link(_unclaim(content_type, definition, target_id, source_id))
    for definition, target_id in plan.linked:
        if definition.exclusive:
            stale = takeovers.get(target_id + "#" + definition.key)
            transaction.add_link(
                _claim_link(content_type, definition, target_id, source_id, stale),
                _LinkClaim(content_type.name, definition, target_id),
            )


def _sized(content_type: ContentType, entry: StoredEntry) -> dict[str, Any]:
    item = entry_item(content_type, entry)
    if item_size(item) > MAX_ITEM_BYTES:
        raise ValidationFailed(
            f"the entry would exceed DynamoDB's item size limit ({MAX_ITEM_BYTES // 1024} KB "
            "including the summary); shorten the text fields"
        )
    return item


# ---------------------------------------------------------------------------------------------
# Service functions


@dataclass(frozen=True)
class _NewEntry:
    """A create that passed validation: the entry and what its transaction must hold."""

    content_type: ContentType
    entry: StoredEntry
    plan: _LinkPlan
    target_checks: list[str]
    group_member: dict[str, Any] | None
    now: float


def _new_locale(content_type: ContentType, requested: str | None, problems: _Problems) -> str:
    locale = DEFAULT_LOCALE if requested is None else requested
    if not is_locale(locale):
        problems.add("locale", f"must match {LOCALE_PATTERN}")
    elif not content_type.localized and locale != DEFAULT_LOCALE:
        problems.add("locale", f"content type {content_type.name!r} is not localized")
    return locale


def _join_group(
    request: WriteRequest, content_type: ContentType, locale: str, problems: _Problems
) -> tuple[str | None, dict[str, Any] | None]:
    """The locale group a new entry joins (None: a group of its own) and a claim item of it."""
    if request.locale_group_id is None:
        return None, None
    member = _group_member(request.workspace_id, content_type, request.locale_group_id, locale)
    if not content_type.localized:
        problems.add("localeGroupId", "only entries of a localized type have translations")
    elif member is None:
        problems.add("localeGroupId", f"no entry of content type {content_type.name!r} has it")
    else:
        return request.locale_group_id, member
    return None, None


def _validate_create(request: WriteRequest, entry_id: str, clock: Clock | None) -> _NewEntry:
    caller, workspace_id = request.caller, request.workspace_id
    content_type = _type_for_write(caller, workspace_id, request.content_type)
    now = (clock or SystemClock()).now()
    problems = _Problems()
    locale = _new_locale(content_type, request.locale, problems)
    group_id, group_member = _join_group(request, content_type, locale, problems)
    audiences = _check_audiences(caller, content_type, request.audiences or (), problems)
    values = _apply_values(content_type, {}, request.values, problems)
    plan = _plan_links(caller, content_type, entry_id, {}, request.relations, problems)
    if plan.unlinked:
        problems.add("relations", "a new entry has nothing to unlink")
    _check_required(content_type, values, plan.links, problems)
    problems.raise_if_any()
    checks = _check_targets(caller, workspace_id, entry_id, content_type, plan.linked, problems)
    problems.raise_if_any()
    stamp = iso_utc(now)
    entry = StoredEntry(
        id=entry_id,
        workspace_id=workspace_id,
        content_type=content_type.name,
        status="draft",
        locale=locale,
        locale_group_id=group_id or entry_id,
        created_at=stamp,
        updated_at=stamp,
        published_at=None,
        audiences=audiences or (),
        deleted=False,
        version=1,
        title=title_of(content_type, values),
        values=values,
        links=plan.links,
    )
    return _NewEntry(content_type, entry, plan, checks, group_member, now)


def _create_transaction(
    caller: Caller, new: _NewEntry, takeovers: Mapping[str, str]
) -> tuple[_Transaction, StoredEntry]:
    """The entry, its type's count, its locale claims, its links, its index and its event."""
    content_type = new.content_type
    entry, index = _indexed(content_type, None, new.entry)
    workspace_id, locale = entry.workspace_id, entry.locale
    transaction = _Transaction()
    transaction.add(_put_entry(content_type, entry, None))
    transaction.add(_type_count(content_type, +1, locale))
    transaction.add(
        _put_claim(
            group_claim_key(workspace_id, entry.locale_group_id, locale),
            {"entity": "locale_claim", "entryId": entry.id, "contentType": content_type.name},
        ),
        _Taken(f"the locale group already has an entry in locale {locale!r}"),
    )
    member = new.group_member
    if member is not None and member["sk"]["S"] != f"LOCALE#{locale}":
        transaction.add(_exists({"pk": member["pk"], "sk": member["sk"]}))
    if content_type.is_single:
        transaction.add(
            _put_claim(
                single_claim_key(workspace_id, content_type.name, locale),
                {"entity": "single_claim", "entryId": entry.id},
            ),
            _Taken(f"this single type already has its entry for locale {locale!r}"),
        )
    _link_items(transaction, content_type, entry.id, new.plan, new.target_checks, takeovers)
    transaction.add_index(index)
    transaction.add(_event("entry.created", caller, entry, new.now))
    return transaction, entry


def create_entry(request: WriteRequest, clock: Clock | None = None) -> Entry:
    """POST: always a draft. Emits `entry.created`."""
    entry_id = str(uuid.uuid4())

    def build(takeovers: dict[str, str]) -> tuple[_Transaction, Entry]:
        new = _validate_create(request, entry_id, clock)
        transaction, entry = _create_transaction(request.caller, new, takeovers)
        return transaction, entry_view(new.content_type, entry)

    return _run(request.workspace_id, entry_id, build)


def _group_member(
    workspace_id: str, content_type: ContentType, group_id: str, locale: str
) -> dict[str, Any] | None:
    """A claim item of the locale group (raw keys), if the group exists for this type; one of
    another locale than `locale` when there is one (the transaction checks that it still
    exists, and must not name the new claim's own item twice)."""
    if not is_entry_id(group_id):
        return None
    for page in dynamo.query_pages(
        {
            "TableName": _content_table(),
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": f"GROUP#{workspace_id}#{group_id}"}},
            "ConsistentRead": True,
            "Limit": 10,
        }
    ):
        members = [
            {"pk": raw["pk"], "sk": raw["sk"]}
            for raw in page
            if raw.get("contentType", {}).get("S") == content_type.name
        ]
        others = [m for m in members if m["sk"]["S"] != f"LOCALE#{locale}"]
        chosen = others or members
        return chosen[0] if chosen else None
    return None


def update_entry(request: WriteRequest, clock: Clock | None = None) -> Entry:
    """PATCH: omitted fields unchanged, null clears; a published entry stays published.
    Emits `entry.updated`."""
    caller, workspace_id = request.caller, request.workspace_id
    entry_id = request.id or ""

    def build(takeovers: dict[str, str]) -> tuple[_Transaction, Entry]:
        content_type = _type_for_write(caller, workspace_id, request.content_type)
        current = _read_for_write(caller, content_type, workspace_id, entry_id, full=True)
        if current.deleted:
            raise _not_found(entry_id)
        now = (clock or SystemClock()).now()
        problems = _Problems()
        if request.locale is not None and request.locale != current.locale:
            problems.add("locale", "the locale of an entry cannot change")
        if (
            request.locale_group_id is not None
            and request.locale_group_id != current.locale_group_id
        ):
            problems.add("localeGroupId", "the locale group of an entry cannot change")
        audiences = _check_audiences(caller, content_type, request.audiences, problems)
        values = _apply_values(content_type, current.values, request.values, problems)
        plan = _plan_links(
            caller, content_type, current.id, current.links, request.relations, problems
        )
        _check_required(content_type, values, plan.links, problems)
        problems.raise_if_any()
        checks = _check_targets(
            caller, workspace_id, current.id, content_type, plan.linked, problems
        )
        problems.raise_if_any()
        entry = current.with_changes(
            values=values,
            links=plan.links,
            audiences=current.audiences if audiences is None else audiences,
            updated_at=iso_utc(now),
            version=current.version + 1,
            title=title_of(content_type, values),
        )
        entry, index = _indexed(content_type, current, entry)
        transaction = _Transaction()
        transaction.add(_put_entry(content_type, entry, current))
        transaction.add(_type_check(content_type))
        _link_items(transaction, content_type, current.id, plan, checks, takeovers)
        transaction.add_index(index)
        transaction.add(_event("entry.updated", caller, entry, now))
        return transaction, entry_view(content_type, entry)

    return _run(workspace_id, entry_id, build)


def _state_change(
    request: EntryAction,
    kind: EventKind,
    clock: Clock | None,
    change: Callable[
        [ContentType, StoredEntry, str], tuple[StoredEntry, dict[str, Any], list[str]]
    ],
    *,
    check_type: bool = False,
) -> Entry:
    """A transition that touches only system attributes: one UpdateItem, the list index and
    count changes, and the event.

    `change(type, current, now)` checks the current state (raising 404/409) and returns the
    new state, the attributes to SET and the attributes to REMOVE; the summary and the index
    are rebuilt from the new state. The entry is read whole first (its values feed the summary
    and the answer). `check_type` adds a ConditionCheck of the type's revision, for a
    transition that brings an entry the list index job cannot have seen (restore).
    """
    caller, workspace_id = request.caller, request.workspace_id

    def build(_: dict[str, str]) -> tuple[_Transaction, Entry]:
        content_type = _type_for_write(caller, workspace_id, request.content_type)
        current = _read_for_write(caller, content_type, workspace_id, request.id, full=True)
        now = (clock or SystemClock()).now()
        entry, sets, removes = change(content_type, current, iso_utc(now))
        entry, index_items = _indexed(content_type, current, entry)
        sets = {
            **sets,
            "summary": summary_text(content_type, entry),
            "listKeys": [list(k) for k in entry.list_keys],
            "listCounts": list(entry.list_counts),
        }
        names: dict[str, str] = {"#version": "version", "#deleted": "deleted"}
        values: dict[str, Any] = {":version": current.version, ":one": 1}
        assignments = ["#version = #version + :one"]

        def alias_path(path: str) -> str:
            aliases = []
            for segment in path.split("."):
                alias = f"#n{len(names)}"
                names[alias] = segment
                aliases.append(alias)
            return ".".join(aliases)

        for index, (path, value) in enumerate(sets.items()):
            values[f":v{index}"] = value
            assignments.append(f"{alias_path(path)} = :v{index}")
        expression = "SET " + ", ".join(assignments)
        if removes:
            expression += " REMOVE " + ", ".join(alias_path(path) for path in removes)
        values[":deleted"] = current.deleted
        transaction = _Transaction()
        transaction.add(
            {
                "Update": {
                    "TableName": _content_table(),
                    "Key": entry_key(workspace_id, current.id),
                    "UpdateExpression": expression,
                    "ConditionExpression": "#version = :version AND #deleted = :deleted",
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": _values(values),
                }
            }
        )
        if check_type:
            transaction.add(_type_check(content_type))
        transaction.add_index(index_items)
        transaction.add(_event(kind, caller, entry, now))
        return transaction, entry_view(content_type, entry)

    return _run(workspace_id, request.id, build)


def publish_entry(request: EntryAction, clock: Clock | None = None) -> Entry:
    """draft -> published (409 if already published). Emits `entry.published`."""

    def change(
        _: ContentType, current: StoredEntry, now: str
    ) -> tuple[StoredEntry, dict[str, Any], list[str]]:
        if current.deleted:
            raise _not_found(current.id)
        if current.status == "published":
            raise Conflict("the entry is already published")
        sets = {
            "status": "published",
            "publishedAt": now,
            "updatedAt": now,
        }
        return (
            current.with_changes(status="published", published_at=now, updated_at=now),
            sets,
            [],
        )

    return _state_change(request, "entry.published", clock, change)


def unpublish_entry(request: EntryAction, clock: Clock | None = None) -> Entry:
    """published -> draft (409 if a draft). Emits `entry.unpublished`."""

    def change(
        _: ContentType, current: StoredEntry, now: str
    ) -> tuple[StoredEntry, dict[str, Any], list[str]]:
        if current.deleted:
            raise _not_found(current.id)
        if current.status != "published":
            raise Conflict("the entry is not published")
        sets = {
            "status": "draft",
            "publishedAt": None,
            "updatedAt": now,
        }
        return (
            current.with_changes(status="draft", published_at=None, updated_at=now),
            sets,
            [],
        )

    return _state_change(request, "entry.unpublished", clock, change)


def delete_entry(request: EntryAction, clock: Clock | None = None) -> None:
    """Moves the entry to the trash (409 if already there). Emits `entry.deleted`."""

    def change(
        _: ContentType, current: StoredEntry, now: str
    ) -> tuple[StoredEntry, dict[str, Any], list[str]]:
        if current.deleted:
            raise Conflict("the entry is already in the trash")
        return current.with_changes(deleted=True), {"deleted": True, "deletedAt": now}, []

    _state_change(request, "entry.deleted", clock, change)


def restore_entry(request: EntryAction, clock: Clock | None = None) -> Entry:
    """Brings a trashed entry back with the status it had (409 if not in the trash).
    Emits `entry.restored`."""

    def change(
        _: ContentType, current: StoredEntry, now: str
    ) -> tuple[StoredEntry, dict[str, Any], list[str]]:
        if not current.deleted:
            raise Conflict("the entry is not in the trash")
        return current.with_changes(deleted=False), {"deleted": False}, ["deletedAt"]

    return _state_change(request, "entry.restored", clock, change, check_type=True)


def purge_entry(request: EntryAction, clock: Clock | None = None) -> None:
    """Removes a trashed entry for good (409 if not in the trash). Emits `entry.purged` with
    the title snapshot. Its locale and single-type claims go in the same transaction, and so do
    its one-to-one/one-to-many link claims when they fit; any left over are stale (their source
    is gone) and the next writer to link those targets takes them over."""
    caller, workspace_id = request.caller, request.workspace_id

    def build(_: dict[str, str]) -> tuple[_Transaction, None]:
        content_type = _type_for_write(caller, workspace_id, request.content_type)
        current = _read_for_write(caller, content_type, workspace_id, request.id, full=True)
        if not current.deleted:
            raise Conflict("only an entry in the trash can be purged; delete it first")
        now = (clock or SystemClock()).now()
        transaction = _Transaction()
        transaction.add(
            {
                "Delete": {
                    "TableName": _content_table(),
                    "Key": entry_key(workspace_id, current.id),
                    "ConditionExpression": "#version = :version AND #deleted = :true",
                    "ExpressionAttributeNames": {"#version": "version", "#deleted": "deleted"},
                    "ExpressionAttributeValues": _values(
                        {":version": current.version, ":true": True}
                    ),
                }
            }
        )
        transaction.add(_type_count(content_type, -1))
        transaction.add(
            _delete(group_claim_key(workspace_id, current.locale_group_id, current.locale))
        )
        if content_type.is_single:
            transaction.add(
                _delete(single_claim_key(workspace_id, content_type.name, current.locale))
            )
        transaction.add_index(_indexed(content_type, current, current)[1])
        transaction.add(_event("entry.purged", caller, current, now))
        for definition in content_type.relation_fields:
            if not definition.exclusive:
                continue
            for target_id in current.links.get(definition.key, ()):
                if len(transaction.items) >= dynamo.TRANSACT_LIMIT:
                    break
                transaction.add_link(_unclaim(content_type, definition, target_id, current.id))
        return transaction, None

    _run(workspace_id, request.id, build)
