"""The request objects of the content service: what REST routes and GraphQL resolvers build.

A protocol adapter translates its own input into one of these and calls the matching function
of `content_service.content.service`; it never talks to storage. The `parse` constructors accept
the raw forms both protocols have (REST's strings, GraphQL's already-decoded objects) and refuse
malformed input with `BadRequest` (400). Checks that need the content type (does the field
exist, does the value fit it) happen in the service, also as 400s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field

from content_service.content.entries import View
from content_service.content.lists import (
    Cursor,
    FilterNode,
    decode_cursor,
    filter_json,
    parse_filter,
    query_digest,
)
from content_service.errors import BadRequest, Forbidden
from content_service.identity.principal import Caller

LOCALE_PATTERN = r"^[a-z]{2,3}(-[A-Z]{2})?$"
DEFAULT_LOCALE = "en"
DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
MAX_PAGE = 1_000_000
# Page numbers reach the first 10,000 entries of a list; past them, a cursor (docs/content.md).
MAX_LIST_DEPTH = 10_000
MAX_SORT_KEYS = 5
MAX_NAMES = 100
_LOCALE = re.compile(LOCALE_PATTERN)
_NAME_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def is_locale(value: object) -> bool:
    return isinstance(value, str) and _LOCALE.match(value) is not None


@dataclass(frozen=True)
class SortKey:
    field: str
    descending: bool = False


def _names(raw: str | Iterable[str] | None, what: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    names = tuple(dict.fromkeys(item.strip() for item in items if item and item.strip()))
    if len(names) > MAX_NAMES:
        raise BadRequest(f"{what}: at most {MAX_NAMES} names")
    for name in names:
        if not _NAME_TOKEN.match(name):
            raise BadRequest(f"{what}: {name[:64]!r} is not a field name")
    return names


def _fields(raw: str | Iterable[str] | None) -> tuple[str, ...] | None:
    """The value fields asked for; None (not asked) is every field."""
    return None if raw is None else _names(raw, "fields")


def parse_sort(raw: str | Sequence[str] | None) -> tuple[SortKey, ...]:
    """`-publishedAt,title`: a `-` prefix sorts descending."""
    if raw is None:
        return ()
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    keys: list[SortKey] = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        descending = item.startswith("-")
        name = item[1:] if descending else item
        if not _NAME_TOKEN.match(name):
            raise BadRequest(f"sort: {item[:64]!r} is not a field name")
        keys.append(SortKey(name, descending))
    if len(keys) > MAX_SORT_KEYS:
        raise BadRequest(f"sort: at most {MAX_SORT_KEYS} keys")
    return tuple(keys)


def check_page(page: int, page_size: int) -> None:
    """REST's bounds of `page` and `pageSize`, which GraphQL's list and relation fields share."""
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= MAX_PAGE:
        raise BadRequest(f"page must be an integer from 1 to {MAX_PAGE}")
    if isinstance(page_size, bool) or not isinstance(page_size, int):
        raise BadRequest("pageSize must be an integer")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise BadRequest(f"pageSize must be from 1 to {MAX_PAGE_SIZE}")


def _locale(locale: str | None) -> str:
    if locale is None or locale == "":
        return DEFAULT_LOCALE
    if not is_locale(locale):
        raise BadRequest(f"locale must match {LOCALE_PATTERN}")
    return locale


VIEWS: tuple[View, ...] = ("latest", "published")


def parse_view(caller: Caller, raw: str | None) -> View:
    """Which version a read gets: `published` (delivery) or `latest` (preview: drafts too).
    A read token always reads the published version; a full token or a signed-in user reads
    the latest unless it asks for `published`."""
    if raw is None or raw == "":
        return "latest" if caller.sees_drafts else "published"
    if raw == "published":
        return "published"
    if raw == "latest":
        if not caller.sees_drafts:
            raise Forbidden(
                "version=latest (the preview, drafts included) needs a full token or a "
                "sign-in; a read token reads published versions"
            )
        return "latest"
    raise BadRequest(f"version must be one of {', '.join(VIEWS)}")


def list_digest(
    content_type: str, locale: str, sort: tuple[SortKey, ...], node: FilterNode | None
) -> str:
    """What names one list for its cursors: type, locale, sort and filter (the view does not:
    a position, a sort value and an id, means the same in the latest and the published
    versions)."""
    return query_digest(
        [content_type, locale, [[k.field, k.descending] for k in sort], filter_json(node)]
    )


def _depth(page: int, page_size: int, cursor: str | None) -> None:
    if cursor is not None and page != 1:
        raise BadRequest("page and cursor exclude each other: a cursor names its own page")
    if page * page_size > MAX_LIST_DEPTH:
        raise BadRequest(
            f"page: page {page} of {page_size} goes past entry {MAX_LIST_DEPTH:,}, as deep as "
            "page numbers go; follow the cursor instead (pass each page's `nextCursor` as "
            "`cursor`)"
        )


@dataclass(frozen=True)
class ListRequest:
    """A list of one content type's entries (also how a single type is read)."""

    caller: Caller
    workspace_id: str
    content_type: str
    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    sort: tuple[SortKey, ...] = ()
    filter: FilterNode | None = None
    fields: tuple[str, ...] | None = None
    """Value fields to return (and read); None for all. System fields always come back."""
    locale: str = DEFAULT_LOCALE
    expand: tuple[str, ...] = ()
    """Relation fields whose targets to return under `relations`."""
    links: tuple[str, ...] = ()
    """Relation fields whose target ids to read (`Entry.links`) without expanding them; REST
    never needs it, a GraphQL resolver names the relation fields its selection contains."""
    cursor: Cursor | None = None
    """Where the page starts (the previous page's `nextCursor`), instead of `page`."""
    view: View = "latest"
    """The latest versions (preview) or the published ones (delivery): `parse_view`."""
    asked_filter: FilterNode | None = None
    """The filter as the caller sent it, once its linked-field conditions were resolved into
    ids (`content.relations.linked_field_filters`): a cursor stays bound to what was asked."""

    @property
    def digest(self) -> str:
        asked = self.filter if self.asked_filter is None else self.asked_filter
        return list_digest(self.content_type, self.locale, self.sort, asked)

    @classmethod
    def parse(
        cls,
        caller: Caller,
        workspace_id: str,
        content_type: str,
        *,
        page: int = 1,
        page_size: int = DEFAULT_PAGE_SIZE,
        sort: str | Sequence[str] | None = None,
        filter: str | Mapping[str, Any] | None = None,
        fields: str | Iterable[str] | None = None,
        locale: str | None = None,
        expand: str | Iterable[str] | None = None,
        links: str | Iterable[str] | None = None,
        cursor: str | None = None,
        version: str | None = None,
    ) -> ListRequest:
        check_page(page, page_size)
        _depth(page, page_size, cursor)
        request = cls(
            caller=caller,
            workspace_id=workspace_id,
            content_type=content_type,
            page=page,
            page_size=page_size,
            sort=parse_sort(sort),
            filter=parse_filter(filter),
            fields=_fields(fields),
            locale=_locale(locale),
            expand=_names(expand, "expand"),
            links=_names(links, "links"),
            view=parse_view(caller, version),
        )
        if cursor is None:
            return request
        return replace(request, cursor=decode_cursor(cursor, request.digest))


@dataclass(frozen=True)
class EntryRequest:
    """What every request about one entry names: who asks, where, and which entry."""

    caller: Caller
    workspace_id: str
    content_type: str
    id: str

    @classmethod
    def parse(
        cls,
        caller: Caller,
        workspace_id: str,
        content_type: str,
        entry_id: str,
        *more: Any,
        **query: Any,
    ) -> Self:
        """The request for one entry from a protocol's raw arguments: the kind's own `_query`
        checks what follows the entry (`more`, `query`) and answers its fields."""
        fields = cls._query(caller, *more, **query)
        return cls(caller, workspace_id, content_type, entry_id, **fields)

    @classmethod
    def _query(cls, caller: Caller, *more: Any, **query: Any) -> dict[str, Any]:
        """The fields a kind adds to the entry it names, checked from its raw arguments: each
        kind that `parse`s says its own."""
        raise NotImplementedError(cls.__name__)


@dataclass(frozen=True)
class GetRequest(EntryRequest):
    """One entry by id."""

    fields: tuple[str, ...] | None = None
    expand: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    view: View = "latest"

    @classmethod
    def _query(
        cls,
        caller: Caller,
        *,
        fields: str | Iterable[str] | None = None,
        expand: str | Iterable[str] | None = None,
        links: str | Iterable[str] | None = None,
        version: str | None = None,
    ) -> dict[str, Any]:
        return {
            "fields": _fields(fields),
            "expand": _names(expand, "expand"),
            "links": _names(links, "links"),
            "view": parse_view(caller, version),
        }


@dataclass(frozen=True)
class RelationRequest(EntryRequest):
    """The targets of one relation field of one entry, paged (the relations route)."""

    field: str
    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    fields: tuple[str, ...] | None = None
    view: View = "latest"

    @classmethod
    def _query(
        cls,
        caller: Caller,
        relation_field: str,
        *,
        page: int = 1,
        page_size: int = DEFAULT_PAGE_SIZE,
        fields: str | Iterable[str] | None = None,
        version: str | None = None,
    ) -> dict[str, Any]:
        check_page(page, page_size)
        return {
            "field": relation_field,
            "page": page,
            "page_size": page_size,
            "fields": _fields(fields),
            "view": parse_view(caller, version),
        }


@dataclass(frozen=True)
class RelationChange:
    link: tuple[str, ...] = ()
    unlink: tuple[str, ...] = ()


@dataclass(frozen=True)
class WriteRequest:
    """Create (`id` None) or update an entry.

    `values`: field name -> value; on update an omitted field is unchanged and an explicit None
    clears it. `relations`: field name -> links to add and remove. `locale` and
    `locale_group_id` place a new entry (a translation joins an existing group); `audiences`
    sets an audience-gated entry's audiences (None: unchanged on update, empty on create).
    `expected_version`, when given, is the entry version the write was made from: an update
    of an entry at another version is refused (409 `version_conflict`) and writes nothing.
    """

    caller: Caller
    workspace_id: str
    content_type: str
    id: str | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    relations: Mapping[str, RelationChange] = field(default_factory=dict)
    locale: str | None = None
    locale_group_id: str | None = None
    audiences: tuple[str, ...] | None = None
    expected_version: int | None = None

    @property
    def changes_nothing(self) -> bool:
        """An update that names nothing to change (`{}`, or only `version`): it writes nothing."""
        placed = self.locale is not None or self.locale_group_id is not None
        return not (self.values or self.relations or placed or self.audiences is not None)


# The body of a write (REST's, and what GraphQL's mutation input maps to): both protocols
# refuse the same input. The docstring is the OpenAPI description.


class RelationChangeBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    link: list[str] = Field(default_factory=list, max_length=100)
    unlink: list[str] = Field(default_factory=list, max_length=100)


class EntryWriteBody(BaseModel):
    """`values` by field name (on PATCH: omitted unchanged, null clears); `relations` links
    and unlinks target ids. `locale` and `localeGroupId` (join an existing entry's locale group
    as a translation) apply on create; `audiences` to audience-gated types. `version` (PATCH)
    is the entry version the edit was made from: another version is 409 `version_conflict`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    values: dict[str, Any] = Field(default_factory=dict)
    relations: dict[str, RelationChangeBody] = Field(default_factory=dict)
    locale: str | None = Field(default=None, max_length=16)
    localeGroupId: str | None = Field(default=None, max_length=64)
    audiences: list[str] | None = Field(default=None, max_length=50)
    version: int | None = Field(default=None, ge=1, le=2**53)

    def request(
        self, caller: Caller, workspace_id: str, content_type: str, entry_id: str | None
    ) -> WriteRequest:
        return WriteRequest(
            caller=caller,
            workspace_id=workspace_id,
            content_type=content_type,
            id=entry_id,
            values=self.values,
            relations={
                name: RelationChange(link=tuple(c.link), unlink=tuple(c.unlink))
                for name, c in self.relations.items()
            },
            locale=self.locale,
            locale_group_id=self.localeGroupId,
            audiences=tuple(self.audiences) if self.audiences is not None else None,
            expected_version=self.version,
        )


@dataclass(frozen=True)
class EntryAction(EntryRequest):
    """Publish, unpublish, delete (to trash), restore or purge one entry. `force` trashes an
    entry that published entries link (refused with 409 otherwise)."""

    force: bool = False


@dataclass(frozen=True)
class VersionsRequest(EntryRequest):
    """The published versions of one entry, newest first, paged."""

    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE

    @classmethod
    def _query(
        cls, caller: Caller, *, page: int = 1, page_size: int = DEFAULT_PAGE_SIZE
    ) -> dict[str, Any]:
        check_page(page, page_size)
        return {"page": page, "page_size": page_size}


@dataclass(frozen=True)
class VersionRequest(EntryRequest):
    """One published version (snapshot `number`) of one entry: read it, or restore it."""

    number: int


@dataclass(frozen=True)
class ScheduleRequest(EntryRequest):
    """Publish or unpublish one entry at a time (`at`, ISO 8601 with a timezone)."""

    action: str
    at: str


@dataclass(frozen=True)
class ScheduleAction(EntryRequest):
    """Cancel one schedule of one entry."""

    schedule_id: str
