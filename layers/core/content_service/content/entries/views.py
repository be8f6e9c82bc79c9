"""What the service returns: entries by field name, JSON-ready, and pages of them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Generic, Protocol, TypeVar

from content_service.camel import camel
from content_service.content import values as value_rules
from content_service.content.entries.asset_views import linked_asset_json
from content_service.content.entries.items import EntrySystemFields, StoredEntry, View
from content_service.content.schema import ASSET_TYPE, ContentType, FieldDef
from content_service.identity.principal import Caller

SYSTEM_FIELDS = tuple(f.name for f in fields(EntrySystemFields))
_SYSTEM_JSON = tuple((name, camel(name)) for name in SYSTEM_FIELDS)


@dataclass(frozen=True, kw_only=True)
class Entry(EntrySystemFields):
    """One entry as a caller sees it.

    `values` holds the selected value fields by name (None when unset). `links` holds, for the
    relation fields that were read, the linked target ids in link order (unfiltered: a target
    may be invisible to the caller; `relations` and the loaders apply visibility). `relations`
    holds expanded targets and is None unless something was expanded.
    """

    audiences: tuple[str, ...] | None
    values: Mapping[str, Any]
    links: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    relations: Mapping[str, list[Entry]] | None = None
    version: int = 0
    """Bumped by every write: what a write names to be refused if someone saved first."""
    published_version: int | None = None
    """The number of the live snapshot; None while not published."""
    updated_by: Mapping[str, str] | None = None
    """`{id, email}` of the user who wrote this version last (None for a token, and always in
    the delivery view: a site's read token never learns an editor's address)."""
    created_by: Mapping[str, str] | None = None
    """`{kind, id}` of the user or token that created it (latest view only; never in its JSON:
    the editor page turns it into "the caller's own" for the roles' own-entries rules)."""
    view: View = "latest"
    """The view it was read in; its relations are read in the same one."""
    values_shown: bool = True
    """False in a write's answer to a caller that may not read: `values` is left out."""

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {key: getattr(self, name) for name, key in _SYSTEM_JSON}
        body["version"] = self.version
        body["publishedVersion"] = self.published_version
        body["updatedBy"] = dict(self.updated_by) if self.updated_by else None
        if self.audiences is not None:
            body["audiences"] = list(self.audiences)
        if self.values_shown:
            body["values"] = dict(self.values)
        if self.relations is not None:
            body["relations"] = {
                name: [_target_json(target) for target in targets]
                for name, targets in self.relations.items()
            }
        return body


def _target_json(target: Entry) -> dict[str, Any]:
    """An expanded target; an asset shows as an asset, with its file and URL."""
    if target.content_type == ASSET_TYPE and target.values_shown:
        return linked_asset_json(target)
    return target.to_json()


class Jsonable(Protocol):
    def to_json(self) -> dict[str, Any]: ...


Item = TypeVar("Item", bound=Jsonable)


@dataclass(frozen=True)
class NumberedPage(Generic[Item]):
    """One page of a list paged by number: its items, the list's total, the page and its size
    (the `{items, total, page, pageSize}` of docs/api.md)."""

    items: list[Item]
    total: int
    page: int
    page_size: int

    def to_json(self) -> dict[str, Any]:
        return {
            "items": [item.to_json() for item in self.items],
            "total": self.total,
            "page": self.page,
            "pageSize": self.page_size,
        }


@dataclass(frozen=True)
class EntryPage(NumberedPage[Entry]):
    next_cursor: str | None = None
    """Where the next page starts (`cursor`), or None when this page is the last."""
    cursors: bool = False
    """Whether the list pages by cursor too (lists do; the relations route pages by number)."""

    def to_json(self) -> dict[str, Any]:
        body = super().to_json()
        if self.cursors:
            body["nextCursor"] = self.next_cursor
        return body


def entry_view(
    content_type: ContentType,
    stored: StoredEntry,
    value_fields: Iterable[FieldDef] | None = None,
    link_fields: Iterable[FieldDef] | None = None,
    relations: Mapping[str, list[Entry]] | None = None,
    view: View = "latest",
) -> Entry:
    """`stored` by field name; `value_fields` (`link_fields`) None means all of the type's."""
    chosen = content_type.value_fields if value_fields is None else tuple(value_fields)
    chosen_links = content_type.relation_fields if link_fields is None else tuple(link_fields)
    links = {f.name: stored.links.get(f.key, ()) for f in chosen_links}
    return Entry(
        **{name: getattr(stored, name) for name in SYSTEM_FIELDS},
        audiences=stored.audiences if content_type.audience_gated else None,
        values={f.name: value_rules.from_storage(f, stored.values.get(f.key)) for f in chosen},
        links=links,
        relations=relations,
        version=stored.version,
        published_version=stored.published_version,
        updated_by=stored.updated_by if view == "latest" else None,
        created_by=stored.created_by if view == "latest" else None,
        view=view,
    )


def written(caller: Caller, entry: Entry) -> Entry:
    """A write's answer. A caller that may write but not read (a token without
    `content:read`) learns that the write was made and the entry's system fields, never its
    values: otherwise an empty PATCH would be a read."""
    if caller.can_read:
        return entry
    return replace(entry, values={}, links={}, relations=None, values_shown=False)
