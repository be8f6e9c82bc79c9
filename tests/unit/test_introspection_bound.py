"""The answer-size bound of introspection (`graphql/introspection_bound.py`), against what
graphql-core really answers on a schema with every kind of type."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import build_schema, get_introspection_query, graphql_sync, parse, print_ast

from content_service.graphql.cost_limits import CostLimitExceeded
from content_service.graphql.introspection_bound import (
    INTROSPECTION_FACTOR,
    answer_size,
    check_answer_size,
    mentions_introspection,
    standard_query,
    standard_size,
)

SCHEMA = build_schema(
    """
    scalar JSON
    enum Color { RED GREEN BLUE }
    interface Node { id: ID! }
    type Post implements Node { id: ID! title(upper: Boolean = false): String tags: [Tag!]!
                                color: Color meta: JSON }
    type Tag implements Node { id: ID! name: String @deprecated(reason: "use label") }
    union Anything = Post | Tag
    input PostInput { title: String tags: [ID!] nested: PostInput }
    type Query { post(id: ID!): Post posts(first: Int): [Post!]! any: Anything node: Node }
    type Mutation { createPost(input: PostInput!): Post deletePost(id: ID!): Boolean }
    """
)


def values_in(answer: Any) -> int:
    """What the answer holds, counted as the bound counts: every key, every list element."""
    count, stack = 0, [answer]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            count += len(item)
            stack.extend(item)
    return count


DOCUMENTS = {
    "standard": print_ast(standard_query()),
    "graphiql": get_introspection_query(descriptions=True),
    "aliased types": "{ __schema { a: types { name } b: types { name fields { name } } } }",
    "type by name": '{ __type(name: "Post") { name fields { name args { name } } } }',
    "unknown type": '{ __type(name: "Nope") { name } }',
    "every list": (
        "{ __schema { types { enumValues { name } inputFields { name } interfaces { name } "
        "possibleTypes { name } } directives { name locations args { name } } } }"
    ),
    "typename inside": "{ __schema { __typename queryType { __typename name } } }",
    "beside a field": "{ __schema { queryType { name } } posts { id } }",
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_count_bounds_the_real_answer_closely(name: str) -> None:
    document = DOCUMENTS[name]
    answered = graphql_sync(SCHEMA, document, root_value={"posts": []})
    assert not answered.errors, answered.errors
    assert answered.data is not None
    real = values_in({k: v for k, v in answered.data.items() if k.startswith("__")})
    counted = answer_size(parse(document), SCHEMA, {}, None)
    assert real <= counted <= real * 1.15 + 5, (real, counted)


def test_variables_name_the_type() -> None:
    document = parse("query ($t: String!) { __type(name: $t) { name fields { name } } }")
    post = answer_size(document, SCHEMA, {"t": "Post"}, None)
    tag = answer_size(document, SCHEMA, {"t": "Tag"}, None)
    assert post > tag > answer_size(document, SCHEMA, {"t": "Nope"}, None) == 1


def test_three_standard_introspections_fit_and_a_fourth_does_not() -> None:
    limit = INTROSPECTION_FACTOR * standard_size(SCHEMA)
    operation, *fragments = standard_query().definitions
    schema_field = print_ast(operation.selection_set.selections[0])  # type: ignore[attr-defined]

    def copies(count: int) -> Any:
        aliased = " ".join(f"c{i}: {schema_field}" for i in range(count))
        return parse("{ " + aliased + " } " + " ".join(print_ast(f) for f in fragments))

    check_answer_size(copies(3), SCHEMA, {}, lambda: limit)
    with pytest.raises(CostLimitExceeded) as refused:
        check_answer_size(copies(4), SCHEMA, {}, lambda: limit)
    assert refused.value.code == "INTROSPECTION_TOO_LARGE"


def test_the_count_stops_at_the_limit() -> None:
    """However large the answer would be, the count stops one value past the limit."""
    bomb = parse(
        "{ "
        + " ".join(f"s{i}: __schema {{ types {{ fields {{ name }} }} }}" for i in range(500))
        + " }"
    )
    assert answer_size(bomb, SCHEMA, {}, None) > 10_000
    with pytest.raises(CostLimitExceeded):
        check_answer_size(bomb, SCHEMA, {}, lambda: 100)


def test_fragment_cycles_and_type_conditions_do_not_loop() -> None:
    document = parse(
        "{ __schema { types { ...A } } } "
        "fragment A on __Type { name ...B ... on __Type { kind } } "
        "fragment B on __Type { fields { name } ...A }"
    )
    assert answer_size(document, SCHEMA, {}, None) > 0


def test_the_limit_is_only_asked_for_documents_that_introspect() -> None:
    def never() -> int:
        raise AssertionError("the limit was computed for a document without introspection")

    check_answer_size(parse("{ posts { id } }"), SCHEMA, {}, never)
    assert not mentions_introspection(parse("{ posts { id } } fragment F on Post { id }"))
    assert mentions_introspection(
        parse('{ ...F } fragment F on Query { __type(name: "P") { name } }')
    )
    assert mentions_introspection(parse("{ posts { ... on Post { __schema { description } } } }"))
