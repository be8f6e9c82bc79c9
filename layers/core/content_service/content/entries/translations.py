"""The entries of one locale group: an entry and its translations, one per locale.

A group's members are found by their claim items (`GROUP#<ws>#<group>` / `LOCALE#<locale>`,
`content.entries.items`), one per locale the type has ever had an entry in, read in one
BatchGetItem; the entries they name are then read in one more, so that only what the caller may see
(not trashed, visible) is returned.
"""

from __future__ import annotations

from dataclasses import dataclass

from content_service.content.entries.items import group_claim_key, is_entry_id
from content_service.content.entries.reads import load_entries_by_ids
from content_service.content.requests import DEFAULT_LOCALE, parse_view
from content_service.content.schema import require_type
from content_service.content.store import store
from content_service.identity.principal import Caller


@dataclass(frozen=True)
class Translation:
    locale: str
    id: str
    status: str


def locale_group(
    caller: Caller, workspace_id: str, content_type: str, group_id: str
) -> list[Translation]:
    """The visible entries of `group_id`, by locale (sorted); empty for an unknown group."""
    definition = require_type(caller, workspace_id, content_type)
    if not is_entry_id(group_id):
        return []
    locales = sorted(definition.locales | {DEFAULT_LOCALE})
    claims = store().get_many(
        "content",
        [group_claim_key(workspace_id, group_id, locale) for locale in locales],
    )
    ids = {
        str(item["entryId"]): str(item["sk"]).removeprefix("LOCALE#")
        for item in claims
        if item.get("contentType") == content_type and item.get("entryId")
    }
    entries = load_entries_by_ids(
        caller, workspace_id, definition, list(ids), fields=(), view=parse_view(caller, None)
    )
    return sorted(
        (Translation(entry.locale, entry.id, entry.status) for entry in entries.values()),
        key=lambda t: t.locale,
    )
