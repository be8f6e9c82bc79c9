"""Validating a write body against its content type: values, links, required fields, audiences.

Each check adds what is wrong to one `Problems` list, so a refused write names every field at
fault (422 with `details: [{location, problem}]`); nothing here writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from content_service.content import values as value_rules
from content_service.content.entries import StoredEntry, fetch_entries, is_entry_id, stored_visible
from content_service.content.requests import RelationChange
from content_service.content.schema import (
    ASSET_CONTENT_TYPE_KEY,
    ASSET_STATE_KEY,
    ContentType,
    FieldDef,
    get_type,
)
from content_service.content.writes.write_transaction import (
    LinkClaim,
    Transaction,
    claim_link,
    target_check,
    unclaim,
)
from content_service.errors import ValidationFailed
from content_service.identity.principal import Caller, TokenCaller
from content_service.strict_json import is_unicode

MAX_LINK_CHANGES_PER_WRITE = 25
MAX_LINKS_PER_FIELD = 1000
MAX_AUDIENCES = 50


@dataclass
class Problems:
    items: list[dict[str, str]] = field(default_factory=list)

    def add(self, location: str, problem: str) -> None:
        self.items.append({"location": location, "problem": problem})

    def has(self, location: str) -> bool:
        return any(p["location"] == location for p in self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise ValidationFailed("the entry is invalid", details=self.items)


def apply_values(
    content_type: ContentType,
    current: Mapping[str, Any],
    patch: Mapping[str, Any],
    problems: Problems,
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
class LinkPlan:
    links: dict[str, tuple[str, ...]]
    linked: list[tuple[FieldDef, str]]
    unlinked: list[tuple[FieldDef, str]]


def plan_links(
    caller: Caller,
    content_type: ContentType,
    source_id: str,
    current: Mapping[str, tuple[str, ...]],
    changes: Mapping[str, RelationChange],
    problems: Problems,
) -> LinkPlan:
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
    return LinkPlan(links=links, linked=linked, unlinked=unlinked)


def check_targets(
    caller: Caller,
    workspace_id: str,
    source_id: str,
    source_type: ContentType,
    linked: Sequence[tuple[FieldDef, str]],
    problems: Problems,
) -> list[str]:
    """Newly linked targets must exist here, be of the field's target type and be visible to
    the writer. Returns the ids the transaction must check again (all but the source itself)."""
    others = {target_id for _, target_id in linked if target_id != source_id}
    assets = any(definition.is_asset for definition, _ in linked)
    fetched = fetch_entries(
        workspace_id, others, (ASSET_CONTENT_TYPE_KEY, ASSET_STATE_KEY) if assets else (), ()
    )
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
        elif definition.is_asset:
            _check_asset(definition, target_id, fetched[target_id], problems)
    return sorted(others)


def _check_asset(
    definition: FieldDef, asset_id: str, stored: StoredEntry, problems: Problems
) -> None:
    """An asset field links assets whose file is ready and of a type it accepts."""
    kind = str(stored.values.get(ASSET_CONTENT_TYPE_KEY) or "")
    where = f"relations.{definition.name}.link"
    if stored.values.get(ASSET_STATE_KEY) != "ready":
        problems.add(where, f"asset {asset_id} has no ready file")
    elif not definition.accepts(kind):
        problems.add(
            where,
            f"asset {asset_id} is {kind}; field {definition.name!r} accepts "
            + ", ".join(definition.accept),
        )


def check_required(
    content_type: ContentType,
    values: Mapping[str, Any],
    links: Mapping[str, tuple[str, ...]],
    problems: Problems,
) -> None:
    for definition in content_type.fields:
        if not definition.required:
            continue
        if definition.is_relation:
            if not links.get(definition.key):
                problems.add(f"relations.{definition.name}", "is required: link a target")
        elif values.get(definition.key) is None and not problems.has(f"values.{definition.name}"):
            problems.add(f"values.{definition.name}", "is required")


def check_audiences(
    caller: Caller,
    content_type: ContentType,
    audiences: tuple[str, ...] | None,
    problems: Problems,
) -> tuple[str, ...] | None:
    if audiences is None:
        return None
    if not content_type.audience_gated:
        if audiences:
            problems.add("audiences", f"content type {content_type.name!r} is not audience-gated")
        return ()
    cleaned = tuple(sorted({a.strip() for a in audiences if isinstance(a, str)}))
    if len(cleaned) > MAX_AUDIENCES or any(
        not a or len(a) > 64 or not is_unicode(a) for a in cleaned
    ):
        problems.add("audiences", f"at most {MAX_AUDIENCES} names of 1 to 64 characters")
        return None
    if isinstance(caller, TokenCaller) and caller.audiences.isdisjoint(cleaned):
        problems.add(
            "audiences",
            "must include one of this token's audiences, or the entry would be invisible to it",
        )
    return cleaned


def link_items(
    transaction: Transaction,
    content_type: ContentType,
    source_id: str,
    plan: LinkPlan,
    target_checks: Sequence[str],
    takeovers: Mapping[str, str],
    published_links: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Target checks and the claims an exclusive relation's links need. A target the published
    version still links keeps its claim while only the draft unlinks it."""
    kept = published_links or {}
    for target_id in target_checks:
        transaction.add_link(target_check(content_type.workspace_id, target_id))
    for definition, target_id in plan.unlinked:
        if definition.exclusive and target_id not in kept.get(definition.key, ()):
            transaction.add_link(unclaim(content_type, definition, target_id, source_id))
    for definition, target_id in plan.linked:
        if definition.exclusive:
            stale = takeovers.get(target_id + "#" + definition.key)
            transaction.add_link(
                claim_link(content_type, definition, target_id, source_id, stale),
                LinkClaim(content_type.name, definition, target_id),
            )
