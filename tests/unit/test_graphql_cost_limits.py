"""Cost counting (docs/graphql.md, "Cost limits"), against the worked examples in
tests/vectors/graphql-cost.json."""

from __future__ import annotations

import time
from typing import Any

import pytest
from graphql import build_schema, parse

from content_service.graphql.cost_limits import (
    Cost,
    CostLimitExceeded,
    CostModel,
    check_length,
    measure,
)
from content_service.settings import GraphQLLimits
from tests.support.graphql import nested_parents
from tests.support.vectors import vectors

VECTORS = vectors("graphql-cost.json")
UNLIMITED = GraphQLLimits(
    max_query_length=10**9, max_depth=10**9, max_fields=10**9, max_complexity=10**12
)


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _camel(name: str) -> str:
    pascal = _pascal(name)
    return pascal[0].lower() + pascal[1:]


def _sdl(model: dict[str, Any]) -> str:
    """The vectors' model as SDL, shaped like the adapter's schema (docs/graphql.md)."""
    scalar_types = {"string": "String", "richtext": "String", "integer": "Int"}
    lines = [
        "scalar JSON",
        "enum FilterOp { eq ne lt lte gt gte in nin contains startsWith isNull }",
        "input Filter { and: [Filter!] or: [Filter!] field: String op: FilterOp value: JSON }",
    ]
    query = []
    for name, spec in model.items():
        type_name = _pascal(name)
        fields = ["id: ID!"]
        for field, kind in spec["fields"].items():
            if kind.startswith("relation"):
                _, cardinality, target = kind.split()
                target_type = _pascal(target)
                if cardinality.endswith("-to-many"):
                    fields.append(f"{field}(page: Int, pageSize: Int): [{target_type}!]!")
                else:
                    fields.append(f"{field}: {target_type}")
            else:
                fields.append(f"{field}: {scalar_types[kind]}")
        lines.append(f"type {type_name} {{ {' '.join(fields)} }}")
        if spec["kind"] == "single":
            query.append(f"{_camel(name)}(locale: String): {type_name}")
        else:
            lines.append(f"type {type_name}List {{ items: [{type_name}!]! total: Int! }}")
            query.append(f"{_camel(name)}(id: ID!): {type_name}")
            query.append(
                f"{_camel(name)}s(page: Int, pageSize: Int, sort: String, filter: Filter, "
                f"locale: String): {type_name}List!"
            )
    lines.append(f"type Query {{ {' '.join(query)} }}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def model() -> CostModel:
    schema = build_schema(_sdl(VECTORS["model"]))
    return CostModel(schema, [_pascal(name) for name in VECTORS["model"]])


@pytest.mark.parametrize("vector", VECTORS["documents"], ids=lambda v: v["query"][:60])
def test_vector_figures(model: CostModel, vector: dict[str, Any]) -> None:
    cost = measure(parse(vector["query"]), model, UNLIMITED)
    assert cost == Cost(vector["depth"], vector["fields"], vector["complexity"])


@pytest.mark.parametrize("vector", VECTORS["documents"], ids=lambda v: v["query"][:60])
def test_vector_verdict_under_default_limits(model: CostModel, vector: dict[str, Any]) -> None:
    if vector["refusedByDefaults"]:
        with pytest.raises(CostLimitExceeded):
            measure(parse(vector["query"]), model, GraphQLLimits())
    else:
        measure(parse(vector["query"]), model, GraphQLLimits())


def test_each_limit_accepts_at_and_refuses_just_over(model: CostModel) -> None:
    at_depth = parse(nested_parents(8, "sections"))
    assert measure(at_depth, model, GraphQLLimits()).depth == 8
    with pytest.raises(CostLimitExceeded) as too_deep:
        measure(parse(nested_parents(9, "sections")), model, GraphQLLimits())
    assert too_deep.value.code == "TOO_DEEP"

    def aliases(count: int) -> str:
        return "{ " + " ".join(f"a{i}: __typename" for i in range(count)) + " }"

    assert measure(parse(aliases(500)), model, GraphQLLimits()).fields == 500
    with pytest.raises(CostLimitExceeded) as too_many:
        measure(parse(aliases(501)), model, GraphQLLimits())
    assert too_many.value.code == "TOO_MANY_FIELDS"

    def flat(records: int) -> str:
        pages = [f"a{i}: authors(pageSize: 100) {{ total }}" for i in range(records // 100)]
        rest = [f"b{i}: authors(pageSize: 1) {{ total }}" for i in range(records % 100)]
        return "{ " + " ".join(pages + rest) + " }"

    assert measure(parse(flat(1000)), model, GraphQLLimits()).complexity == 1000
    with pytest.raises(CostLimitExceeded) as too_complex:
        measure(parse(flat(1001)), model, GraphQLLimits())
    assert too_complex.value.code == "TOO_COMPLEX"

    check_length("x" * 16384, GraphQLLimits())
    with pytest.raises(CostLimitExceeded) as too_long:
        check_length("x" * 16385, GraphQLLimits())
    assert too_long.value.code == "QUERY_TOO_LONG"


def test_page_size_from_variables_is_multiplied(model: CostModel) -> None:
    document = parse(
        "query($n: Int) { blogPosts(pageSize: $n) { items { tags(pageSize: $n) { name } } } }"
    )
    assert measure(document, model, UNLIMITED, {"n": 30}).complexity == 30 + 30 * 30
    assert measure(document, model, UNLIMITED, {}).complexity == 25 + 25 * 25


def test_filter_by_id_in_a_variable_counts_one(model: CostModel) -> None:
    document = parse("query($f: Filter) { blogPosts(filter: $f) { items { title } } }")
    by_id = {"and": [{"field": "id", "op": "eq", "value": "x"}]}
    by_group = {"field": "localeGroupId", "op": "eq", "value": "x"}
    by_title = {"and": [{"field": "title", "op": "eq", "value": "x"}]}
    or_id = {"or": [{"field": "id", "op": "eq", "value": "x"}, {"field": "id", "op": "eq"}]}
    assert measure(document, model, UNLIMITED, {"f": by_id}).complexity == 1
    assert measure(document, model, UNLIMITED, {"f": by_group}).complexity == 1
    assert measure(document, model, UNLIMITED, {"f": by_title}).complexity == 25
    assert measure(document, model, UNLIMITED, {"f": or_id}).complexity == 25


def test_a_condition_on_a_linked_entrys_field_adds_the_targets_it_may_list(
    model: CostModel,
) -> None:
    """Each `relation.field` condition first lists up to 100 targets, whatever the page."""
    document = parse("query($f: Filter) { blogPosts(filter: $f) { items { title } } }")
    city = {"field": "author.city", "op": "eq", "value": "Berlin"}
    title = {"field": "title", "op": "eq", "value": "x"}
    twice = {"or": [city, {"and": [title, {"field": "tags.name", "op": "eq", "value": "x"}]}]}
    by_id = {"and": [{"field": "id", "op": "eq", "value": "x"}, city]}
    assert measure(document, model, UNLIMITED, {"f": city}).complexity == 25 + 100
    assert measure(document, model, UNLIMITED, {"f": twice}).complexity == 25 + 200
    assert measure(document, model, UNLIMITED, {"f": by_id}).complexity == 1 + 100
    assert measure(document, model, UNLIMITED, {"f": title}).complexity == 25
    with pytest.raises(CostLimitExceeded) as refused:
        measure(document, model, GraphQLLimits(max_complexity=124), {"f": city})
    assert refused.value.code == "TOO_COMPLEX"


def test_fragment_cycles_are_refused_without_recursing_forever(model: CostModel) -> None:
    for query in (
        "{ blogPosts { items { ...A } } } fragment A on BlogPost { title ...A }",
        "{ blogPosts { items { ...A } } } fragment A on BlogPost { ...B } "
        "fragment B on BlogPost { author { name } ...A }",
    ):
        with pytest.raises(CostLimitExceeded) as refused:
            measure(parse(query), model, UNLIMITED)
        assert refused.value.code == "FRAGMENT_CYCLE"


def test_aliases_inside_a_fragment_multiply_by_its_spreads(model: CostModel) -> None:
    fragment = "fragment F on BlogPost { " + " ".join(f"t{i}: title" for i in range(10)) + " }"
    spreads = " ".join("...F" for _ in range(10))
    query = "{ blogPosts(pageSize: 1) { items { " + spreads + " } } } " + fragment
    assert measure(parse(query), model, UNLIMITED).fields == 2 + 100
    with pytest.raises(CostLimitExceeded):
        measure(parse(query), model, GraphQLLimits(max_fields=101))


def test_fragment_bomb_is_refused_early_with_bounded_work(model: CostModel) -> None:
    """Ten fragments each spreading the next ten times would be 10^10 fields if expanded."""
    fragments = [
        f"fragment F{i} on BlogPost {{ " + " ".join(f"...F{i + 1}" for _ in range(10)) + " }"
        for i in range(9)
    ]
    fragments.append("fragment F9 on BlogPost { title }")
    query = "{ blogPosts { items { ...F0 } } } " + " ".join(fragments)
    started = time.process_time()
    with pytest.raises(CostLimitExceeded) as refused:
        measure(parse(query), model, GraphQLLimits())
    assert refused.value.code == "TOO_MANY_FIELDS"
    assert time.process_time() - started < 1.0


def test_one_operation_per_request(model: CostModel) -> None:
    with pytest.raises(CostLimitExceeded) as refused:
        measure(parse("query A { __typename } query B { __typename }"), model, GraphQLLimits())
    assert refused.value.code == "TOO_MANY_OPERATIONS"


def test_introspection_is_exempt_but_other_fields_beside_it_count(model: CostModel) -> None:
    deep_introspection = (
        "{ __schema { types { fields { type { ofType { ofType { ofType { "
        "ofType { ofType { name } } } } } } } } } }"
    )
    assert measure(parse(deep_introspection), model, GraphQLLimits()) == Cost(0, 0, 0)
    mixed = '{ __type(name: "BlogPost") { name } authors(pageSize: 3) { total } }'
    assert measure(parse(mixed), model, GraphQLLimits()) == Cost(2, 2, 3)


def test_unknown_fields_count_as_fields_without_records(model: CostModel) -> None:
    cost = measure(parse("{ nothing { here { at { all } } } }"), model, GraphQLLimits())
    assert cost == Cost(4, 4, 0)


def test_introspection_is_bounded_on_its_own() -> None:
    from graphql import get_introspection_query

    from content_service.graphql.cost_limits import check_introspection

    check_introspection(parse(get_introspection_query(descriptions=True)))
    check_introspection(parse("{ __schema { types { fields { type { fields { name } } } } } }"))
    nested = "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }"
    with pytest.raises(CostLimitExceeded) as too_deep:
        check_introspection(parse(nested))
    assert too_deep.value.code == "INTROSPECTION_TOO_DEEP"
    through_fragments = (
        '{ __type(name: "A") { ...T } } fragment T on __Type { fields { type { ...U } } } '
        "fragment U on __Type { interfaces { fields { name } } }"
    )
    with pytest.raises(CostLimitExceeded) as hidden:
        check_introspection(parse(through_fragments))
    assert hidden.value.code == "INTROSPECTION_TOO_DEEP"
    bomb = "{ __schema { " + " ".join("types { name }" for _ in range(1001)) + " } }"
    with pytest.raises(CostLimitExceeded) as too_large:
        check_introspection(parse(bomb))
    assert too_large.value.code == "INTROSPECTION_TOO_LARGE"
    # Outside introspection nothing is counted here (measure counts it).
    check_introspection(parse("{ " + " ".join(f"a{i}: fields" for i in range(5000)) + " }"))
