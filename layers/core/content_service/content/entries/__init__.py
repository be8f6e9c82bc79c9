"""Entries as stored and as read: the storage shape of entries and their claim items (`items`),
who sees which entry (`visibility`), what the service returns (`views`, `asset_views`), reading
one entry, relation pages and expansions (`reads`) and a locale group (`translations`).

Other packages import only the names below; each loads its module on first use
(`content_service.lazy_exports`), so a sub-package that needs `items` does not load `reads`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .asset_views import file_of, file_path, file_url
    from .items import (
        MAX_ITEM_BYTES,
        PUBLISHED_SK,
        STATUSES,
        VERSION_SK_PREFIX,
        Status,
        StoredEntry,
        Summary,
        View,
        content_digest,
        entry_item,
        entry_key,
        entry_pk,
        from_item,
        group_claim_key,
        item_size,
        link_claim_key,
        plain_value,
        projection_paths,
        published_item,
        published_key,
        single_claim_key,
        summary_from,
        summary_of,
        summary_text,
        title_of,
        version_key,
        version_sk,
    )
    from .reads import (
        entry_views,
        fetch_entries,
        fetch_one,
        get_entry,
        list_related,
        load_entries_by_ids,
        stored_visible,
        summary_visible,
    )
    from .translations import Translation, locale_group
    from .views import Entry, EntryPage, entry_view, written
    from .visibility import audiences_allow

__all__ = [
    "MAX_ITEM_BYTES",
    "PUBLISHED_SK",
    "STATUSES",
    "VERSION_SK_PREFIX",
    "Entry",
    "EntryPage",
    "Status",
    "StoredEntry",
    "Summary",
    "Translation",
    "View",
    "audiences_allow",
    "content_digest",
    "entry_item",
    "entry_key",
    "entry_pk",
    "entry_view",
    "entry_views",
    "fetch_entries",
    "fetch_one",
    "file_of",
    "file_path",
    "file_url",
    "from_item",
    "get_entry",
    "group_claim_key",
    "item_size",
    "link_claim_key",
    "list_related",
    "load_entries_by_ids",
    "locale_group",
    "plain_value",
    "projection_paths",
    "published_item",
    "published_key",
    "single_claim_key",
    "stored_visible",
    "summary_from",
    "summary_of",
    "summary_text",
    "summary_visible",
    "title_of",
    "version_key",
    "version_sk",
    "written",
]

_MODULES = {
    "Entry": "views",
    "EntryPage": "views",
    "MAX_ITEM_BYTES": "items",
    "PUBLISHED_SK": "items",
    "STATUSES": "items",
    "Status": "items",
    "StoredEntry": "items",
    "Summary": "items",
    "Translation": "translations",
    "VERSION_SK_PREFIX": "items",
    "View": "items",
    "audiences_allow": "visibility",
    "content_digest": "items",
    "entry_item": "items",
    "entry_key": "items",
    "entry_pk": "items",
    "entry_view": "views",
    "entry_views": "reads",
    "fetch_entries": "reads",
    "fetch_one": "reads",
    "file_of": "asset_views",
    "file_path": "asset_views",
    "file_url": "asset_views",
    "from_item": "items",
    "get_entry": "reads",
    "group_claim_key": "items",
    "item_size": "items",
    "link_claim_key": "items",
    "list_related": "reads",
    "load_entries_by_ids": "reads",
    "locale_group": "translations",
    "plain_value": "items",
    "projection_paths": "items",
    "published_item": "items",
    "published_key": "items",
    "single_claim_key": "items",
    "stored_visible": "reads",
    "summary_from": "items",
    "summary_of": "items",
    "summary_text": "items",
    "summary_visible": "reads",
    "title_of": "items",
    "version_key": "items",
    "version_sk": "items",
    "written": "views",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
