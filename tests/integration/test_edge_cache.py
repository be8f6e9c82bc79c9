"""A real shared cache in front of the local stack: Debian's nginx (`proxy_cache`), keyed as the
template's CloudFront cache policies key (`harness.edge_cache`).

- 20 read tokens with different audiences each read 10 hot URLs (REST lists, an entry with an
  expanded relation, relations pages, GraphQL over GET, a persisted query) 20 times: no answer
  ever reaches a token it was not made for, and at least 90% are cache hits;
- after a publish, the new version is served within CONTENT_CACHE_SECONDS + 2 seconds;
- a revoked token is refused by the origin at once, and by the edge once what it holds for the
  token has expired (docs/api.md, "Revoked and narrowed tokens at the edge");
- private answers (full token) and refusals are never served from the cache; a client's
  `If-None-Match` is answered 304 by the cache itself.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from content_service.identity.tokens import TokenSpec, create_token, revoke_token
from harness.edge_cache import SERVED_FROM_CACHE, EdgeCache, edge_keying
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish, shared_workspace
from tests.support.gated_docs import gated_writer, publish_docs, readers, titles_seen
from tests.support.graphql import PATH
from tests.support.settings import delivery_options

pytestmark = pytest.mark.edge

TOKENS = 20
READS = 20
DOCS = 5
STALE_CACHE_SECONDS = 3
PERSISTED = "query Docs { docs { total items { id title } } }"


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory, base_url: str) -> Iterator[EdgeCache]:
    with EdgeCache(tmp_path_factory.mktemp("nginx"), base_url) as running:
        yield running


@pytest.fixture(scope="module")
def library(base_url: str) -> Iterator[tuple[WorkspaceAccess, list[str], list[str]]]:
    """DOCS audience-gated docs, each for one audience `d<k>`; token i holds the audiences of
    the bits of i + 1, so the 20 tokens see 20 different sets. A shelf links every doc. The
    10 hot URLs; the tokens."""
    with shared_workspace(base_url) as workspace:
        define(workspace.full, "doc", [{"name": "title", "type": "string"}], audienceGated=True)
        define(
            workspace.full,
            "shelf",
            [
                {"name": "name", "type": "string"},
                {
                    "name": "docs",
                    "type": "relation",
                    "target": "doc",
                    "cardinality": "many-to-many",
                },
            ],
        )
        with gated_writer(base_url, workspace.id, DOCS) as writer:
            docs = publish_docs(writer, DOCS)
            shelf = create(writer, "shelf", {"name": "all"}, relations={"docs": {"link": docs}})
            publish(writer, "shelf", shelf["id"])
        tokens = readers(workspace.id, DOCS, TOKENS)
        # For the publish test; defined now, before GraphQL caches the workspace's schema.
        define(workspace.full, "article", [{"name": "title", "type": "string"}])
        first = create(workspace.full, "article", {"title": "first"})
        publish(workspace.full, "article", first["id"])
        persisted = {"persistedQuery": {"version": 1, "sha256Hash": _sha(PERSISTED)}}
        registered = workspace.read.post(PATH, json={"query": PERSISTED, "extensions": persisted})
        assert "data" in registered.json(), registered.text
        graphql = [
            {"query": "{ docs { items { title } } }"},
            {
                "query": "query ($n: Int) "
                "{ docs(pageSize: $n) { total items { title audiences } } }",
                "variables": json.dumps({"n": 3}),
            },
            {"extensions": json.dumps(persisted)},
        ]
        urls = [
            "/api/v1/content/doc",
            "/api/v1/content/doc?sort=-createdAt",
            "/api/v1/content/doc?pageSize=3&fields=title",
            f"/api/v1/content/shelf/{shelf['id']}?expand=docs",
            f"/api/v1/content/shelf/{shelf['id']}/relations/docs",
            f"/api/v1/content/shelf/{shelf['id']}/relations/docs?fields=title",
            "/api/v1/content/doc?locale=en",
            *(str(httpx.URL(PATH, params=params)) for params in graphql),
        ]
        assert len(urls) == 10
        yield workspace, urls, tokens


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_twenty_tokens_read_hot_urls_through_the_cache_and_never_get_another_s_answer(
    edge: EdgeCache, base_url: str, library: tuple[WorkspaceAccess, list[str], list[str]]
) -> None:
    _, urls, tokens = library
    with delivery_options(cache_seconds=120), ThreadPoolExecutor(TOKENS) as readers:
        results = list(
            readers.map(lambda i: _read_hot_urls(edge.url, urls, tokens, i), range(TOKENS))
        )
    statuses: Counter[str] = Counter()
    bodies: dict[tuple[int, str], set[bytes]] = defaultdict(set)
    from_origin: set[tuple[int, str]] = set()
    for token_index, answers in enumerate(results):
        for url, status, cache_status, body in answers:
            assert status == 200, (url, body[:200])
            bodies[(token_index, url)].add(body)
            if cache_status not in SERVED_FROM_CACHE:
                from_origin.add((token_index, url))
            seen = {t for t in (f"doc-{k}" for k in range(DOCS)) if t.encode() in body}
            assert seen <= titles_seen(token_index, DOCS), (token_index, url)
            statuses[cache_status] += 1
    # Each (token, URL) got one answer, fetched from the origin for that token's own request,
    # and no two tokens got the same answer to a URL: a shared entry would break all three.
    assert all(len(found) == 1 for found in bodies.values())
    assert from_origin == set(bodies)
    for url in urls:
        assert len({next(iter(bodies[(i, url)])) for i in range(TOKENS)}) == TOKENS, url
    with httpx.Client(base_url=base_url, timeout=30) as origin:
        for i in (0, TOKENS - 1):  # and they are the origin's answers
            for url in urls:
                direct = origin.get(url, headers={"Authorization": f"Bearer {tokens[i]}"})
                assert bodies[(i, url)] == {direct.content}, (i, url)
    total = sum(statuses.values())
    assert total == TOKENS * len(urls) * READS
    hits = sum(n for status, n in statuses.items() if status in SERVED_FROM_CACHE)
    assert hits / total >= 0.9, statuses


def _read_hot_urls(
    edge_url: str, urls: list[str], tokens: list[str], token_index: int
) -> list[tuple[str, int, str, bytes]]:
    order = [url for _ in range(READS) for url in urls]
    random.Random(token_index).shuffle(order)
    answers = []
    headers = {"Authorization": f"Bearer {tokens[token_index]}"}
    with httpx.Client(base_url=edge_url, headers=headers, timeout=60) as client:
        for url in order:
            response = client.get(url)
            answers.append(
                (url, response.status_code, response.headers["x-cache-status"], response.content)
            )
    return answers


def test_after_a_publish_the_new_version_is_served_within_the_cache_seconds_plus_two(
    edge: EdgeCache, library: tuple[WorkspaceAccess, list[str], list[str]]
) -> None:
    workspace, _, _ = library
    urls = [
        "/api/v1/content/article?sort=-createdAt",
        str(httpx.URL(PATH, params={"query": "{ articles { items { title } } }"})),
    ]
    reader = httpx.Client(
        base_url=edge.url, headers={"Authorization": f"Bearer {workspace.read_token}"}, timeout=30
    )
    with reader, delivery_options(cache_seconds=STALE_CACHE_SECONDS):
        for url in urls:
            assert reader.get(url).headers["x-cache-status"] == "MISS"
        filled = time.monotonic()
        assert all(reader.get(url).headers["x-cache-status"] == "HIT" for url in urls)
        new = create(workspace.full, "article", {"title": "second"})
        publish(workspace.full, "article", new["id"])
        published = time.monotonic()
        if published - filled < STALE_CACHE_SECONDS - 0.5:  # still fresh: the old answer
            cached = reader.get(urls[0])
            assert cached.headers["x-cache-status"] == "HIT"
            assert b"second" not in cached.content
        served_at: dict[str, float] = {}
        deadline = published + STALE_CACHE_SECONDS + 10
        while len(served_at) < len(urls) and time.monotonic() < deadline:
            for url in urls:
                if url not in served_at and b"second" in reader.get(url).content:
                    served_at[url] = time.monotonic() - published
            time.sleep(0.1)
    assert set(served_at) == set(urls), served_at
    assert max(served_at.values()) <= STALE_CACHE_SECONDS + 2, served_at


def test_a_revoked_token_is_refused_at_the_origin_at_once_and_at_the_edge_once_it_expires(
    edge: EdgeCache, base_url: str, library: tuple[WorkspaceAccess, list[str], list[str]]
) -> None:
    """What docs/api.md says of revocation: refused on the next request at the origin, while
    the edge may serve the answers it holds for the token until they expire (s-maxage plus
    stale-while-revalidate)."""
    workspace, urls, _ = library
    token, info = create_token(
        TokenSpec(name="to revoke", workspace_id=workspace.id, access="read")
    )
    headers = {"Authorization": f"Bearer {token}"}
    reader = httpx.Client(base_url=edge.url, headers=headers, timeout=30)
    origin = httpx.Client(base_url=base_url, headers=headers, timeout=30)
    with reader, origin, delivery_options(cache_seconds=STALE_CACHE_SECONDS):
        assert reader.get(urls[0]).headers["x-cache-status"] == "MISS"
        filled = time.monotonic()
        revoke_token(info.id)
        revoked = time.monotonic()
        assert origin.get(urls[0]).status_code == 401
        if revoked - filled < STALE_CACHE_SECONDS - 0.5:  # still fresh at the edge
            cached = reader.get(urls[0])
            assert (cached.status_code, cached.headers["x-cache-status"]) == (200, "HIT")
        refused_after = None
        deadline = revoked + STALE_CACHE_SECONDS + 10
        while refused_after is None and time.monotonic() < deadline:
            asked = time.monotonic()
            if reader.get(urls[0]).status_code == 401:
                refused_after = asked - filled
            time.sleep(0.1)
    # The first request sent after the answer expired (N + M = STALE_CACHE_SECONDS + 2 after
    # the edge fetched it) is refused. nginx keeps expiry times in whole seconds (up to 1 s
    # more), and the request was sent at most one poll (0.1 s and the previous request) after.
    assert refused_after is not None
    assert refused_after <= STALE_CACHE_SECONDS + 2 + 1 + 0.5, refused_after


def test_private_answers_and_refusals_never_come_from_the_cache_and_304_does(
    edge: EdgeCache, library: tuple[WorkspaceAccess, list[str], list[str]]
) -> None:
    workspace, urls, _ = library
    full = {"Authorization": f"Bearer {workspace.full_token}"}
    read = {"Authorization": f"Bearer {workspace.read_token}"}
    with httpx.Client(base_url=edge.url, timeout=30) as client:
        for _ in range(2):
            private = client.get(urls[0], headers=full)
            assert private.status_code == 200
            assert private.headers["x-cache-status"] not in SERVED_FROM_CACHE
            missing = client.get(
                "/api/v1/content/doc/00000000-0000-4000-8000-000000000000", headers=read
            )
            assert missing.status_code == 404
            assert missing.headers["x-cache-status"] not in SERVED_FROM_CACHE
            failed = client.get(PATH, params={"query": "{ nope }"}, headers=read)
            assert failed.headers["x-cache-status"] not in SERVED_FROM_CACHE
        first = client.get(urls[1], headers=read)
        tag = first.headers["etag"]
        again = client.get(urls[1], headers={**read, "If-None-Match": tag})
        assert again.status_code == 304
        assert again.headers["x-cache-status"] == "HIT"
        anonymous = client.get(urls[1])
        assert anonymous.status_code == 401  # the cached answer is the token's alone


def test_the_template_s_cache_key_alone_keeps_tokens_apart(
    tmp_path: Path, base_url: str, library: tuple[WorkspaceAccess, list[str], list[str]]
) -> None:
    """nginx told to ignore Vary, as CloudFront does: only the key (the template's cache
    policy: Authorization and the whole query string) separates the tokens' answers."""
    _, urls, tokens = library
    keying = edge_keying()
    # File URLs are public (no token, one answer for everyone): keyed on path and query alone.
    assert keying.pop("/files/*").headers == ()
    assert {k.headers[0] for k in keying.values()} == {"Authorization"}
    assert all(k.all_query_strings for k in keying.values())
    with EdgeCache(tmp_path / "nginx", base_url, honour_vary=False) as like_cloudfront:
        for url in (urls[0], urls[-1]):
            for _ in range(2):
                for i in (0, 1):
                    answer = httpx.get(
                        f"{like_cloudfront.url}{url}",
                        headers={"Authorization": f"Bearer {tokens[i]}"},
                        timeout=30,
                    )
                    seen = {
                        t for t in (f"doc-{k}" for k in range(DOCS)) if t.encode() in answer.content
                    }
                    assert seen == titles_seen(i, DOCS), (i, url, answer.headers["x-cache-status"])
