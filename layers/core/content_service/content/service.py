"""The content service: the one entry point REST routes and GraphQL resolvers call.

Each function takes a request object (`content_service.content.requests`) carrying the caller
and the workspace, applies the same visibility rules, and raises `ServiceError`s that both
protocols render (REST as its status, GraphQL in `errors[].extensions`). Nothing else in a
protocol adapter touches storage.

Reads: `list_entries`, `get_entry`, `list_related`, `linked_from` (what links an entry), and
for batched GraphQL resolution `load_entries_by_ids`; each reads the latest versions or the
published ones (`view`). For the admin pages, `count_by_state` (every type's entries by state)
and `locale_group` (an entry's translations). Writes (one transaction and one event each):
`create_entry`, `update_entry`, `publish_entry`, `unpublish_entry`, `discard_changes`,
`delete_entry`, `restore_entry`, `purge_entry`, `restore_version`. History: `list_versions`,
`get_version`. Scheduled publishing: `create_schedule`, `list_schedules`, `cancel_schedule`
(the scheduler runs them when due). Content types: `list_types`, `require_type`, `create_type`,
`replace_type`, `delete_type`, and `visible_schema` / `schema_version` for the GraphQL schema
cache.
"""

from __future__ import annotations

from content_service.content.entries import (
    Translation,
    get_entry,
    list_related,
    load_entries_by_ids,
    locale_group,
)
from content_service.content.lists import StateCounts, count_by_state, list_entries
from content_service.content.relations import linked_from
from content_service.content.schema import (
    create_type,
    delete_type,
    get_schema,
    list_types,
    replace_type,
    require_type,
    schema_version,
    schema_version_key,
    types_relating_to,
    version_of,
    visible_schema,
)
from content_service.content.writes import (
    cancel_schedule,
    create_entry,
    create_schedule,
    delete_entry,
    discard_changes,
    get_version,
    list_schedules,
    list_versions,
    publish_entry,
    purge_entry,
    restore_entry,
    restore_version,
    unpublish_entry,
    update_entry,
)

__all__ = [
    "StateCounts",
    "Translation",
    "cancel_schedule",
    "count_by_state",
    "create_entry",
    "create_schedule",
    "create_type",
    "delete_entry",
    "delete_type",
    "discard_changes",
    "get_entry",
    "get_schema",
    "get_version",
    "linked_from",
    "list_entries",
    "list_related",
    "list_schedules",
    "list_types",
    "list_versions",
    "load_entries_by_ids",
    "locale_group",
    "publish_entry",
    "purge_entry",
    "replace_type",
    "require_type",
    "restore_entry",
    "restore_version",
    "schema_version",
    "schema_version_key",
    "types_relating_to",
    "unpublish_entry",
    "update_entry",
    "version_of",
    "visible_schema",
]
