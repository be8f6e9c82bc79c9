"""How many entries each content type holds, by state: what the admin's content overview shows.

The counts are the list index's own count items (`content.lists.list_index`), the numbers lists
answer as `total`: for every type, every locale it has entries in, and each state the caller
may see (draft, published, changed; a read token counts the published versions it reads),
read together in one BatchGetItem per 100 keys (12 keys per type and locale), never one list
per type. Entries in the trash are the rest of the type's `entryCount`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from content_service.content.entries import STATUSES
from content_service.content.lists.list_keys import COUNT_SK, Visibility, count_pks
from content_service.content.requests import DEFAULT_LOCALE
from content_service.content.schema import ContentType, list_types
from content_service.content.store import store
from content_service.identity.principal import Caller
from content_service.storage import dynamo


@dataclass(frozen=True)
class StateCounts:
    """One content type's entries by state, over all its locales."""

    content_type: ContentType
    published: int
    """Entries whose draft equals their published version (for a read token: every entry it
    reads, each in its published version)."""
    draft: int | None
    """None for a caller who does not see drafts (a read token); so are `changed`, `trashed`."""
    changed: int | None
    """Published entries with a newer draft."""
    trashed: int | None

    @property
    def total(self) -> int:
        """The entries the caller can list (the trash excluded)."""
        return self.published + (self.draft or 0) + (self.changed or 0)


def _locales(content_type: ContentType) -> list[str]:
    return sorted(content_type.locales or {DEFAULT_LOCALE})


Want = tuple[Visibility, tuple[str, str] | None]


def _wants(caller: Caller) -> dict[str, Want]:
    """The counts read, by state: the latest versions by status for who sees drafts, the
    published versions for a read token."""
    if not caller.sees_drafts:
        return {"published": ("P", None)}
    return {state: ("A", ("status", state)) for state in STATUSES}


def count_by_state(
    caller: Caller, workspace_id: str, types: Sequence[ContentType] | None = None
) -> list[StateCounts]:
    """The counts of `types` (default: every type the caller may see), in the same order."""
    chosen = list_types(caller, workspace_id) if types is None else list(types)
    wants = _wants(caller)
    owner: dict[str, tuple[str, str]] = {}
    for content_type in chosen:
        for locale in _locales(content_type):
            for state, (view, eq) in wants.items():
                for pk in count_pks(workspace_id, content_type.name, locale, view, eq):
                    owner[pk] = (content_type.name, state)
    found: list[dict[str, Any]] = (
        store().get_many("schema", [dynamo.key(pk, COUNT_SK) for pk in owner]) if owner else []
    )
    sums: dict[tuple[str, str], int] = {}
    for item in found:
        where = owner.get(str(item.get("pk", "")))
        if where is not None:
            sums[where] = sums.get(where, 0) + int(item.get("n", 0))
    return [_counted(caller, content_type, sums) for content_type in chosen]


def _counted(
    caller: Caller, content_type: ContentType, sums: dict[tuple[str, str], int]
) -> StateCounts:
    published = sums.get((content_type.name, "published"), 0)
    if not caller.sees_drafts:
        return StateCounts(content_type, published, None, None, None)
    draft = sums.get((content_type.name, "draft"), 0)
    changed = sums.get((content_type.name, "changed"), 0)
    trashed = max(content_type.entry_count - published - draft - changed, 0)
    return StateCounts(content_type, published, draft, changed, trashed)
