"""Lists against one content type: the sort and the field selection, compiled (the filter:
`filters`).

Everything here works on `Summary` objects (what the byType index holds), so sorting never
needs an entry's full item. Problems are `BadRequest` (400) with a readable
message: an unknown field, an operator the field's type does not support, a value of the wrong
type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from content_service.content.entries import Summary
from content_service.content.lists.filters import Getter, field_operand
from content_service.content.requests import SortKey
from content_service.content.schema import ENTRY_SYSTEM_FIELDS, ContentType, FieldDef
from content_service.errors import BadRequest
from content_service.identity.principal import Caller

SYSTEM_SORT_FIELDS = ("id", "createdAt", "updatedAt", "publishedAt")
SYSTEM_FIELD_NAMES = frozenset(ENTRY_SYSTEM_FIELDS)
DEFAULT_SORT = (SortKey("createdAt", descending=True),)


def sort_operand(content_type: ContentType, key: SortKey) -> tuple[str, Getter]:
    """The kind of a sort key's values (`timestamp`, `id`, a field type) and their getter."""
    operand = field_operand(content_type, key.field, SYSTEM_SORT_FIELDS, "sort")
    return operand.kind, operand.getter


def sort_summaries(
    content_type: ContentType, summaries: list[Summary], keys: tuple[SortKey, ...]
) -> list[Summary]:
    """Sorted by `keys` (default `-createdAt`), nulls last either way, `id` breaking ties."""
    operands = [
        (field_operand(content_type, k.field, SYSTEM_SORT_FIELDS, "sort"), k.descending)
        for k in (keys or DEFAULT_SORT)
    ]
    ordered = sorted(summaries, key=lambda s: s.id)
    for operand, descending in reversed(operands):
        get = operand.getter

        def sort_key(summary: Summary, get: Getter = get, descending: bool = descending) -> Any:
            value = get(summary)
            if descending:
                return (value is not None, value if value is not None else 0)
            return (value is None, value if value is not None else 0)

        try:
            ordered.sort(key=sort_key, reverse=descending)
        except TypeError:  # a stored value of an unexpected type: keep the order so far
            continue
    return ordered


def check_sort(content_type: ContentType, keys: tuple[SortKey, ...]) -> None:
    for key in keys:
        field_operand(content_type, key.field, SYSTEM_SORT_FIELDS, "sort")


@dataclass(frozen=True)
class Selection:
    """Which value fields to read and return, which links to read, which relations to expand.

    With no `fields` every value and every link is read; with `fields`, only those values and
    the links of the expanded (and `links`-named) relation fields: the ProjectionExpression
    names nothing else, so an unselected rich-text attribute is never read.
    """

    value_fields: tuple[FieldDef, ...]
    all_values: bool
    expand: tuple[FieldDef, ...]
    link_fields: tuple[FieldDef, ...]

    @property
    def value_keys(self) -> tuple[str, ...] | None:
        return None if self.all_values else tuple(f.key for f in self.value_fields)

    @property
    def link_keys(self) -> tuple[str, ...] | None:
        return None if self.all_values else tuple(f.key for f in self.link_fields)


def _relation(caller: Caller, content_type: ContentType, name: str, what: str) -> FieldDef:
    definition = content_type.field(name)
    if (
        definition is None
        or not definition.is_relation
        or not caller.grants(definition.target or "")
    ):
        raise BadRequest(
            f"{what}: content type {content_type.name!r} has no relation field {name!r}"
        )
    return definition


def select(
    caller: Caller,
    content_type: ContentType,
    fields: tuple[str, ...] | None,
    expand: tuple[str, ...] = (),
    links: tuple[str, ...] = (),
) -> Selection:
    """Validates `fields` (value fields; system names are accepted and ignored), `expand` and
    `links` (relation fields whose target ids to read without expanding them)."""
    if fields is None:
        chosen = content_type.value_fields
    else:
        picked: list[FieldDef] = []
        for name in fields:
            if name in SYSTEM_FIELD_NAMES:
                continue
            definition = content_type.field(name)
            if definition is None:
                raise BadRequest(
                    f"fields: content type {content_type.name!r} has no field {name!r}"
                )
            if definition.is_relation:
                raise BadRequest(f"fields: {name!r} is a relation; use expand")
            picked.append(definition)
        chosen = tuple(picked)
    expanded = tuple(_relation(caller, content_type, name, "expand") for name in expand)
    linked = tuple(_relation(caller, content_type, name, "links") for name in links)
    if fields is None:
        link_fields = tuple(
            f for f in content_type.relation_fields if caller.grants(f.target or "")
        )
    else:
        link_fields = tuple(dict.fromkeys((*expanded, *linked)))
    return Selection(
        value_fields=chosen, all_values=fields is None, expand=expanded, link_fields=link_fields
    )
