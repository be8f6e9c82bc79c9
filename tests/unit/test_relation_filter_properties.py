"""Relation filters (docs/content.md, "Filter, sort, fields, paging") over random link sets.

Entries get random links, their summaries go through the JSON they are stored as, and every
relation operator, alone or inside `and`/`or`, is compared with a model written here from the
documentation: a to-one field is an id or nothing, a to-many field a set of ids.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from content_service.content.entries import summary_from, summary_text
from content_service.content.lists import compile_filter, parse_filter
from content_service.content.schema import ContentType, FieldDef
from harness.seeding import stored_entry

FIELDS = (
    FieldDef(name="title", type="string", key="f1"),
    FieldDef(name="author", type="relation", key="f2", target="author", cardinality="many-to-one"),
    FieldDef(name="tags", type="relation", key="f3", target="tag", cardinality="many-to-many"),
)
TYPE = ContentType.defined("w", "post", FIELDS, "title")
POOL = tuple(str(uuid.UUID(int=n)) for n in range(1, 6))
Links = tuple[str | None, frozenset[str]]

ids = st.sampled_from(POOL)
id_lists = st.lists(ids, min_size=1, max_size=len(POOL))
to_one = st.one_of(
    st.fixed_dictionaries(
        {"field": st.just("author"), "op": st.sampled_from(["eq", "ne"]), "value": ids}
    ),
    st.fixed_dictionaries(
        {"field": st.just("author"), "op": st.sampled_from(["in", "nin"]), "value": id_lists}
    ),
)
to_many = st.one_of(
    st.fixed_dictionaries({"field": st.just("tags"), "op": st.just("contains"), "value": ids}),
    st.fixed_dictionaries(
        {
            "field": st.just("tags"),
            "op": st.sampled_from(["containsAny", "containsAll"]),
            "value": id_lists,
        }
    ),
)
is_null = st.fixed_dictionaries(
    {"field": st.sampled_from(["author", "tags"]), "op": st.just("isNull"), "value": st.booleans()}
)
leaves = st.one_of(to_one, to_many, is_null)
conditions = st.one_of(
    leaves,
    st.tuples(st.sampled_from(["and", "or"]), st.lists(leaves, min_size=1, max_size=3)).map(
        lambda group: {group[0]: group[1]}
    ),
)
link_sets = st.tuples(st.none() | ids, st.lists(ids, unique=True, max_size=len(POOL)))


def model(condition: dict[str, Any], links: Links) -> bool:
    """What the documentation says the condition matches, for an entry linking `links`."""
    if "and" in condition:
        return all(model(c, links) for c in condition["and"])
    if "or" in condition:
        return any(model(c, links) for c in condition["or"])
    author, tags = links
    op, value = condition["op"], condition["value"]
    if op == "isNull":
        return (not tags if condition["field"] == "tags" else author is None) is value
    if op in ("eq", "ne"):  # `ne` matches an entry that links nothing, as for scalars
        return (author == value) is (op == "eq")
    if op in ("in", "nin"):
        return (author in value) is (op == "in")
    if op == "contains":
        return value in tags
    if op == "containsAny":
        return bool(tags & set(value))
    return set(value) <= tags


@given(condition=conditions, entries=st.lists(link_sets, max_size=8))
def test_a_relation_filter_matches_what_the_model_matches(
    condition: dict[str, Any], entries: list[tuple[str | None, list[str]]]
) -> None:
    predicate = compile_filter(TYPE, parse_filter(json.dumps(condition)))
    for n, (author, tags) in enumerate(entries):
        entry = stored_entry(
            "w",
            TYPE,
            {"f1": "t"},
            entry_id=str(uuid.UUID(int=1000 + n)),
            stamp="2026-01-01T00:00:00.000Z",
            links_by_key={"f2": [author] if author else [], "f3": tags},
        )
        summary = summary_from(summary_text(TYPE, entry))
        expected = model(condition, (author, frozenset(tags)))
        assert predicate(summary) == expected, (condition, author, tags)
