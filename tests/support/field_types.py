"""Content type field bodies (what `POST /api/v1/content-types` takes): one field of every
type, and relation fields."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from content_service.content.schema import FIELD_TYPES

NAMES: dict[str, str] = {
    "string": "title",
    "text": "summary",
    "richtext": "body",
    "integer": "views",
    "float": "rating",
    "boolean": "featured",
    "datetime": "published_on",
    "date": "day",
    "enum": "mood",
    "json": "meta",
}


def relation(name: str, target: str, cardinality: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": "relation", "target": target, "cardinality": cardinality, **extra}


def every_field_type(
    *,
    enum_values: Sequence[str] = ("happy", "sad"),
    relations: Sequence[dict[str, Any]] = (),
    **names: str | None,
) -> list[dict[str, Any]]:
    """One field of each type but relation, in the order the service lists the types, named
    as in NAMES unless `names` renames a type's field (`integer="rank"`) or leaves it out
    (`date=None`); the string field is required. Then `relations`."""
    unknown = set(names) - set(NAMES)
    assert not unknown, f"not a field type with a value: {sorted(unknown)}"
    fields: list[dict[str, Any]] = []
    for kind in FIELD_TYPES:
        name = names.get(kind, NAMES.get(kind))
        if name is None:
            continue
        field: dict[str, Any] = {"name": name, "type": kind}
        if kind == "string":
            field["required"] = True
        if kind == "enum":
            field["values"] = list(enum_values)
        fields.append(field)
    return [*fields, *relations]
