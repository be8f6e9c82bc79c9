"""The adapter's custom scalars: `JSON` (any JSON value) and `Long` (a signed 64-bit integer).

GraphQL's `Int` is 32-bit, while an `integer` field holds any signed 64-bit value; `Long`
carries those as JSON numbers, like REST does. Both refuse what REST's body parsing would refuse
(a `Long` must be a whole number in range, never a string or a boolean), so a value that cannot
be written through REST cannot be written through GraphQL either.
"""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError, IntValueNode, Undefined, ValueNode, value_from_ast_untyped

from content_service.content.values import INT_MAX, INT_MIN

JSON_DESCRIPTION = (
    "Any JSON value: a `json` field's value, or the `value` of a filter condition (the REST "
    "filter grammar taken verbatim)."
)
LONG_DESCRIPTION = (
    "A signed 64-bit integer (an `integer` field), sent as a JSON number. Clients in "
    "JavaScript lose precision beyond 2^53."
)


def json_identity(value: Any) -> Any:
    return value


def json_literal(node: ValueNode, variables: dict[str, Any] | None = None) -> Any:
    return value_from_ast_untyped(node, variables)


def _in_range(value: int) -> bool:
    return INT_MIN <= value <= INT_MAX


def long_serialize(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not _in_range(value):
        raise GraphQLError(f"Long cannot represent {type(value).__name__} value")
    return value


def long_value(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphQLError("Long must be a whole number (a JSON integer)")
    if not _in_range(value):
        raise GraphQLError("Long must fit in a signed 64-bit integer")
    return value


def long_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> Any:
    if isinstance(node, IntValueNode):
        value = int(node.value)
        if _in_range(value):
            return value
    return Undefined
