"""The storage shape of entries and of the claim items beside them, in the content table.

Entry item (`pk` = `ENTRY#<ws>#<id>`, `sk` = `ENTRY`): the latest version, what a preview
reads and every write starts from:

    id, workspaceId, contentType, status (draft|published|changed), locale, localeGroupId,
    createdAt, updatedAt, publishedAt (or NULL), audiences (list), deleted (bool),
    version (number: every write bumps it), title, updatedBy ({id, email} or NULL),
    createdBy ({kind: user|token, id}; absent on entries made before roles)
    values   {<field key>: <stored value>}          field keys are `f1`, `f2`, ... (model.py)
    links    {<field key>: [<target id>, ...]}      relation links, in link order
    summary  {i, s, d, l, g, c, u, p, a, v: {<field key>: <scalar>}}
    listKeys    [[pk, sk], ...]                     the list index items the entry has now
    listCounts  [pk, ...]                           the count items it is counted in
    publishedVersion, versionCount, publishedHash   the live snapshot's number, how many
                                                    snapshots were taken, the live content's digest

Published item (`sk` = `PUBLISHED`), while the entry is `published` or `changed`: exactly what
was published, in the entry item's shape (status `published`), so a delivery read of one entry is
one item read, whatever its draft holds. Version items (`sk` = `VERSION#<n, 6 digits>`): one
immutable snapshot per publish, the same shape plus `publishedBy` (`content.writes.versions`).

`summary` is all a list needs to decide visibility, filter and sort: id (i), status (s),
deleted (d), locale (l), localeGroupId (g), createdAt (c), updatedAt (u), publishedAt (p),
audiences (a), the scalar field values (v: string, integer, float, boolean, datetime, date,
enum; never text, richtext or json) and the relation links (r: a to-one field's target id, a
to-many field's ids, which relation filters read). The list index items that lists read
filtered in memory (`content.lists.list_index`) carry a copy; the keys are one letter, and d, g, p,
a and r are left out while they hold their default (false, the entry's own id, null, none, no
links), to keep a 10,000-entry listing small on the wire.

`listKeys` and `listCounts` record exactly which index and count items the entry has, so every
write removes what it no longer needs and counts each change once, whatever layout the type
had when the entry was last written (`content.lists.list_index`).

It is stored as compact JSON in ONE string attribute rather than a DynamoDB map: botocore parses
a response shape-driven, node by node, so a large listing of nested maps costs many times
what the same summaries cost as strings decoded by `json.loads` (docs/benchmarks.md).
Every write rebuilds it from the entry, so it never drifts.

Claim items make uniqueness rules conditions of the write transaction:
- `GROUP#<ws>#<localeGroupId>` / `LOCALE#<locale>` -> entryId, contentType: one entry per
  (localeGroupId, locale); also how a `localeGroupId eq` filter addresses one record.
- `SINGLE#<ws>#<type>` / `LOCALE#<locale>` -> entryId: a single type's one entry per locale.
- `LINK#<ws>#<type>#<field key>#<target id>` / `CLAIM` -> sourceId: a target linked through a
  one-to-one or one-to-many field belongs to one source.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Literal

from content_service.content.schema import ENTRY_SYSTEM_FIELDS, ContentType, FieldDef
from content_service.storage import dynamo

ID_PATTERN = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
_ID = re.compile(ID_PATTERN)

Status = Literal["draft", "published", "changed"]
View = Literal["latest", "published"]
"""Which version a read gets: the latest (preview: drafts too) or the published one (delivery)."""
STATUSES: tuple[Status, ...] = ("draft", "published", "changed")
ENTRY_SK = "ENTRY"
PUBLISHED_SK = "PUBLISHED"
VERSION_SK_PREFIX = "VERSION#"
CLAIM_SK = "CLAIM"
# DynamoDB refuses items over 400 KB; this leaves room for attribute overhead.
MAX_ITEM_BYTES = 380 * 1024

# Attributes every read of an entry fetches (everything but values, links and summary).
SYSTEM_ATTRIBUTES: tuple[str, ...] = (*ENTRY_SYSTEM_FIELDS, "deleted", "version", "title")
# What an answer shows of the workflow, read with the system attributes (and who created the
# entry, for the editor page's own-entries rules).
VERSION_ATTRIBUTES: tuple[str, ...] = ("updatedBy", "publishedVersion", "createdBy")


def is_entry_id(value: object) -> bool:
    """An entry id: a lowercase UUID, as the service makes them."""
    return isinstance(value, str) and _ID.match(value) is not None


def entry_pk(workspace_id: str, entry_id: str) -> str:
    return f"ENTRY#{workspace_id}#{entry_id}"


def entry_key(workspace_id: str, entry_id: str) -> dict[str, Any]:
    return dynamo.key(entry_pk(workspace_id, entry_id), ENTRY_SK)


def published_key(workspace_id: str, entry_id: str) -> dict[str, Any]:
    return dynamo.key(entry_pk(workspace_id, entry_id), PUBLISHED_SK)


def version_sk(number: int) -> str:
    return f"{VERSION_SK_PREFIX}{number:06d}"


def version_key(workspace_id: str, entry_id: str, number: int) -> dict[str, Any]:
    return dynamo.key(entry_pk(workspace_id, entry_id), version_sk(number))


def view_key(workspace_id: str, entry_id: str, view: View) -> dict[str, Any]:
    """The item a read of `view` takes: the entry item, or the published one."""
    if view == "published":
        return published_key(workspace_id, entry_id)
    return entry_key(workspace_id, entry_id)


def group_claim_key(workspace_id: str, group_id: str, locale: str) -> dict[str, Any]:
    return dynamo.key(f"GROUP#{workspace_id}#{group_id}", f"LOCALE#{locale}")


def single_claim_key(workspace_id: str, content_type: str, locale: str) -> dict[str, Any]:
    return dynamo.key(f"SINGLE#{workspace_id}#{content_type}", f"LOCALE#{locale}")


def link_claim_key(
    workspace_id: str, content_type: str, field_key: str, target_id: str
) -> dict[str, Any]:
    return dynamo.key(f"LINK#{workspace_id}#{content_type}#{field_key}#{target_id}", CLAIM_SK)


@dataclass(frozen=True, kw_only=True)
class EntrySystemFields:
    """What an entry shows of its record whatever the selection: the stored entry and every
    view of it (`views.Entry`) hold these."""

    id: str
    content_type: str
    status: Status
    locale: str
    locale_group_id: str
    created_at: str
    updated_at: str
    published_at: str | None


@dataclass(frozen=True, kw_only=True)
class StoredEntry(EntrySystemFields):
    """An entry as stored, values and links by field key. A projected read fills part of it."""

    workspace_id: str
    audiences: tuple[str, ...]
    deleted: bool
    version: int
    title: str
    values: Mapping[str, Any] = field(default_factory=dict)
    links: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    list_keys: tuple[tuple[str, str], ...] = ()
    """The (pk, sk) of every list index item the entry has (read only with the whole item)."""
    list_counts: tuple[str, ...] = ()
    """The pk of every count item the entry is counted in."""
    updated_by: Mapping[str, str] | None = None
    """`{id, email}` of the signed-in user who wrote this version last; None for a token."""
    created_by: Mapping[str, str] | None = None
    """`{kind, id}` of the user or token that created the entry (a role's "own entries")."""
    published_version: int | None = None
    """The number of the live snapshot (None while not published)."""
    versions: int = 0
    """How many snapshots were ever taken (the next publish takes number `versions + 1`)."""
    published_hash: str | None = None
    """`content_digest` of the live version, so a write can tell `published` from `changed`."""

    @property
    def is_live(self) -> bool:
        """Whether a published version exists (states `published` and `changed`)."""
        return self.status != "draft"

    def with_changes(self, **changes: Any) -> StoredEntry:
        return replace(self, **changes)


def _canonical(value: Any) -> Any:
    """A stored value in one form whatever way it was read: numbers as normalised decimals."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float | Decimal):
        return "#" + str(Decimal(str(value)).normalize())
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    return [_canonical(v) for v in value]


def content_digest(entry: StoredEntry) -> str:
    """What a version holds that an editor writes (values, links, audiences), as a digest:
    equal digests mean the draft equals the published version."""
    content = {
        "v": _canonical({k: v for k, v in entry.values.items() if v is not None}),
        "l": {k: list(v) for k, v in sorted(entry.links.items()) if v},
        "a": sorted(entry.audiences),
    }
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def title_of(content_type: ContentType, values: Mapping[str, Any]) -> str:
    """The title snapshot: the titleField's value, or "" when unset or there is none."""
    if content_type.title_field is None:
        return ""
    title_field = content_type.field(content_type.title_field)
    if title_field is None:
        return ""
    value = values.get(title_field.key)
    return value if isinstance(value, str) else ""


def plain_value(definition: FieldDef, value: Any) -> Any:
    """A stored scalar as JSON-ready Python (numbers read back from DynamoDB are Decimal)."""
    if isinstance(value, Decimal):
        return int(value) if definition.type == "integer" else float(value)
    return value


def summary_of(content_type: ContentType, entry: StoredEntry) -> dict[str, Any]:
    scalars = {
        f.key: plain_value(f, entry.values[f.key])
        for f in content_type.scalar_fields
        if entry.values.get(f.key) is not None
    }
    summary: dict[str, Any] = {
        "i": entry.id,
        "s": entry.status,
        "l": entry.locale,
        "c": entry.created_at,
        "u": entry.updated_at,
        "v": scalars,
    }
    # Left out when they hold their default, to keep every index entry small: deleted (false),
    # localeGroupId (the entry's own id), publishedAt (null), audiences (none).
    if entry.deleted:
        summary["d"] = True
    if entry.locale_group_id != entry.id:
        summary["g"] = entry.locale_group_id
    if entry.published_at is not None:
        summary["p"] = entry.published_at
    if entry.audiences:
        summary["a"] = list(entry.audiences)
    links = summary_links(content_type, entry)
    if links:
        summary["r"] = links
    return summary


def summary_links(content_type: ContentType, entry: StoredEntry) -> dict[str, Any]:
    """The links a list filters on (`r`): a to-one relation's target id, a to-many
    relation's ids in link order; a relation without links is left out."""
    links: dict[str, Any] = {}
    for definition in content_type.relation_fields:
        targets = entry.links.get(definition.key) or ()
        if targets:
            links[definition.key] = targets[0] if definition.to_one else list(targets)
    return links


def summary_text(content_type: ContentType, entry: StoredEntry) -> str:
    """The summary as stored: compact JSON in one string attribute (see the module doc)."""
    return json.dumps(summary_of(content_type, entry), separators=(",", ":"), ensure_ascii=False)


def _record_attributes(entry: StoredEntry, sk: str, entity: str, status: str) -> dict[str, Any]:
    """What the entry item and each published version's item both hold: the key, the
    record, the values and the links."""
    return {
        "pk": entry_pk(entry.workspace_id, entry.id),
        "sk": sk,
        "entity": entity,
        "id": entry.id,
        "workspaceId": entry.workspace_id,
        "contentType": entry.content_type,
        "status": status,
        "locale": entry.locale,
        "localeGroupId": entry.locale_group_id,
        "createdAt": entry.created_at,
        "updatedAt": entry.updated_at,
        "publishedAt": entry.published_at,
        "audiences": list(entry.audiences),
        "deleted": entry.deleted,
        "version": entry.version,
        "title": entry.title,
        "values": {k: v for k, v in entry.values.items() if v is not None},
        "links": {k: list(v) for k, v in entry.links.items() if v},
        "createdBy": dict(entry.created_by) if entry.created_by else None,
    }


def entry_item(content_type: ContentType, entry: StoredEntry) -> dict[str, Any]:
    """The whole item for `entry` (plain Python; `dynamo.encode` makes it wire-ready)."""
    item = _record_attributes(entry, ENTRY_SK, "entry", entry.status)
    item["summary"] = summary_text(content_type, entry)
    item["listKeys"] = [list(k) for k in entry.list_keys]
    item["listCounts"] = list(entry.list_counts)
    item["updatedBy"] = dict(entry.updated_by) if entry.updated_by else None
    item["versionCount"] = entry.versions
    if entry.published_version is not None:
        item["publishedVersion"] = entry.published_version
    if entry.published_hash is not None:
        item["publishedHash"] = entry.published_hash
    return item


def published_item(entry: StoredEntry, sk: str = PUBLISHED_SK) -> dict[str, Any]:
    """A published version's item (`PUBLISHED`, or a `VERSION#n` snapshot): `entry` as the
    version it is, without what only the entry item keeps (summary, index bookkeeping)."""
    entity = "entry_version" if sk != PUBLISHED_SK else "entry_published"
    item = _record_attributes(entry, sk, entity, "published")
    item["updatedBy"] = dict(entry.updated_by) if entry.updated_by else None
    item["publishedVersion"] = entry.published_version
    item["versionCount"] = entry.versions
    return item


def item_size(item: Mapping[str, Any]) -> int:
    """An upper bound of the item's stored size (its JSON form in UTF-8)."""
    return len(json.dumps(item, ensure_ascii=False, default=str).encode("utf-8"))


def from_item(workspace_id: str, item: Mapping[str, Any]) -> StoredEntry:
    """A (possibly projected) decoded entry item."""
    links = item.get("links") or {}
    published = item.get("publishedAt")
    live = item.get("publishedVersion")
    by = item.get("updatedBy")
    maker = item.get("createdBy")
    return StoredEntry(
        id=str(item.get("id", "")),
        workspace_id=workspace_id,
        content_type=str(item.get("contentType", "")),
        status=status_of(item.get("status")),
        locale=str(item.get("locale", "en")),
        locale_group_id=str(item.get("localeGroupId", "")),
        created_at=str(item.get("createdAt", "")),
        updated_at=str(item.get("updatedAt", "")),
        published_at=str(published) if published else None,
        audiences=tuple(str(a) for a in item.get("audiences") or ()),
        deleted=bool(item.get("deleted", False)),
        version=int(item.get("version", 0)),
        title=str(item.get("title", "")),
        values=dict(item.get("values") or {}),
        links={str(k): tuple(str(i) for i in v) for k, v in links.items()},
        list_keys=tuple((str(k[0]), str(k[1])) for k in item.get("listKeys") or ()),
        list_counts=tuple(str(pk) for pk in item.get("listCounts") or ()),
        updated_by={str(k): str(v) for k, v in by.items()} if isinstance(by, Mapping) else None,
        created_by=(
            {str(k): str(v) for k, v in maker.items()} if isinstance(maker, Mapping) else None
        ),
        published_version=int(live) if live is not None else None,
        versions=int(item.get("versionCount", 0)),
        published_hash=str(item["publishedHash"]) if item.get("publishedHash") else None,
    )


def status_of(raw: Any) -> Status:
    return raw if raw in STATUSES else "draft"


@dataclass(frozen=True)
class Summary:
    """One entry's summary as a list reads it from the list index."""

    id: str
    status: Status
    deleted: bool
    locale: str
    locale_group_id: str
    created_at: str
    updated_at: str
    published_at: str | None
    audiences: frozenset[str]
    values: Mapping[str, Any]
    links: Mapping[str, Any] = field(default_factory=dict)
    """Relation links by field key: a to-one field's target id, a to-many field's ids."""

    def system(self, name: str) -> Any:
        return {
            "id": self.id,
            "status": self.status,
            "localeGroupId": self.locale_group_id,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "publishedAt": self.published_at,
        }[name]


def summary_from(raw: str | Mapping[str, Any]) -> Summary:
    stored: Mapping[str, Any] = json.loads(raw) if isinstance(raw, str) else raw
    published = stored.get("p")
    entry_id = str(stored.get("i", ""))
    return Summary(
        id=entry_id,
        status=status_of(stored.get("s")),
        deleted=bool(stored.get("d", False)),
        locale=str(stored.get("l", "en")),
        locale_group_id=str(stored.get("g") or entry_id),
        created_at=str(stored.get("c", "")),
        updated_at=str(stored.get("u", "")),
        published_at=str(published) if published else None,
        audiences=frozenset(str(a) for a in stored.get("a") or ()),
        values=stored.get("v") or {},
        links=stored.get("r") or {},
    )


def projection_paths(
    value_keys: Iterable[str] | None, link_keys: Iterable[str] | None
) -> list[list[str]]:
    """Attribute paths to read: system attributes, then the chosen values and links.

    `None` reads all values (or all links); an empty iterable reads none of them.
    """
    paths: list[list[str]] = [[name] for name in (*SYSTEM_ATTRIBUTES, *VERSION_ATTRIBUTES)]
    if value_keys is None:
        paths.append(["values"])
    else:
        paths.extend(["values", k] for k in value_keys)
    if link_keys is None:
        paths.append(["links"])
    else:
        paths.extend(["links", k] for k in link_keys)
    return paths
