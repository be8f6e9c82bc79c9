"""Relation lists: DynamoDB requests, bytes read and time, observed at the storage boundary.

Through real HTTP against the local stack, every DynamoDB request counted by the recording
proxy, as `bench.content_lists` measures (its seeding, clients and replayed timing):

1. "Posts by author X, newest first, page of 20" (`author eq X`, a read token) at 1,000, 10,000
   and 100,000 posts, served from the reverse-link index (decision D135). X writes 60 posts,
   all among the first thousand; the other posts are by 99 other authors. Held to at most 6
   requests, the same bytes at every size and the service time (storage replayed) within 10 %
   across sizes. For comparison, author Y, who writes 1 % of the posts: the exact total
   verifies every post linking Y, so that cost grows with Y's posts (never with the type).
2. GraphQL `linkedFrom` with 5 posts of each of 1, 5 and 20 authors in one query: the requests
   per author, reported as measured.
3. `author.city eq X` (a filter on a linked entry's field, evaluated in memory over the posts):
   the requests and bytes measured against the formula of docs/content.md, "Filter, sort,
   fields, paging".
4. A page of 20 posts, newest first, with the asset field `hero` expanded, against the same
   page with the relation `author` expanded, at every size: the same DynamoDB requests
   (docs/assets.md, "Asset fields").
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx

from bench import content_lists
from bench.content_lists import (
    RICH_TEXT,
    SEED_CHUNK,
    StorageCalls,
    _client,
    _dynamodb,
    _workspace,
    list_sizes,
    spread_rows,
)
from bench.report import Row
from content_service.assets.builtin_type import asset_type
from content_service.clock import iso_utc
from content_service.content.entries import StoredEntry
from content_service.content.lists import READ_BUDGET
from content_service.content.requests import EntryAction, WriteRequest
from content_service.content.schema import (
    ContentType,
    FieldSpec,
    TypeDefinition,
    create_type,
    get_type,
)
from content_service.content.writes import Versions, create_entry, publish_entry
from content_service.identity.principal import TokenCaller
from content_service.identity.tokens import TokenSpec, create_token
from harness.seeding import bulk_put, bulk_put_chunks, stored_entry
from infra.emulator import Emulator
from infra.local_stack import LocalStack
from infra.request_recorder import RecordedCall, RequestRecorder

BENCHMARK = "relations"
AUTHORS = 100
X_POSTS = 60
Y_SHARE = 0.01
CITIES = ("Berlin", "London", "Paris", "Rome", "Oslo")
REPLAY_ROUNDS = 31
GRAPHQL_AUTHORS = (1, 5, 20)
ASSETS = 20
# Each post links its author and its hero image: two links in its summary.
LINKS_PER_POST = 2
MB = 1024 * 1024
# docs/content.md: a post's summary, and what each link adds to it.
SUMMARY_BYTES = 330
LINK_BYTES = 40


def _breakdown(case: str, calls: list[RecordedCall]) -> list[Row]:
    """`content_lists`' rows per operation and BatchGetItem, under this suite's name."""
    return [
        dataclasses.replace(row, benchmark=BENCHMARK)
        for row in content_lists._breakdown(case, calls)
    ]


def _define(caller: TokenCaller, workspace_id: str) -> ContentType:
    create_type(
        caller,
        workspace_id,
        TypeDefinition("author", fields=(FieldSpec("name", "string"), FieldSpec("city", "string"))),
    )
    content_lists.define_post(
        caller,
        workspace_id,
        content_lists.relation("author", "author", "many-to-one"),
        FieldSpec(name="hero", type="asset", accept=("image/*",)),
    )
    post = get_type(workspace_id, "post")
    assert post is not None
    return post


def _authors(caller: TokenCaller, workspace_id: str) -> list[str]:
    """Published authors, one in each city per five; X is the first, Y the second."""
    ids = []
    for i in range(AUTHORS):
        entry = create_entry(
            WriteRequest(
                caller=caller,
                workspace_id=workspace_id,
                content_type="author",
                values={"name": f"author {i:03d}", "city": CITIES[i % len(CITIES)]},
            )
        )
        publish_entry(EntryAction(caller, workspace_id, "author", entry.id))
        ids.append(entry.id)
    return ids


def _assets(workspace_id: str, emulator: Emulator) -> list[str]:
    """Published image assets (their entries as processing writes them; no file is read)."""
    definition = asset_type(workspace_id, time.time())
    ids = [str(uuid.UUID(int=n + 1, version=4)) for n in range(ASSETS)]
    entries: list[StoredEntry | Versions] = []
    for n, asset_id in enumerate(ids):
        name = f"hero-{n:02d}.jpg"
        key = f"files/{workspace_id}/{asset_id}/{asset_id}/{name}"
        file: dict[str, Any] = {"id": asset_id, "key": key, "fileName": name}
        file |= {"contentType": "image/jpeg"}
        file |= {"size": 48_213, "width": 1200, "height": 800, "state": "ready"}
        values = {"f1": name, "f2": "A hero", "f4": json.dumps(file), "f5": name}
        values |= {"f6": "image/jpeg", "f7": "ready"}
        stamp = iso_utc(1_600_000_000.0 + n)
        entries.append(
            stored_entry(workspace_id, definition, values, entry_id=asset_id, stamp=stamp)
        )
    bulk_put(workspace_id, definition, entries, emulator=emulator)
    return ids


def _author_of(i: int, rng: random.Random, authors: list[str]) -> str:
    """Post `i`'s author: X for 60 of the first thousand, Y for 1 %, else one of the others."""
    if i < 1000 and i % (1000 // X_POSTS) == 0 and i // (1000 // X_POSTS) < X_POSTS:
        return authors[0]
    if rng.random() < Y_SHARE:
        return authors[1]
    return authors[rng.randrange(2, len(authors))]


def _seed(
    workspace_id: str,
    post: ContentType,
    links: tuple[list[str], list[str]],
    span: tuple[int, int],
    emulator: Emulator,
) -> None:
    authors, assets = links
    rng = random.Random(span[1])
    keys = {f.name: f.key for f in post.fields}
    base = 1_700_000_000.0

    def entry(i: int) -> StoredEntry:
        return stored_entry(
            workspace_id,
            post,
            {keys["title"]: f"Post {i:07d}", keys["body"]: RICH_TEXT},
            entry_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            stamp=iso_utc(base + i),
            published=rng.random() < 0.8,
            links_by_key={
                keys["author"]: [_author_of(i, rng, authors)],
                keys["hero"]: [assets[i % len(assets)]],
            },
        )

    bulk_put_chunks(workspace_id, post, span, entry, chunk=SEED_CHUNK, emulator=emulator)


@dataclasses.dataclass
class _Seen(StorageCalls):
    total: int
    samples: list[float] = dataclasses.field(default_factory=list)


def _list(client: httpx.Client, recorder: RequestRecorder, params: dict[str, Any]) -> _Seen:
    with recorder.capture() as calls:
        response = client.get("/api/v1/content/post", params=params)
    response.raise_for_status()
    body = response.json()
    assert len(body["items"]) == min(20, body["total"]), body["total"]
    return _Seen(list(calls), int(body["total"]))


def _by_author(author: str) -> dict[str, Any]:
    condition = {"field": "author", "op": "eq", "value": author}
    return {"filter": json.dumps(condition), "pageSize": 20}


def _replay(
    client: httpx.Client, recorder: RequestRecorder, runs: list[tuple[_Seen, dict[str, Any]]]
) -> None:
    """Every run with its recorded answers, in shuffled rounds (load falls on every size)."""
    rng = random.Random(REPLAY_ROUNDS)
    for round_number in range(2 + REPLAY_ROUNDS):
        rng.shuffle(runs)
        for seen, params in runs:
            with recorder.replay(seen.calls):
                started = time.perf_counter()
                client.get("/api/v1/content/post", params=params)
                elapsed = time.perf_counter() - started
            if round_number >= 2:
                seen.samples.append(elapsed)


def _author_rows(case: str, seen: dict[int, _Seen], bounded: bool) -> list[Row]:
    rows: list[Row] = []
    for size, one in seen.items():
        label = f"{case}, {size:,} posts"
        meets = one.requests <= 6 if bounded else None
        target = "<= 6" if bounded else ""
        rows.append(content_lists.requests_row(BENCHMARK, label, one.requests, target, meets))
        rows.extend(_breakdown(label, _dynamodb(one.calls)))
        rows.append(Row(BENCHMARK, label, "bytes read", one.bytes_read, "bytes"))
        rows.append(Row(BENCHMARK, label, "total", one.total, "posts"))
        rows.append(
            Row(
                BENCHMARK,
                label,
                "median time per list, storage replayed",
                statistics.median(one.samples) * 1000,
                "ms",
            )
        )
    if bounded and len(seen) > 1:
        sizes = ", ".join(f"{s:,}" for s in seen)
        rows.extend(spread_rows(BENCHMARK, f"{case}, across {sizes} posts", list(seen.values())))
    return rows


def _linked_from_rows(client: httpx.Client, recorder: RequestRecorder) -> list[Row]:
    """`linkedFrom` with 5 posts of each of n authors in one GraphQL query."""
    query = (
        'query ($n: Int) { authors(pageSize: $n, sort: "name") { items { name linkedFrom '
        "{ postsByAuthor(pageSize: 5) { total items { title } } } } } }"
    )
    rows: list[Row] = []
    for n in GRAPHQL_AUTHORS:
        with recorder.capture() as calls:
            response = client.post("/api/v1/graphql", json={"query": query, "variables": {"n": n}})
        response.raise_for_status()
        body = response.json()
        assert "errors" not in body, body
        assert len(body["data"]["authors"]["items"]) == n
        observed = _dynamodb(calls)
        case = f"GraphQL linkedFrom, 5 posts of each of {n} authors"
        rows.append(Row(BENCHMARK, case, "DynamoDB requests", len(observed), "requests"))
        rows.extend(_breakdown(case, observed))
        rows.append(
            Row(BENCHMARK, case, "bytes read", sum(c.response_bytes for c in observed), "bytes")
        )
    return rows


def linked_field_formula(posts: int, links: int, conditions: int, locales: int) -> tuple[int, int]:
    """docs/content.md: requests `3 + ⌈S·(330 + 40·l) / 1 MB⌉ + k·(1 + L·(2 + 1))` for
    targets read in one Query, and the summary bytes `S·(330 + 40·l)` that dominate them."""
    summaries = posts * (SUMMARY_BYTES + LINK_BYTES * links)
    pages = max(1, math.ceil(summaries / MB))
    return 3 + pages + conditions * (1 + locales * 3), summaries


def _linked_field_rows(size: int, published: int, seen: _Seen | None) -> list[Row]:
    """The measured requests and summary bytes of `author.city eq Berlin` against the
    formula, over the `published` posts a read token's list reads."""
    label = f"author.city eq Berlin, {size:,} posts"
    if seen is None:
        return [
            Row(
                BENCHMARK,
                label,
                f"refused: over the read budget of {READ_BUDGET:,} entries (400)",
                1,
                "list",
            )
        ]
    requests, summaries = linked_field_formula(published, LINKS_PER_POST, 1, 1)
    measured = sum(
        c.response_bytes
        for c in _dynamodb(seen.calls)
        if c.operation == "Query" and "#post#" in c.body["ExpressionAttributeValues"][":pk"]["S"]
    )
    ratio = measured / summaries if summaries else math.inf
    return [
        content_lists.requests_row(
            BENCHMARK, label, seen.requests, f"= {requests} (formula)", seen.requests == requests
        ),
        *_breakdown(label, _dynamodb(seen.calls)),
        Row(BENCHMARK, label, "bytes of post summaries read", measured, "bytes"),
        Row(
            BENCHMARK,
            label,
            "  measured / formula S·(330 + 40·l)",
            ratio,
            "ratio",
            target="0.8 to 1.25",
            meets_target=0.8 <= ratio <= 1.25,
        ),
    ]


def _progress(message: str) -> None:
    print(f"  relations: {message}", file=sys.stderr, flush=True)


def run(stack: LocalStack, progress: Callable[[str], None] = _progress) -> list[Row]:
    assert stack.base_url is not None
    assert stack.recorder is not None
    recorder = stack.recorder
    workspace_id, full_token, caller = _workspace()
    read_token, _ = create_token(TokenSpec(name="read", workspace_id=workspace_id, access="read"))
    post = _define(caller, workspace_id)
    authors = _authors(caller, workspace_id)
    assets = _assets(workspace_id, stack.emulator)
    expanded: dict[int, tuple[_Seen, _Seen]] = {}
    x_seen: dict[int, _Seen] = {}
    y_seen: dict[int, _Seen] = {}
    rows: list[Row] = []
    city = {"filter": json.dumps({"field": "author.city", "op": "eq", "value": "Berlin"})}
    seeded = 0
    with _client(stack.base_url, read_token) as read, _client(stack.base_url, full_token) as full:
        for size in list_sizes():
            _seed(workspace_id, post, (authors, assets), (seeded, size), stack.emulator)
            seeded = size
            progress(f"seeded {size:,} posts")
            expanded[size] = (
                _list(read, recorder, {"pageSize": 20, "expand": "hero"}),
                _list(read, recorder, {"pageSize": 20, "expand": "author"}),
            )
            x_seen[size] = _list(read, recorder, _by_author(authors[0]))
            y_seen[size] = _list(read, recorder, _by_author(authors[1]))
            everything = read.get("/api/v1/content/post", params={"pageSize": 1}).json()
            published = int(everything["total"])
            linked = None
            if published <= READ_BUDGET:
                linked = _list(read, recorder, {**city, "pageSize": 20})
            rows.extend(_linked_field_rows(size, published, linked))
            if size == min(list_sizes()):
                rows.extend(_linked_from_rows(full, recorder))
        runs = [(s, _by_author(authors[0])) for s in x_seen.values()]
        runs += [(s, _by_author(authors[1])) for s in y_seen.values()]
        _replay(read, recorder, runs)
    x_case = f"posts by author X ({X_POSTS} posts), newest first, page of 20"
    y_case = "posts by author Y (1 % of the posts), newest first, page of 20"
    rows += _expand_rows(expanded)
    return _author_rows(x_case, x_seen, True) + _author_rows(y_case, y_seen, False) + rows


def _expand_rows(expanded: dict[int, tuple[_Seen, _Seen]]) -> list[Row]:
    """The asset field expanded costs what a relation expanded costs, at every size."""
    rows: list[Row] = []
    for size, (hero, author) in expanded.items():
        case = f"page of 20 posts, newest first, {size:,} posts"
        rows.append(
            Row(BENCHMARK, case, "expand=author: DynamoDB requests", author.requests, "requests")
        )
        rows.append(Row(BENCHMARK, case, "expand=author: bytes read", author.bytes_read, "bytes"))
        rows.append(
            Row(
                BENCHMARK,
                case,
                "expand=hero (an asset field): DynamoDB requests",
                hero.requests,
                "requests",
                target=f"= {author.requests}",
                meets_target=hero.requests == author.requests,
            )
        )
        rows.append(Row(BENCHMARK, case, "expand=hero: bytes read", hero.bytes_read, "bytes"))
    return rows
