"""Purge on publish through a real Varnish edge (`harness.varnish_edge`) with a day's s-maxage
(docs/api.md, "Purge on publish"): the purge function runs on its own poller thread, as on
AWS, and purges the edge by the cache tags of each visible change.

- a publish of entry X brings fresh answers for everything tagged with X (its read, lists of
  its type, an entry of another type expanding it), while answers not tagged with it (another
  entry of its type, a list of another type) stay cached: no origin fetch for them;
- unpublish, trash and restore purge the entry's read and its type's lists, and an asset's
  publish purges the entries expanding it;
- a token narrowed purges what the edge holds for it, and a content type replaced every
  answer of its workspace;
- several read tokens with different audiences reading the same URLs through Varnish never
  get another token's answer.

A purge is asynchronous: each test polls the edge until the fresh answer arrives, with a
deadline, and asserts what was served, never how long it took.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest

from content_service.clock import iso_utc
from content_service.content.cache_tags import entry_tag, list_tag
from content_service.content.writes import run_due
from harness.varnish_edge import VarnishEdge
from harness.webhooks import FakeClock
from infra.local_stack import LocalStack
from tests.support.assets import new_asset, png, uploaded
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish, shared_workspace
from tests.support.gated_docs import gated_writer, publish_docs, readers, titles_seen
from tests.support.graphql import PATH
from tests.support.settings import settings_changed
from tests.support.waiting import wait_until

pytestmark = pytest.mark.edge

DAY = 86400
PURGE_DEADLINE = 30.0
"""Seconds a purge may take to reach the edge before a test fails (generous: a loaded machine)."""
TOKENS = 6
READS = 5
DOCS = 3


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory, stack: LocalStack) -> Iterator[VarnishEdge]:
    """Varnish in front of the stack, ignoring `Vary` as CloudFront does (the template's key
    alone keeps tokens apart), named by `EDGE_PURGE_URL`, answers cached a day, and the purge
    function's stream poller running on its thread for the module."""
    assert stack.pollers is not None
    assert stack.base_url is not None
    (poller,) = [p for p in stack.pollers.streams if p.runtime.logical_id == "PurgeFunction"]
    directory = tmp_path_factory.mktemp("varnish")
    with VarnishEdge(directory, stack.base_url, honour_vary=False) as running:
        purging = settings_changed(
            lambda s: dataclasses.replace(
                s,
                edge_purge_url=running.purge_url,
                delivery=dataclasses.replace(s.delivery, cache_seconds=DAY),
            )
        )
        with purging:
            poller.start()
            try:
                yield running
            finally:
                poller.stop()


@dataclass
class Site:
    workspace: WorkspaceAccess
    ids: dict[str, str]
    reader: httpx.Client

    def entry_url(self, name: str, kind: str = "article") -> str:
        return f"/api/v1/content/{kind}/{self.ids[name]}"


@pytest.fixture(scope="module")
def site(edge: VarnishEdge, base_url: str) -> Iterator[Site]:
    """Published articles a1..a3 and a note; a feature linking a1 and a hero asset (a draft)."""
    with shared_workspace(base_url) as workspace:
        full = workspace.full
        define(full, "article", [{"name": "title", "type": "string"}])
        define(full, "note", [{"name": "title", "type": "string"}])
        define(
            full,
            "feature",
            [
                {"name": "title", "type": "string"},
                {
                    "name": "article",
                    "type": "relation",
                    "target": "article",
                    "cardinality": "many-to-one",
                },
                {"name": "hero", "type": "asset"},
            ],
        )
        ids = {}
        for name in ("a1", "a2", "a3"):
            ids[name] = create(full, "article", {"title": f"{name} v1"})["id"]
            publish(full, "article", ids[name])
        ids["n1"] = create(full, "note", {"title": "n1 v1"})["id"]
        publish(full, "note", ids["n1"])
        ids["hero"] = new_asset(full, png(), "hero.png", "image/png", title="hero v1")["id"]
        relations = {"article": {"link": [ids["a1"]]}, "hero": {"link": [ids["hero"]]}}
        ids["f1"] = create(full, "feature", {"title": "f1"}, relations=relations)["id"]
        publish(full, "feature", ids["f1"])
        settled(edge, workspace.id, ids["f1"])
        headers = {"Authorization": f"Bearer {workspace.read_token}"}
        with httpx.Client(base_url=edge.url, headers=headers, timeout=30) as reader:
            yield Site(workspace, ids, reader)


def settled(edge: VarnishEdge, workspace_id: str, last_published: str) -> None:
    """Waits for the purges of a fixture's own writes (the stream is read in order: the last
    one's purge comes last), so none lands in the middle of a test."""
    tag = entry_tag(workspace_id, last_published)
    wait_until(
        lambda: any(tag in purge.tags for purge in edge.purges()),
        timeout=PURGE_DEADLINE,
        message="the purges of the fixture's writes",
    )


def cached(site: Site, *urls: str) -> None:
    """Each URL read until the edge holds it: a miss (the origin's answer), then a hit."""
    for url in urls:
        site.reader.get(url)
        assert site.reader.get(url).headers["x-cache"] == "HIT", url


def fresh(site: Site, url: str, seen: Callable[[httpx.Response], bool]) -> httpx.Response:
    """Reads `url` through the edge until `seen` holds of the answer (the purge arrived)."""
    answers: list[httpx.Response] = []

    def arrived() -> bool:
        answers.append(site.reader.get(url))
        return seen(answers[-1])

    wait_until(arrived, timeout=PURGE_DEADLINE, message=f"a fresh answer to {url}")
    assert all(a.headers["x-cache"] == "HIT" for a in answers[:-1]), url
    return answers[-1]


def shows(text: str) -> Callable[[httpx.Response], bool]:
    return lambda answer: text.encode() in answer.content


def lacks(text: str) -> Callable[[httpx.Response], bool]:
    return lambda answer: text.encode() not in answer.content


def test_a_publish_refreshes_what_is_tagged_with_the_entry_and_nothing_else(
    edge: VarnishEdge, site: Site
) -> None:
    tagged = [
        site.entry_url("a1"),
        "/api/v1/content/article?sort=createdAt",
        f"{site.entry_url('f1', 'feature')}?expand=article",
    ]
    untagged = [site.entry_url("a2"), "/api/v1/content/note"]
    cached(site, *tagged, *untagged)
    fetched = edge.origin_fetches()
    purges = len(edge.purges())
    full = site.workspace.full
    assert full.patch(site.entry_url("a1"), json={"values": {"title": "a1 v2"}}).status_code == 200
    publish(full, "article", site.ids["a1"])
    for url in tagged:
        answer = fresh(site, url, shows("a1 v2"))
        assert (answer.status_code, answer.headers["x-cache"]) == (200, "MISS"), url
    for url in untagged:
        answer = site.reader.get(url)
        assert (answer.headers["x-cache"], b"a1 v2" in answer.content) == ("HIT", False), url
    wait_until(lambda: edge.origin_fetches() - fetched >= len(tagged), message="the counters")
    assert edge.origin_fetches() - fetched == len(tagged)
    mine = [
        p for p in edge.purges()[purges:] if entry_tag(site.workspace.id, site.ids["a1"]) in p.tags
    ]
    assert mine, edge.purges()[purges:]
    assert list_tag(site.workspace.id, "article") in mine[0].tags
    assert sum(p.purged for p in mine) >= len(tagged), (mine, edge.purges()[purges:])


def test_unpublish_trash_and_restore_each_purge_the_entry_and_its_type_s_lists(
    site: Site,
) -> None:
    full = site.workspace.full
    listing = "/api/v1/content/article?sort=-createdAt"
    a2, a3 = site.entry_url("a2"), site.entry_url("a3")
    cached(site, listing, a2, a3)

    assert full.post(f"{a2}/unpublish").status_code == 200
    fresh(site, listing, lacks("a2 v1"))
    assert fresh(site, a2, lambda answer: answer.status_code == 404).status_code == 404

    cached(site, listing)
    assert full.delete(a3).status_code == 204
    fresh(site, listing, lacks("a3 v1"))
    assert fresh(site, a3, lambda answer: answer.status_code == 404).status_code == 404

    cached(site, listing)
    assert full.post(f"{a3}/restore").status_code == 200
    fresh(site, listing, shows("a3 v1"))
    assert fresh(site, a3, shows("a3 v1")).status_code == 200


def test_an_asset_s_publish_purges_the_entries_that_expand_it(site: Site) -> None:
    feature = f"{site.entry_url('f1', 'feature')}?expand=hero"
    query = "{ features { items { title hero { title } } } }"
    graphql = str(httpx.URL(PATH, params={"query": query}))
    cached(site, feature, graphql)
    assert b"hero v1" not in site.reader.get(feature).content  # a draft: not shown
    published = site.workspace.full.post(f"/api/v1/assets/{site.ids['hero']}/publish")
    assert published.status_code == 200, published.text
    assert fresh(site, feature, shows("hero v1")).headers["x-cache"] == "MISS"
    assert fresh(site, graphql, shows("hero v1")).headers["x-cache"] == "MISS"


def test_a_narrowed_token_s_answers_are_purged_and_a_type_change_purges_the_workspace(
    site: Site, admin: httpx.Client, edge: VarnishEdge
) -> None:
    """A token narrowed through the API drops what the edge holds for it (its `k:` tag); a
    content type replaced drops every answer of the workspace (`w:`), whatever its type."""
    workspace = site.workspace
    created = admin.post(
        "/api/v1/tokens", json={"name": "app", "workspaceId": workspace.id, "access": "read"}
    )
    assert created.status_code == 201, created.text
    headers = {"Authorization": f"Bearer {created.json()['token']}"}
    notes = "/api/v1/content/note"
    with httpx.Client(base_url=edge.url, headers=headers, timeout=30) as app:
        narrowed = Site(workspace, site.ids, app)
        cached(narrowed, notes)
        cached(site, notes)
        changed = admin.patch(
            f"/api/v1/tokens/{created.json()['id']}", json={"contentTypes": ["article"]}
        )
        assert changed.status_code == 200, changed.text
        assert fresh(narrowed, notes, lambda answer: answer.status_code != 200).status_code in {
            403,
            404,
        }
    assert site.reader.get(notes).headers["x-cache"] == "HIT"  # another token's answer stays
    cached(site, site.entry_url("a1"))
    fields = [{"name": "title", "type": "string"}, {"name": "tags", "type": "string"}]
    replaced = workspace.full.put(
        "/api/v1/content-types/note", json={"name": "note", "fields": fields}
    )
    assert replaced.status_code == 200, replaced.text
    for url in (notes, site.entry_url("a1")):
        fresh(site, url, lambda answer: answer.headers["x-cache"] == "MISS")


def test_a_schedule_that_runs_and_an_asset_replaced_purge_what_they_alter(site: Site) -> None:
    """A scheduled publish is a publish (the scheduler's run writes its event); an asset's file
    replaced and published again reaches the entries expanding it with the new file's URL."""
    full = site.workspace.full
    listing = "/api/v1/content/article?sort=createdAt&pageSize=50"
    scheduled = create(full, "article", {"title": "s1 v1"})["id"]
    cached(site, listing)
    clock = FakeClock()
    at = iso_utc(clock.now() + 600)
    made = full.post(
        f"/api/v1/content/article/{scheduled}/schedules", json={"action": "publish", "at": at}
    )
    assert made.status_code == 201, made.text
    clock.advance(660)
    assert run_due(lambda: False, clock).done >= 1
    fresh(site, listing, shows("s1 v1"))

    asset = new_asset(full, png(), "first.png", "image/png", title="swap")
    path = f"/api/v1/assets/{asset['id']}"
    first_url = full.post(f"{path}/publish").json()["url"]
    relations = {"hero": {"link": [asset["id"]]}}
    holder = create(full, "feature", {"title": "swap holder"}, relations=relations)["id"]
    publish(full, "feature", holder)
    expanded = f"/api/v1/content/feature/{holder}?expand=hero"
    fresh(site, expanded, shows(first_url))
    cached(site, expanded)
    upload_id = uploaded(full, png(40, 20), "second.png", "image/png")
    assert full.post(f"{path}/file", json={"uploadId": upload_id}).status_code == 200
    second_url = full.post(f"{path}/publish").json()["url"]
    assert second_url != first_url
    fresh(site, expanded, shows(second_url))


@pytest.fixture(scope="module")
def library(edge: VarnishEdge, base_url: str) -> Iterator[tuple[list[str], list[str]]]:
    """DOCS audience-gated docs, doc k for audience `d<k>`; token i holds the audiences of the
    bits of i + 1, so the tokens see different sets. The URLs they all read; the tokens."""
    with shared_workspace(base_url) as workspace:
        define(workspace.full, "doc", [{"name": "title", "type": "string"}], audienceGated=True)
        with gated_writer(base_url, workspace.id, DOCS) as writer:
            docs = publish_docs(writer, DOCS)
        settled(edge, workspace.id, docs[-1])
        tokens = readers(workspace.id, DOCS, TOKENS)
        urls = [
            "/api/v1/content/doc",
            "/api/v1/content/doc?pageSize=2&fields=title",
            str(httpx.URL(PATH, params={"query": "{ docs { items { title } } }"})),
        ]
        yield urls, tokens


def _read(edge_url: str, urls: list[str], token: str, seed: int) -> list[tuple[str, str, bytes]]:
    order = [url for _ in range(READS) for url in urls]
    random.Random(seed).shuffle(order)
    with httpx.Client(
        base_url=edge_url, headers={"Authorization": f"Bearer {token}"}, timeout=60
    ) as client:
        answers = []
        for url in order:
            response = client.get(url)
            assert response.status_code == 200, (url, response.text[:200])
            answers.append((url, response.headers["x-cache"], response.content))
        return answers


def test_tokens_with_different_audiences_never_get_another_s_answer_through_varnish(
    edge: VarnishEdge, library: tuple[list[str], list[str]]
) -> None:
    urls, tokens = library
    with ThreadPoolExecutor(TOKENS) as readers:
        results = list(
            readers.map(lambda i: _read(edge.url, urls, tokens[i], i), range(len(tokens)))
        )
    statuses: Counter[str] = Counter()
    bodies: dict[tuple[int, str], set[bytes]] = defaultdict(set)
    from_origin: set[tuple[int, str]] = set()
    for index, answers in enumerate(results):
        for url, cache, body in answers:
            bodies[(index, url)].add(body)
            statuses[cache] += 1
            if cache == "MISS":
                from_origin.add((index, url))
            seen = {t for t in (f"doc-{k}" for k in range(DOCS)) if t.encode() in body}
            assert seen <= titles_seen(index, DOCS), (index, url)
    # One answer per (token, URL), fetched for that token's own request, and no two tokens
    # share one: a shared cache entry would break all three.
    assert all(len(found) == 1 for found in bodies.values())
    assert from_origin == set(bodies)
    for url in urls:
        assert len({next(iter(bodies[(i, url)])) for i in range(len(tokens))}) == len(tokens)
    assert statuses["MISS"] == len(tokens) * len(urls)
    assert statuses["HIT"] == len(tokens) * len(urls) * (READS - 1)


def test_a_read_token_s_answer_is_not_served_without_its_token_and_only_local_purges_run(
    edge: VarnishEdge, library: tuple[list[str], list[str]]
) -> None:
    urls, tokens = library
    headers = {"Authorization": f"Bearer {tokens[0]}"}
    assert httpx.get(f"{edge.url}{urls[0]}", headers=headers, timeout=30).status_code == 200
    assert httpx.get(f"{edge.url}{urls[0]}", timeout=30).status_code == 401
    elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(transport=elsewhere, timeout=30) as outsider:
        refused = outsider.request("PURGE", edge.purge_url, headers={"xkey-purge": "w:x"})
    assert refused.status_code == 403
    assert (
        httpx.get(f"{edge.url}{urls[0]}", headers=headers, timeout=30).headers["x-cache"] == "HIT"
    )
