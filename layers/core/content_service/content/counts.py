"""How many entries each content type holds, by state: what the admin's content overview shows.

The counts are the list index's own count items (`content.list_index`), the numbers lists
answer as `total`: for every type, every locale it has entries in, and each state the caller
may see, read together in one BatchGetItem per 100 keys (8 keys per type and locale), never
one list per type. Entries in the trash are the rest of the type's `entryCount`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from content_service.content.list_keys import COUNT_SK, Visibility, count_pks
from content_service.content.model import ContentType
from content_service.content.requests import DEFAULT_LOCALE
from content_service.content.schema import list_types
from content_service.identity.principal import Caller
from content_service.storage import dynamo


@dataclass(frozen=True)
class StateCounts:
    """One content type's entries by state, over all its locales."""

    content_type: ContentType
    published: int
    draft: int | None
    """None for a caller who does not see drafts (a read token)."""
    trashed: int | None
    """Entries in the trash; None, like `draft`, for a caller who does not see drafts."""

    @property
    def total(self) -> int:
        """The entries the caller can list (the trash excluded)."""
        return self.published + (self.draft or 0)


def _locales(content_type: ContentType) -> list[str]:
    return sorted(content_type.locales or {DEFAULT_LOCALE})


def count_by_state(
    caller: Caller, workspace_id: str, types: Sequence[ContentType] | None = None
) -> list[StateCounts]:
    """The counts of `types` (default: every type the caller may see), in the same order."""
    chosen = list_types(caller, workspace_id) if types is None else list(types)
    states: tuple[Visibility, ...] = ("P", "D") if caller.sees_drafts else ("P",)
    owner: dict[str, tuple[str, Visibility]] = {}
    for content_type in chosen:
        for locale in _locales(content_type):
            for state in states:
                for pk in count_pks(workspace_id, content_type.name, locale, state):
                    owner[pk] = (content_type.name, state)
    found: list[dict[str, Any]] = (
        dynamo.batch_get(dynamo.tables().schema, [dynamo.key(pk, COUNT_SK) for pk in owner])
        if owner
        else []
    )
    sums: dict[tuple[str, Visibility], int] = {}
    for item in found:
        where = owner.get(str(item.get("pk", "")))
        if where is not None:
            sums[where] = sums.get(where, 0) + int(item.get("n", 0))
    counted = []
    for content_type in chosen:
        published = sums.get((content_type.name, "P"), 0)
        draft = sums.get((content_type.name, "D"), 0) if caller.sees_drafts else None
        trashed = (
            max(content_type.entry_count - published - draft, 0) if draft is not None else None
        )
        counted.append(StateCounts(content_type, published, draft, trashed))
    return counted
