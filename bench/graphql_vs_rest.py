"""The same read through GraphQL and REST, side by side, over real HTTP on the local stack.

Two cases over 25 published posts (a title, an integer, an enum, ~2 KB of rich text that
neither read selects), each with an author:
1. a flat list: REST `GET /api/v1/content/post?pageSize=25&fields=title,views,color`, GraphQL
   `posts(pageSize: 25) { total items { <system fields> title views color } }`;
2. the same list with one nested relation: REST adds `expand=author`, GraphQL `author { ... }`.

Both protocols return the same records and fields (checked before timing). Requests alternate
between the protocols so drift in the emulator affects both alike; the figure is the median of
REPEAT requests each, and the ratio GraphQL/REST with the target of at most 1.15. The GraphQL
schema is cached (warm), as it is for every request after a Lambda instance's first.

On the local stack the emulated storage dominates (every DynamoDB request to moto costs
milliseconds to tens of milliseconds), which hides the protocols' own cost. So each case is
measured a second time with storage taken out: the service functions the two protocols call
(and the token lookup) answer from memory with the very results they gave, over the same real
HTTP. That ratio is the adapter's worst case; with a real table behind both, the difference is
diluted further.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from bench.report import Row
from content_service import runtime
from content_service.api import auth
from content_service.content import service
from content_service.content.model import FieldSpec, TypeDefinition
from content_service.content.schema import create_type
from content_service.identity.tokens import TokenSpec, authenticate_token, create_token
from content_service.identity.workspaces import create_workspace
from infra.local_stack import LocalStack
from tests.support.seeding import seed_published

BENCHMARK = "graphql_vs_rest"
ROWS = 25
REPEAT = 41
TARGET = 1.15
RICH_TEXT = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 35 + "</p>"
SYSTEM = "id status locale localeGroupId createdAt updatedAt publishedAt"
FLAT_QUERY = (
    "query ($n: Int) { posts(pageSize: $n) { total items { " + SYSTEM + " title views color } } }"
)
NESTED_QUERY = (
    "query ($n: Int) { posts(pageSize: $n) { total items { "
    + SYSTEM
    + " title views color author { "
    + SYSTEM
    + " name } } } }"
)


def _world() -> str:
    slug = f"bench-gql-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    token, _ = create_token(TokenSpec(name="bench", workspace_id=workspace.id, access="read"))
    writer, _ = create_token(TokenSpec(name="writer", workspace_id=workspace.id, access="full"))
    caller = authenticate_token(writer)
    create_type(
        caller, workspace.id, TypeDefinition("author", fields=(FieldSpec("name", "string"),))
    )
    create_type(
        caller,
        workspace.id,
        TypeDefinition(
            "post",
            fields=(
                FieldSpec("title", "string"),
                FieldSpec("views", "integer"),
                FieldSpec("color", "enum", values=("red", "green", "blue")),
                FieldSpec("body", "richtext"),
                FieldSpec("author", "relation", target="author", cardinality="many-to-one"),
            ),
        ),
    )
    authors = seed_published(
        workspace.id, "author", [({"name": f"Author {i}"}, {}) for i in range(5)]
    )
    seed_published(
        workspace.id,
        "post",
        [
            (
                {
                    "title": f"Post {i}",
                    "views": i * 7,
                    "color": ("red", "green", "blue")[i % 3],
                    "body": RICH_TEXT,
                },
                {"author": [authors[i % 5]]},
            )
            for i in range(ROWS)
        ],
    )
    return token


def _client(base_url: str, token: str) -> httpx.Client:
    # A connection per request, as bench/content_lists.py: the local uvicorn socket otherwise
    # adds delayed-ACK stalls on kept-alive connections that API Gateway never would.
    return httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}", "Connection": "close"},
        timeout=60,
    )


def _as_graphql(entry: dict[str, Any], nested: bool) -> dict[str, Any]:
    shaped = {k: entry[k] for k in SYSTEM.split()}
    shaped["status"] = entry["status"].upper()
    shaped.update(entry["values"])
    if nested:
        targets = entry["relations"]["author"]
        shaped["author"] = _as_graphql(targets[0], False) if targets else None
    return shaped


def _interleaved(first: Callable[[], object], second: Callable[[], object]) -> tuple[float, float]:
    for _ in range(3):
        first()
        second()
    a: list[float] = []
    b: list[float] = []
    for i in range(REPEAT):
        order = ((first, a), (second, b)) if i % 2 == 0 else ((second, b), (first, a))
        for run, samples in order:
            started = time.perf_counter()
            run()
            samples.append(time.perf_counter() - started)
    return statistics.median(a), statistics.median(b)


@contextmanager
def _storage_stubbed(token: str) -> Iterator[None]:
    """The service's reads and the token lookup answer from memory, with what they answered
    the last time they were asked the same thing (recorded while the real calls run first)."""
    caller = authenticate_token(token)
    recorded: dict[tuple[str, Any], Any] = {}
    originals = {
        name: getattr(service, name)
        for name in ("list_entries", "require_type", "load_entries_by_ids")
    }

    def remember(name: str) -> Callable[..., Any]:
        original = originals[name]

        def call(*args: Any, **kwargs: Any) -> Any:
            key = (
                name,
                repr((args[1:] if name != "list_entries" else args, sorted(kwargs.items()))),
            )
            if key not in recorded:
                recorded[key] = original(*args, **kwargs)
            return recorded[key]

        return call

    lookup = "authenticate_token"  # what the API's auth dependency calls
    original_lookup = getattr(auth, lookup)
    try:
        for name in originals:
            setattr(service, name, remember(name))
        setattr(auth, lookup, lambda _token: caller)
        yield
    finally:
        for name, original in originals.items():
            setattr(service, name, original)
        setattr(auth, lookup, original_lookup)


def run(stack: LocalStack) -> list[Row]:
    assert stack.base_url is not None, "the bench needs the API"
    token = _world()
    rows: list[Row] = []
    with _client(stack.base_url, token) as client:
        for case, query, params in (
            (
                f"flat list ({ROWS} posts, 3 fields)",
                FLAT_QUERY,
                {"pageSize": ROWS, "fields": "title,views,color"},
            ),
            (
                f"list + 1 nested relation ({ROWS} posts, author)",
                NESTED_QUERY,
                {"pageSize": ROWS, "fields": "title,views,color", "expand": "author"},
            ),
        ):
            nested = "expand" in params
            body = {"query": query, "variables": {"n": ROWS}}

            def rest(params: dict[str, Any] = params) -> Any:
                response = client.get("/api/v1/content/post", params=params)
                response.raise_for_status()
                return response.json()

            def graphql(body: dict[str, Any] = body) -> Any:
                response = client.post("/api/v1/graphql", json=body)
                response.raise_for_status()
                result = response.json()
                assert "errors" not in result, result
                return result["data"]

            rest_body, graphql_body = rest(), graphql()
            assert graphql_body["posts"]["total"] == rest_body["total"] == ROWS
            assert graphql_body["posts"]["items"] == [
                _as_graphql(e, nested) for e in rest_body["items"]
            ], "the two protocols must return the same records"
            rows.extend(_rows(case, *_interleaved(rest, graphql)))
            with _storage_stubbed(token):
                assert rest() == rest_body
                assert graphql() == graphql_body
                rows.extend(_rows(f"{case}, storage stubbed", *_interleaved(rest, graphql)))
    return rows


def _rows(case: str, rest_median: float, graphql_median: float) -> list[Row]:
    ratio = graphql_median / rest_median
    return [
        Row(BENCHMARK, case, "median REST", rest_median * 1000, "ms"),
        Row(BENCHMARK, case, "median GraphQL", graphql_median * 1000, "ms"),
        Row(
            BENCHMARK,
            case,
            "ratio GraphQL / REST",
            ratio,
            "x",
            target=f"<= {TARGET}",
            meets_target=ratio <= TARGET,
        ),
    ]
