"""Lists of one type's entries: the filter grammar, parsed and compiled (`filters`), the sort
and field selection (`query`), a list's plan (`list_plan`), the list index's keys, items and
reads (`list_keys`, `list_index`, `list_index_reads`), lists sorted in memory
(`list_in_memory`), cursors (`list_cursor`), the page itself (`listing`), the background index
job (`list_jobs`) and counts by state (`counts`).

Other packages import only the names below; each loads its module on first use
(`content_service.lazy_exports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .counts import StateCounts, count_by_state
    from .filters import (
        FILTER_OPS,
        MAX_FILTER_DEPTH,
        FilterGroup,
        FilterLeaf,
        FilterNode,
        compile_filter,
        direct_address,
        filter_json,
        parse_filter,
        unfollowed,
    )
    from .list_cursor import MAX_CURSOR_LENGTH, Cursor, Position, decode_cursor, query_digest
    from .list_in_memory import READ_BUDGET
    from .list_index import index_changes, index_state, with_state
    from .list_index_reads import before
    from .list_jobs import reindex_stored, run_jobs
    from .list_keys import (
        AFTER_IDS,
        COUNT_SK,
        TERM,
        Visibility,
        bucket,
        count_pks,
        count_shard_of,
        index_sk,
        shard_of,
        split_sk,
        token,
    )
    from .list_plan import Scope, Served, plan, root_leaves
    from .listing import list_entries
    from .query import DEFAULT_SORT, Selection, select, sort_operand, sort_summaries

__all__ = [
    "AFTER_IDS",
    "COUNT_SK",
    "DEFAULT_SORT",
    "FILTER_OPS",
    "MAX_CURSOR_LENGTH",
    "MAX_FILTER_DEPTH",
    "READ_BUDGET",
    "TERM",
    "Cursor",
    "FilterGroup",
    "FilterLeaf",
    "FilterNode",
    "Position",
    "Scope",
    "Selection",
    "Served",
    "StateCounts",
    "Visibility",
    "before",
    "bucket",
    "compile_filter",
    "count_by_state",
    "count_pks",
    "count_shard_of",
    "decode_cursor",
    "direct_address",
    "filter_json",
    "index_changes",
    "index_sk",
    "index_state",
    "list_entries",
    "parse_filter",
    "plan",
    "query_digest",
    "reindex_stored",
    "root_leaves",
    "run_jobs",
    "select",
    "shard_of",
    "sort_operand",
    "sort_summaries",
    "split_sk",
    "token",
    "unfollowed",
    "with_state",
]

_MODULES = {
    "AFTER_IDS": "list_keys",
    "COUNT_SK": "list_keys",
    "Cursor": "list_cursor",
    "DEFAULT_SORT": "query",
    "FILTER_OPS": "filters",
    "FilterGroup": "filters",
    "FilterLeaf": "filters",
    "FilterNode": "filters",
    "MAX_CURSOR_LENGTH": "list_cursor",
    "MAX_FILTER_DEPTH": "filters",
    "Position": "list_cursor",
    "READ_BUDGET": "list_in_memory",
    "Scope": "list_plan",
    "Selection": "query",
    "Served": "list_plan",
    "StateCounts": "counts",
    "TERM": "list_keys",
    "Visibility": "list_keys",
    "before": "list_index_reads",
    "bucket": "list_keys",
    "compile_filter": "filters",
    "count_by_state": "counts",
    "count_pks": "list_keys",
    "count_shard_of": "list_keys",
    "decode_cursor": "list_cursor",
    "direct_address": "filters",
    "filter_json": "filters",
    "index_changes": "list_index",
    "index_sk": "list_keys",
    "index_state": "list_index",
    "list_entries": "listing",
    "parse_filter": "filters",
    "plan": "list_plan",
    "query_digest": "list_cursor",
    "reindex_stored": "list_jobs",
    "root_leaves": "list_plan",
    "run_jobs": "list_jobs",
    "select": "query",
    "shard_of": "list_keys",
    "sort_operand": "query",
    "sort_summaries": "query",
    "split_sk": "list_keys",
    "token": "list_keys",
    "unfollowed": "filters",
    "with_state": "list_index",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
