"""What a content type change changed, for its audit record: the fields added, changed or
removed by name, each with its new definition (null once removed), and the type's own
settings (kind, localized, audienceGated, titleField, listShards) when they changed. A type
definition holds no secret, so everything changed is shown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from content_service.content.schema import ContentType, FieldDef


def _settings(content_type: ContentType | None) -> dict[str, Any]:
    if content_type is None:
        return {}
    return {
        "kind": content_type.kind,
        "localized": content_type.localized,
        "audienceGated": content_type.audience_gated,
        "titleField": content_type.title_field,
        "listShards": content_type.list_shards,
    }


def _fields(fields: tuple[FieldDef, ...]) -> dict[str, dict[str, Any]]:
    return {f.name: f.to_json() for f in fields}


def type_changes(before: ContentType | None, after: ContentType) -> dict[str, Any] | None:
    """Field names and settings that differ from `before` (everything, for a new type)."""
    old_fields = _fields(before.fields) if before is not None else {}
    new_fields = _fields(after.fields)
    values: dict[str, Any] = {
        name: new_fields.get(name)
        for name in sorted(old_fields.keys() | new_fields.keys())
        if old_fields.get(name) != new_fields.get(name)
    }
    old_settings, new_settings = _settings(before), _settings(after)
    settings = {k: v for k, v in new_settings.items() if old_settings.get(k) != v}
    return _shown(values, settings)


def _shown(fields: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any] | None:
    if not fields and not settings:
        return None
    return {"fields": sorted(fields), "values": dict(fields), "settings": dict(settings)}
