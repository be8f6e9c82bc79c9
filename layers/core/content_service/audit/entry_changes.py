"""What an entry write changed, by field name, for its audit record.

`{"fields": [names], "values": {name: new value}}`: the fields whose value or links differ
between the version before and the version written (every field set, for a create), and
`audiences` when those changed. A value whose JSON is over `MAX_VALUE_BYTES` (a long rich
text) is named but left out of `values`, so a record stays far below DynamoDB's item limit.
Entry fields hold content, never credentials, so every other value is shown.
"""

from __future__ import annotations

import json
from typing import Any

from content_service.content.entries import StoredEntry
from content_service.content.schema import ContentType
from content_service.storage.json_values import plain

MAX_VALUE_BYTES = 1024


def _by_name(content_type: ContentType, entry: StoredEntry | None) -> dict[str, Any]:
    """The entry's values and links under their field names (fields it does not set left out)."""
    if entry is None:
        return {}
    named: dict[str, Any] = {}
    for key, value in entry.values.items():
        definition = content_type.field_by_key(key)
        if definition is not None and value is not None:
            named[definition.name] = plain(value)
    for key, targets in entry.links.items():
        definition = content_type.field_by_key(key)
        if definition is not None and targets:
            named[definition.name] = list(targets)
    return named


def entry_changes(
    content_type: ContentType, before: StoredEntry | None, after: StoredEntry
) -> dict[str, Any] | None:
    """The changed fields and their new values; None when no field changed (a publish)."""
    old, new = _by_name(content_type, before), _by_name(content_type, after)
    names = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    before_audiences = tuple(before.audiences) if before is not None else ()
    if before_audiences != tuple(after.audiences):
        names.append("audiences")
        new["audiences"] = list(after.audiences)
    if not names:
        return None
    shown: dict[str, Any] = {}
    for name in names:
        value = new.get(name)
        if len(json.dumps(value, default=str).encode("utf-8")) <= MAX_VALUE_BYTES:
            shown[name] = value
    return {"fields": names, "values": shown}
