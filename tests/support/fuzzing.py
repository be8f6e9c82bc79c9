"""What the fuzzers (`tests/fuzz`) share: their budget and the seeded workspace.

Without `FUZZ_EXAMPLES` (the quick run of `make test`) each operation and property gets
QUICK_EXAMPLES generated examples. With it (`make fuzz` sets 200) each gets that many, and the
schemathesis tests add its coverage phase: the boundary and invalid values of every parameter,
a few hundred more requests per operation. Generation is derandomized, so a run is repeatable
and `make test` is not flaky.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx
from hypothesis import HealthCheck, settings

from content_service.content.schema import FieldDef
from tests.support.content import create, define, publish
from tests.support.field_types import every_field_type, relation
from tests.support.filter_grammar import Operand, operands

QUICK_EXAMPLES = 10


def examples() -> int:
    return int(os.environ.get("FUZZ_EXAMPLES") or QUICK_EXAMPLES)


def schemathesis_phases() -> list[str]:
    if os.environ.get("FUZZ_EXAMPLES"):
        return ["examples", "coverage", "fuzzing"]
    return ["examples", "fuzzing"]


FUZZ = settings(
    max_examples=examples(),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)


def stack_properties(quick_examples: int) -> settings:
    """The settings of a property test against the local stack with function-scoped fixtures:
    `FUZZ_EXAMPLES` examples (else `quick_examples`), derandomized, no deadline (the stack's
    pace is not the property's)."""
    return settings(
        max_examples=int(os.environ.get("FUZZ_EXAMPLES", str(quick_examples))),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


AUTHOR_FIELDS: list[dict[str, Any]] = [
    {"name": "name", "type": "string", "required": True},
    {"name": "born", "type": "date"},
]
POST_FIELDS = every_field_type(
    text=None,
    integer="rank",
    float="score",
    boolean="hot",
    datetime="at",
    date=None,
    enum="color",
    enum_values=("red", "green", "blue"),
    relations=(
        relation("author", "author", "many-to-one"),
        relation("tags", "author", "many-to-many"),
    ),
)


def filter_operands(fields: list[dict[str, Any]]) -> tuple[Operand, ...]:
    """The filterable names of a type defined with these field bodies."""
    return operands(
        FieldDef(name=f["name"], type=f["type"], key="", values=tuple(f.get("values", ())))
        for f in fields
    )


@dataclass(frozen=True)
class FuzzWorld:
    """The seeded workspace: what a generated request may name to reach real data."""

    token: str
    types: tuple[str, ...]
    entry_ids: tuple[str, ...]
    fields: tuple[str, ...]


def seed(client: httpx.Client, token: str) -> FuzzWorld:
    """Two related types (`post` -> `author`), entries linked both ways, some published."""
    define(client, "author", AUTHOR_FIELDS)
    define(client, "post", POST_FIELDS)
    authors = [
        create(client, "author", {"name": name, "born": born})["id"]
        for name, born in (("Ada", "1815-12-10"), ("Grace", "1906-12-09"))
    ]
    posts = [
        create(
            client,
            "post",
            {
                "title": title,
                "body": "<p>hello</p>",
                "rank": i,
                "score": i + 0.5,
                "hot": i % 2 == 0,
                "at": f"2024-0{i + 1}-01T00:00:00Z",
                "color": ("red", "green", "blue")[i],
                "meta": {"i": i},
            },
            relations={"author": {"link": [authors[i % 2]]}, "tags": {"link": authors}},
        )["id"]
        for i, title in enumerate(("first", "second", "third"))
    ]
    publish(client, "post", posts[0])
    publish(client, "author", authors[0])
    return FuzzWorld(
        token=token,
        types=("post", "author"),
        entry_ids=(*posts, *authors),
        fields=tuple(f["name"] for f in POST_FIELDS + AUTHOR_FIELDS),
    )
