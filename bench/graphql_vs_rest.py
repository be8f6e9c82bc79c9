"""The same read through GraphQL and REST, side by side, through uvicorn and through Mangum.

Cases, over published posts (a title, an integer, an enum, ~2 KB of rich text that no read
selects), each with an author (whose company is a third type) and up to three tags:
1. a flat list of 25: REST `GET /api/v1/content/post?pageSize=25&fields=title,views,color`,
   GraphQL `posts(pageSize: 25) { total items { <system fields> title views color } }`;
2. the same list with one nested relation: REST adds `expand=author`, GraphQL `author { ... }`;
3. a list of 100 with two levels of relations: GraphQL `posts(pageSize: 100) { ... author {
   ... company { ... } } tags { ... } }` in one request; REST needs two, as a REST client would
   make them: the posts with `expand=author,tags`, then the authors (`filter` id `in` the ids
   seen) with `expand=company`. Its ratio has no target: it compares one request with two.

Both protocols return the same records and fields (checked before timing). Requests alternate
between the protocols so drift affects both alike; the figure is the median of REPEAT requests
each, and the ratio GraphQL/REST. The GraphQL schema is cached (warm), as it is for every
request after a Lambda instance's first.

Two paths: real HTTP to the local stack's uvicorn, and the API Lambda handler itself (Mangum)
called with API Gateway HTTP API events, in this process, on one thread, as Lambda's runtime
calls it (the Lambda path: no socket, so the adapter's own cost weighs more).

On the local stack the emulated storage dominates (every DynamoDB request to moto costs
milliseconds to tens of milliseconds), which hides the protocols' own cost. So each case is
measured a second time with storage taken out: the service functions the two protocols call
(and the token lookup) answer from memory with the very results they gave. That ratio is the
adapter's worst case and the one the targets apply to; against moto it is reported alongside.
"""

from __future__ import annotations

import base64
import json
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from bench.report import Row
from content_service import runtime
from content_service.api import auth
from content_service.content import service
from content_service.content.schema import FieldSpec, TypeDefinition, create_type
from content_service.identity.tokens import TokenSpec, authenticate_token, create_token
from content_service.identity.workspaces import create_workspace
from harness.seeding import seed_published
from infra.lambda_runtime import lambda_context, load_handler
from infra.local_stack import LocalStack

BENCHMARK = "graphql_vs_rest"
REPEAT = 41
REPEAT_LARGE = 21
FLAT_TARGET = 1.00
NESTED_TARGETS = {"Mangum": 1.00, "uvicorn": 1.10}
RICH_TEXT = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 35 + "</p>"
SYSTEM = "id status locale localeGroupId createdAt updatedAt publishedAt"
AUTHORS = 5
COMPANIES = 3
TAGS = 12
POSTS = 100
HANDLER = Path(__file__).parents[1] / "functions" / "api" / "handler.py"
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
TWO_LEVELS_QUERY = (
    "query ($n: Int) { posts(pageSize: $n) { total items { "
    + SYSTEM
    + " title views color author { "
    + SYSTEM
    + " name company { "
    + SYSTEM
    + " name } } tags(pageSize: 3) { "
    + SYSTEM
    + " label } } } }"
)

Call = Callable[[], Any]


@dataclass(frozen=True)
class Case:
    name: str
    rows: int
    query: str
    repeat: int
    target: Callable[[str], float | None]
    """The ratio's target on a path (None: reported without one)."""


CASES = (
    Case("flat list (25 posts, 3 fields)", 25, FLAT_QUERY, REPEAT, lambda _: FLAT_TARGET),
    Case(
        "list + 1 nested relation (25 posts, author)",
        25,
        NESTED_QUERY,
        REPEAT,
        NESTED_TARGETS.get,
    ),
    Case(
        "list of 100 + 2 levels (author, its company; tags), REST in 2 requests",
        100,
        TWO_LEVELS_QUERY,
        REPEAT_LARGE,
        lambda _: None,
    ),
)


def _world() -> str:
    slug = f"bench-gql-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    token, _ = create_token(TokenSpec(name="bench", workspace_id=workspace.id, access="read"))
    writer, _ = create_token(TokenSpec(name="writer", workspace_id=workspace.id, access="full"))
    caller = authenticate_token(writer)

    def define(name: str, *fields: FieldSpec) -> None:
        create_type(caller, workspace.id, TypeDefinition(name, fields=fields))

    define("company", FieldSpec("name", "string"))
    define(
        "author",
        FieldSpec("name", "string"),
        FieldSpec("company", "relation", target="company", cardinality="many-to-one"),
    )
    define("tag", FieldSpec("label", "string"))
    define(
        "post",
        FieldSpec("title", "string"),
        FieldSpec("views", "integer"),
        FieldSpec("color", "enum", values=("red", "green", "blue")),
        FieldSpec("body", "richtext"),
        FieldSpec("author", "relation", target="author", cardinality="many-to-one"),
        FieldSpec("tags", "relation", target="tag", cardinality="many-to-many"),
    )
    companies = seed_published(
        workspace.id, "company", [({"name": f"Company {i}"}, {}) for i in range(COMPANIES)]
    )
    authors = seed_published(
        workspace.id,
        "author",
        [
            ({"name": f"Author {i}"}, {"company": [companies[i % COMPANIES]]})
            for i in range(AUTHORS)
        ],
    )
    tags = seed_published(workspace.id, "tag", [({"label": f"Tag {i}"}, {}) for i in range(TAGS)])
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
                {
                    "author": [authors[i % AUTHORS]],
                    "tags": [tags[(i + k) % TAGS] for k in range(i % 4)],
                },
            )
            for i in range(POSTS)
        ],
    )
    return token


# -- the two paths: each turns (method, path, query params, JSON body) into a parsed answer ---

Send = Callable[[str, str, dict[str, Any], Any], Any]


@contextmanager
def _uvicorn(base_url: str, token: str) -> Iterator[Send]:
    # A connection per request, as bench/content_lists.py: the local uvicorn socket otherwise
    # adds delayed-ACK stalls on kept-alive connections that API Gateway never would.
    with httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}", "Connection": "close"},
        timeout=60,
    ) as client:

        def send(method: str, path: str, params: dict[str, Any], body: Any) -> Any:
            response = client.request(method, path, params=params, json=body)
            response.raise_for_status()
            return response.json()

        yield send


@contextmanager
def _mangum(token: str) -> Iterator[Send]:
    """The API handler imported as Lambda imports it and called on one dedicated thread, as
    Lambda's runtime does (tests/integration/test_api_handler_events.py does the same)."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="lambda-runtime") as lambda_thread:
        handler = lambda_thread.submit(
            load_handler, HANDLER, "handler", f"bench_api_handler_{uuid.uuid4().hex[:6]}"
        ).result()

        def send(method: str, path: str, params: dict[str, Any], body: Any) -> Any:
            event = _http_api_event(method, path, urlencode(params), token, body)
            response = lambda_thread.submit(handler, event, lambda_context("ApiFunction")).result()
            assert response["statusCode"] == 200, response
            text = response.get("body", "")
            if response.get("isBase64Encoded"):
                text = base64.b64decode(text).decode()
            return json.loads(text)

        yield send


def _http_api_event(method: str, path: str, query: str, token: str, body: Any) -> dict[str, Any]:
    headers = {
        "accept": "application/json",
        "authorization": f"Bearer {token}",
        "host": "abc123defg.execute-api.us-east-1.amazonaws.com",
        "x-forwarded-proto": "https",
        "x-forwarded-port": "443",
    }
    if body is not None:
        headers["content-type"] = "application/json"
    return {
        "version": "2.0",
        "routeKey": "ANY /{proxy+}",
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123defg",
            "domainName": "abc123defg.execute-api.us-east-1.amazonaws.com",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "bench",
            },
            "requestId": uuid.uuid4().hex,
            "routeKey": "ANY /{proxy+}",
            "stage": "$default",
            "timeEpoch": int(time.time() * 1000),
        },
        "pathParameters": {"proxy": path.lstrip("/")},
        "body": json.dumps(body) if body is not None else None,
        "isBase64Encoded": False,
    }


# -- one case on one path ----------------------------------------------------------------------


def _rest_and_graphql(send: Send, case: Case) -> tuple[Call, Call, Call]:
    """(REST read, GraphQL read, a check that both returned the same records)."""
    fields = {"pageSize": case.rows, "fields": "title,views,color"}
    body = {"query": case.query, "variables": {"n": case.rows}}
    nested, two_levels = "author" in case.query, "company" in case.query

    def rest() -> Any:
        if not nested:
            return send("GET", "/api/v1/content/post", fields, None)
        expand = "author,tags" if two_levels else "author"
        posts = send("GET", "/api/v1/content/post", {**fields, "expand": expand}, None)
        if not two_levels:
            return posts
        ids = sorted({a["id"] for p in posts["items"] for a in p["relations"]["author"]})
        authors = send(
            "GET",
            "/api/v1/content/author",
            {
                "pageSize": 100,
                "fields": "name",
                "expand": "company",
                "filter": json.dumps({"field": "id", "op": "in", "value": ids}),
            },
            None,
        )
        return posts, authors

    def graphql() -> Any:
        result = send("POST", "/api/v1/graphql", {}, body)
        assert "errors" not in result, result
        return result["data"]

    def same() -> None:
        answer = rest()
        posts, authors = answer if two_levels else (answer, None)
        data = graphql()
        assert data["posts"]["total"] == posts["total"] == POSTS
        assert len(posts["items"]) == case.rows
        expected = [_as_graphql(e, nested, authors) for e in posts["items"]]
        assert data["posts"]["items"] == expected, "the two protocols must return the same records"

    return rest, graphql, same


def _as_graphql(entry: dict[str, Any], nested: bool, authors: Any) -> dict[str, Any]:
    shaped = {k: entry[k] for k in SYSTEM.split()}
    shaped["status"] = entry["status"].upper()
    shaped.update(entry["values"])
    if not nested:
        return shaped
    targets = entry["relations"]["author"]
    author = _as_graphql(targets[0], False, None) if targets else None
    if authors is not None:
        by_id = {a["id"]: a for a in authors["items"]}
        if author is not None:
            companies = by_id[author["id"]]["relations"]["company"]
            author["company"] = _as_graphql(companies[0], False, None) if companies else None
        shaped["tags"] = [_as_graphql(t, False, None) for t in entry["relations"]["tags"]]
    shaped["author"] = author
    return shaped


def _interleaved(first: Call, second: Call, repeat: int) -> tuple[float, float]:
    for _ in range(3):
        first()
        second()
    a: list[float] = []
    b: list[float] = []
    for i in range(repeat):
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
    paths: tuple[tuple[str, Callable[[], Any]], ...] = (
        ("uvicorn", lambda: _uvicorn(str(stack.base_url), token)),
        ("Mangum", lambda: _mangum(token)),
    )
    for path_name, open_path in paths:
        with open_path() as send:
            for case in CASES:
                rest, graphql, same = _rest_and_graphql(send, case)
                same()
                target = case.target(path_name)
                label = f"{case.name}, {path_name}"
                rows.extend(_rows(label, *_interleaved(rest, graphql, case.repeat), None))
                with _storage_stubbed(token):
                    same()
                    medians = _interleaved(rest, graphql, case.repeat)
                rows.extend(_rows(f"{label}, storage stubbed", *medians, target))
    return rows


def _rows(case: str, rest_median: float, graphql_median: float, target: float | None) -> list[Row]:
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
            target="" if target is None else f"<= {target:.2f}",
            meets_target=None if target is None else ratio <= target,
        ),
    ]
