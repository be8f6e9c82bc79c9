"""Writing an entry's draft: create, update (PATCH), and restoring a published version into it.

A create is always a draft. An update writes the latest version only: an entry with a
published version stays live as it was published and becomes `changed` (or `published`
again when the draft ends up equal to the live version). Each is one transaction with one
event (`content.writes.write_transaction`); the state changes that move the published version
(publish, unpublish, discard, trash...) are `content.writes.transitions`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from content_service.audit.entry_changes import entry_changes
from content_service.clock import Clock, SystemClock, iso_utc
from content_service.content.entries import (
    Entry,
    Status,
    StoredEntry,
    content_digest,
    entry_view,
    fetch_entries,
    group_claim_key,
    is_entry_id,
    single_claim_key,
    stored_visible,
    title_of,
    written,
)
from content_service.content.relations import held
from content_service.content.requests import (
    DEFAULT_LOCALE,
    LOCALE_PATTERN,
    RelationChange,
    VersionRequest,
    WriteRequest,
    is_locale,
)
from content_service.content.schema import ContentType, get_type
from content_service.content.store import store
from content_service.content.writes import role_guard
from content_service.content.writes.versions import read_snapshot
from content_service.content.writes.write_body import (
    LinkPlan,
    Problems,
    apply_values,
    check_audiences,
    check_required,
    check_targets,
    link_items,
    plan_links,
)
from content_service.content.writes.write_transaction import (
    Taken,
    Transaction,
    Versions,
    add_refs,
    audit,
    entry_for_write,
    entry_target,
    exists,
    indexed,
    not_found,
    put_claim,
    put_entry,
    record,
    run,
    type_check,
    type_count,
    type_for_write,
    write_versions,
    written_by,
)
from content_service.errors import NotFound, VersionConflict
from content_service.identity.principal import Caller
from content_service.identity.roles import CREATE, MANAGE_VERSIONS, UPDATE
from content_service.storage import dynamo


@dataclass(frozen=True)
class _NewEntry:
    """A create that passed validation: the entry and what its transaction must hold."""

    content_type: ContentType
    entry: StoredEntry
    plan: LinkPlan
    target_checks: list[str]
    group_member: dict[str, Any] | None
    now: float


def _new_locale(content_type: ContentType, requested: str | None, problems: Problems) -> str:
    locale = DEFAULT_LOCALE if requested is None else requested
    if not is_locale(locale):
        problems.add("locale", f"must match {LOCALE_PATTERN}")
    elif not content_type.localized and locale != DEFAULT_LOCALE:
        problems.add("locale", f"content type {content_type.name!r} is not localized")
    return locale


def _join_group(
    request: WriteRequest, content_type: ContentType, locale: str, problems: Problems
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
    content_type = type_for_write(caller, workspace_id, request.content_type)
    now = (clock or SystemClock()).now()
    problems = Problems()
    if request.expected_version is not None:
        problems.add("version", "a new entry has no version to compare with")
    locale = _new_locale(content_type, request.locale, problems)
    role_guard.check(
        caller,
        workspace_id,
        CREATE,
        entry_target(content_type.name, entry_id),
        locale=locale,
        changed_fields=_named(request),
    )
    group_id, group_member = _join_group(request, content_type, locale, problems)
    audiences = check_audiences(caller, content_type, request.audiences or (), problems)
    values = apply_values(content_type, {}, request.values, problems)
    plan = plan_links(caller, content_type, entry_id, {}, request.relations, problems)
    if plan.unlinked:
        problems.add("relations", "a new entry has nothing to unlink")
    check_required(content_type, values, plan.links, problems)
    problems.raise_if_any()
    checks = check_targets(caller, workspace_id, entry_id, content_type, plan.linked, problems)
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
        updated_by=written_by(caller),
        created_by=role_guard.creator(caller),
    )
    return _NewEntry(content_type, entry, plan, checks, group_member, now)


def _named(request: WriteRequest) -> set[str]:
    """The fields a create sets (a role limited to some fields may set only those)."""
    named = {name for name, value in request.values.items() if value is not None}
    named |= {name for name, change in request.relations.items() if change.link}
    return named | ({"audiences"} if request.audiences else set())


def _create_transaction(
    caller: Caller, new: _NewEntry, takeovers: Mapping[str, str]
) -> tuple[Transaction, StoredEntry]:
    """The entry, its type's count, its locale claims, its links, its index and its event."""
    content_type = new.content_type
    entry, index = indexed(content_type, None, Versions(new.entry, None))
    workspace_id, locale = entry.workspace_id, entry.locale
    transaction = Transaction()
    transaction.add(put_entry(content_type, entry, None))
    transaction.add(type_count(content_type, +1, locale))
    transaction.add(
        put_claim(
            group_claim_key(workspace_id, entry.locale_group_id, locale),
            {"entity": "locale_claim", "entryId": entry.id, "contentType": content_type.name},
        ),
        Taken(f"the locale group already has an entry in locale {locale!r}"),
    )
    member = new.group_member
    if member is not None and member["sk"]["S"] != f"LOCALE#{locale}":
        transaction.add(exists({"pk": member["pk"], "sk": member["sk"]}))
    if content_type.is_single:
        transaction.add(
            put_claim(
                single_claim_key(workspace_id, content_type.name, locale),
                {"entity": "single_claim", "entryId": entry.id},
            ),
            Taken(f"this single type already has its entry for locale {locale!r}"),
        )
    link_items(transaction, content_type, entry.id, new.plan, new.target_checks, takeovers)
    add_refs(transaction, entry, set(), held(entry, None))
    transaction.add_index(index)
    record(transaction, "entry.created", caller, entry, new.now, published=False)
    transaction.add(audit("entry.created", caller, content_type, None, entry, new.now))
    return transaction, entry


def create_entry(
    request: WriteRequest, clock: Clock | None = None, *, entry_id: str | None = None
) -> Entry:
    """POST: always a draft. Emits `entry.created`. `entry_id` is given only by a create that
    must happen once per cause (an asset's upload, `assets.service`): a second create with it
    is refused by the entry's own condition."""
    entry_id = entry_id or str(uuid.uuid4())

    def build(takeovers: dict[str, str]) -> tuple[Transaction, Entry]:
        new = _validate_create(request, entry_id, clock)
        transaction, entry = _create_transaction(request.caller, new, takeovers)
        return transaction, entry_view(new.content_type, entry)

    return written(request.caller, run(request.workspace_id, entry_id, build))


def _group_member(
    workspace_id: str, content_type: ContentType, group_id: str, locale: str
) -> dict[str, Any] | None:
    """A claim item of the locale group (raw keys), if the group exists for this type; one of
    another locale than `locale` when there is one (the transaction checks that it still
    exists, and must not name the new claim's own item twice)."""
    if not is_entry_id(group_id):
        return None
    for page in store().partition("content", f"GROUP#{workspace_id}#{group_id}", limit=10):
        members = [
            dynamo.key(item["pk"], item["sk"])
            for item in page
            if item.get("contentType") == content_type.name
        ]
        others = [m for m in members if m["sk"]["S"] != f"LOCALE#{locale}"]
        chosen = others or members
        return chosen[0] if chosen else None
    return None


def draft_status(current: StoredEntry, draft: StoredEntry) -> Status:
    """A new draft's state: `draft` without a published version, else `published` when it
    equals the live version and `changed` when it does not."""
    if not current.is_live:
        return "draft"
    return "published" if content_digest(draft) == current.published_hash else "changed"


@dataclass(frozen=True)
class _DraftChange:
    """What a draft write asks for, by storage key: the values and links to end with, the link
    plan that gets there, and the audiences (None: unchanged)."""

    values: dict[str, Any]
    plan: LinkPlan
    audiences: tuple[str, ...] | None


def _check_placement(request: WriteRequest, current: StoredEntry, problems: Problems) -> None:
    if request.locale is not None and request.locale != current.locale:
        problems.add("locale", "the locale of an entry cannot change")
    if request.locale_group_id is not None and request.locale_group_id != current.locale_group_id:
        problems.add("localeGroupId", "the locale group of an entry cannot change")


_Change = Callable[[ContentType, Versions, Problems], _DraftChange]


def _check_draft(
    caller: Caller,
    action: str,
    content_type: ContentType,
    current: StoredEntry,
    wanted: _DraftChange,
) -> None:
    """The role check of a draft write, with the names of the fields whose values change."""
    after = current.with_changes(
        values=wanted.values,
        links=wanted.plan.links,
        audiences=current.audiences if wanted.audiences is None else wanted.audiences,
    )
    changed = entry_changes(content_type, current, after)
    role_guard.check(
        caller,
        content_type.workspace_id,
        action,
        entry_target(content_type.name, current.id),
        entry=current,
        changed_fields=changed["fields"] if changed else (),
    )


def _write_draft(
    request: WriteRequest, clock: Clock | None, change: _Change, action: str = UPDATE
) -> Entry:
    """The shared path of an update and a version restore: read the entry, let `change(type,
    versions, problems)` say what the draft becomes, check the caller's role (`action`, the
    fields that change), validate, and write the draft (the published version, its items and
    its index untouched). Emits `entry.updated`."""
    caller, workspace_id = request.caller, request.workspace_id
    entry_id = request.id or ""

    def build(takeovers: dict[str, str]) -> tuple[Transaction, Entry]:
        content_type, versions = entry_for_write(
            caller, workspace_id, request.content_type, entry_id
        )
        current = _editable(request, versions)
        now = (clock or SystemClock()).now()
        problems = Problems()
        _check_placement(request, current, problems)
        wanted = change(content_type, versions, problems)
        _check_draft(caller, action, content_type, current, wanted)
        check_required(content_type, wanted.values, wanted.plan.links, problems)
        problems.raise_if_any()
        checks = check_targets(
            caller, workspace_id, current.id, content_type, wanted.plan.linked, problems
        )
        problems.raise_if_any()
        draft = current.with_changes(
            values=wanted.values,
            links=wanted.plan.links,
            audiences=current.audiences if wanted.audiences is None else wanted.audiences,
            updated_at=iso_utc(now),
            version=current.version + 1,
            title=title_of(content_type, wanted.values),
            updated_by=written_by(caller),
        )
        draft = draft.with_changes(status=draft_status(current, draft))
        transaction = Transaction()
        stored = write_versions(
            transaction,
            content_type,
            versions,
            Versions(draft, versions.published),
            published_changed=False,
        )
        transaction.add(type_check(content_type))
        published_links = versions.published.links if versions.published else None
        link_items(
            transaction, content_type, current.id, wanted.plan, checks, takeovers, published_links
        )
        record(transaction, "entry.updated", caller, stored, now, published=False)
        transaction.add(audit("entry.updated", caller, content_type, current, stored, now))
        return transaction, entry_view(content_type, stored)

    return written(caller, run(workspace_id, entry_id, build))


def _editable(request: WriteRequest, versions: Versions) -> StoredEntry:
    """The latest version a draft write starts from: not trashed, and at the version the
    request names, if it names one."""
    current = versions.latest
    if current.deleted:
        raise not_found(current.id)
    if request.expected_version is not None and request.expected_version != current.version:
        raise VersionConflict(
            f"the entry was changed by someone else: you edited version "
            f"{request.expected_version}, it is at version {current.version} now; reload "
            "it to see both",
            details=[{"location": "version", "problem": f"is {current.version} now"}],
        )
    return current


def _unchanged(request: WriteRequest) -> Entry:
    """An update that names nothing to change: the entry as it stands, with no write, no new
    version and no event (the same checks as a write: type, visibility, trash, version)."""
    content_type, versions = entry_for_write(
        request.caller, request.workspace_id, request.content_type, request.id or ""
    )
    current = _editable(request, versions)
    target = entry_target(content_type.name, current.id)
    role_guard.check(request.caller, request.workspace_id, UPDATE, target, entry=current)
    return written(request.caller, entry_view(content_type, current))


def update_entry(request: WriteRequest, clock: Clock | None = None) -> Entry:
    """PATCH: omitted fields unchanged, null clears. Writes the draft only: a live entry
    stays live as published and turns `changed`. Emits `entry.updated`. A PATCH naming
    nothing to change writes nothing."""
    if request.changes_nothing:
        return _unchanged(request)
    caller = request.caller

    def change(content_type: ContentType, versions: Versions, problems: Problems) -> _DraftChange:
        current = versions.latest
        audiences = check_audiences(caller, content_type, request.audiences, problems)
        values = apply_values(content_type, current.values, request.values, problems)
        plan = plan_links(
            caller, content_type, current.id, current.links, request.relations, problems
        )
        return _DraftChange(values, plan, audiences)

    return _write_draft(request, clock, change)


def _restorable_links(
    caller: Caller, content_type: ContentType, snapshot: StoredEntry
) -> dict[str, tuple[str, ...]]:
    """The snapshot's links to targets that still exist, are not trashed and are visible to
    the writer (a link to a target gone since is dropped, as reads skip it)."""
    ids = {i for links in snapshot.links.values() for i in links if i != snapshot.id}
    fetched = fetch_entries(content_type.workspace_id, ids, (), ())
    kept: dict[str, tuple[str, ...]] = {}
    for definition in content_type.relation_fields:
        target_type = _target_type(content_type, definition.target or "")
        kept[definition.key] = tuple(
            i
            for i in snapshot.links.get(definition.key, ())
            if i == snapshot.id
            or (
                target_type is not None
                and i in fetched
                and stored_visible(caller, target_type, fetched[i])
            )
        )
    return kept


def _target_type(source: ContentType, name: str) -> ContentType | None:
    return source if name == source.name else get_type(source.workspace_id, name)


def restore_version(request: VersionRequest, clock: Clock | None = None) -> Entry:
    """POST /{id}/versions/{n}/restore: copies snapshot `n` (values, links, audiences) into
    the draft, as an update that writes every field would. Emits `entry.updated`."""
    caller = request.caller
    write = WriteRequest(caller, request.workspace_id, request.content_type, id=request.id)

    def change(content_type: ContentType, versions: Versions, problems: Problems) -> _DraftChange:
        snapshot = read_snapshot(request.workspace_id, request.id, request.number)
        if snapshot is None:
            raise not_found_version(request)
        current = versions.latest
        wanted_links = _restorable_links(caller, content_type, snapshot)
        changes = {
            definition.name: _link_change(
                current.links.get(definition.key, ()), wanted_links.get(definition.key, ())
            )
            for definition in content_type.relation_fields
        }
        plan = plan_links(
            caller,
            content_type,
            current.id,
            current.links,
            {name: c for name, c in changes.items() if c.link or c.unlink},
            problems,
        )
        plan = replace(plan, links={**plan.links, **{k: v for k, v in wanted_links.items() if v}})
        known = {f.key for f in content_type.value_fields}
        values = {k: v for k, v in snapshot.values.items() if k in known}
        audiences = snapshot.audiences if content_type.audience_gated else None
        return _DraftChange(values, plan, audiences)

    return _write_draft(write, clock, change, MANAGE_VERSIONS)


def _link_change(current: tuple[str, ...], wanted: tuple[str, ...]) -> RelationChange:
    return RelationChange(
        link=tuple(i for i in wanted if i not in current),
        unlink=tuple(i for i in current if i not in wanted),
    )


def not_found_version(request: VersionRequest) -> NotFound:
    return NotFound(
        f"entry {request.id[:64]!r} has no version {request.number} (the last "
        "versions are kept; see GET .../versions)"
    )
