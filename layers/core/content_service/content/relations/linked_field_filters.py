"""Filters on a linked entry's field, one level deep: `{"field": "author.city", "op": "eq",
"value": "Berlin"}`.

The condition is first asked of the target type's list, as the same caller in the same view,
so a linked entry the caller cannot see (a draft for a read token, another audience, an
ungranted type) never matches. A link names an entry whatever its locale (a `de` post links
the one `en` entry of a type that is not localized), so the target list is asked in every
locale the target type holds, not in the source list's. The ids found then replace the
condition: `in` on a to-one relation, `containsAny` on a to-many one (the ids travel as a
tuple, which no JSON filter can hold, so an empty match is allowed and matches nothing).
More than `MAX_LINKED_MATCHES` targets in all is 400 asking for a narrower filter: the ids
would not fit the `in` bound, and reading every target to filter the sources is the slow scan
this refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from content_service.content.entries import EntryPage
from content_service.content.lists import (
    FilterGroup,
    FilterLeaf,
    FilterNode,
    compile_filter,
    unfollowed,
)
from content_service.content.requests import ListRequest
from content_service.content.schema import ContentType, require_type
from content_service.errors import BadRequest, NotFound

MAX_LINKED_MATCHES = 100

Lister = Callable[[ListRequest], EntryPage]


def resolve_linked(request: ListRequest, content_type: ContentType, lister: Lister) -> ListRequest:
    """`request` with each `relation.field` condition replaced by the ids that match it, and
    each condition on a relation the caller may not follow decided for it
    (`relation_filters.unfollowed`)."""
    if request.filter is None:
        return request
    resolved = _rewrite(request.filter, request, content_type, lister)
    if resolved == request.filter:
        return request
    return replace(request, filter=resolved, asked_filter=request.filter)


def _rewrite(
    node: FilterNode, request: ListRequest, content_type: ContentType, lister: Lister
) -> FilterNode:
    if isinstance(node, FilterGroup):
        children = tuple(_rewrite(c, request, content_type, lister) for c in node.children)
        return FilterGroup(node.op, children)
    if "." in node.field:
        return _resolved_leaf(node, request, content_type, lister)
    definition = content_type.field(node.field)
    if definition is None or not definition.is_relation:
        return node
    if request.caller.grants(definition.target or ""):
        return node
    return unfollowed(definition, node)


def _resolved_leaf(
    leaf: FilterLeaf, request: ListRequest, content_type: ContentType, lister: Lister
) -> FilterLeaf:
    name, _, target_field = leaf.field.partition(".")
    definition = content_type.field(name)
    if definition is None or not definition.is_relation or not definition.target:
        raise BadRequest(
            f"filter: {leaf.field!r}: content type {content_type.name!r} has no relation "
            f"field {name!r} (a dotted field names a relation and a field of its target)"
        )
    ids = _matching_targets(leaf, definition.target, target_field, request, lister)
    return FilterLeaf(name, "in" if definition.to_one else "containsAny", ids)


def _matching_targets(
    leaf: FilterLeaf, target: str, target_field: str, request: ListRequest, lister: Lister
) -> tuple[str, ...]:
    """The ids of the targets the caller can see that match the condition, in its view."""
    condition = FilterLeaf(target_field, leaf.op, leaf.value)
    try:
        target_type = require_type(request.caller, request.workspace_id, target)
        compile_filter(target_type, condition)  # refused even while the target has no entry
        locales = sorted(target_type.locales)
        pages = [lister(_target_list(request, target, condition, locale)) for locale in locales]
    except NotFound:
        return ()  # a target type the caller cannot see: nothing of it matches
    except BadRequest as refused:
        raise BadRequest(f"filter: {leaf.field!r}: {refused.message}") from None
    total = sum(page.total for page in pages)
    if total > MAX_LINKED_MATCHES:
        raise BadRequest(
            f"filter: {leaf.field!r} matches {total} {target} entries, more than "
            f"{MAX_LINKED_MATCHES}; narrow the condition on {target_field!r}"
        )
    return tuple(entry.id for page in pages for entry in page.items)


def _target_list(
    request: ListRequest, target: str, condition: FilterLeaf, locale: str
) -> ListRequest:
    """The target type's list of one locale that the condition asks, as the caller reads."""
    return ListRequest(
        caller=request.caller,
        workspace_id=request.workspace_id,
        content_type=target,
        page_size=MAX_LINKED_MATCHES,
        filter=condition,
        fields=(),
        locale=locale,
        view=request.view,
    )
