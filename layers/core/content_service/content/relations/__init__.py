"""Relations between entries: the reverse-link index (`link_refs`) and its reindex
(`link_reindex`), what links here (`linkers`), lists of the entries linking one entry
(`list_by_link`), filters on a linked entry's field resolved to ids (`linked_field_filters`;
conditions on a relation field itself are the filter grammar's, `lists.filters`), and planning
a relation's first targets (`relation_planner`).

Other packages import only the names below; each loads its module on first use
(`content_service.lazy_exports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .link_refs import Link, Source, changes, held
    from .link_reindex import reindex_links
    from .linked_field_filters import MAX_LINKED_MATCHES, resolve_linked
    from .linkers import LinkedFromRequest, LinkerPage, linked_from, published_linkers
    from .list_by_link import by_link, link_address
    from .relation_planner import Targets, from_known

__all__ = [
    "MAX_LINKED_MATCHES",
    "Link",
    "LinkedFromRequest",
    "LinkerPage",
    "Source",
    "Targets",
    "by_link",
    "changes",
    "from_known",
    "held",
    "link_address",
    "linked_from",
    "published_linkers",
    "reindex_links",
    "resolve_linked",
]

_MODULES = {
    "Link": "link_refs",
    "LinkedFromRequest": "linkers",
    "LinkerPage": "linkers",
    "MAX_LINKED_MATCHES": "linked_field_filters",
    "Source": "link_refs",
    "Targets": "relation_planner",
    "by_link": "list_by_link",
    "changes": "link_refs",
    "from_known": "relation_planner",
    "held": "link_refs",
    "link_address": "list_by_link",
    "linked_from": "linkers",
    "published_linkers": "linkers",
    "reindex_links": "link_reindex",
    "resolve_linked": "linked_field_filters",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
