"""The relation planner, and the expansions that fetch what it plans, against the in-memory
content store.

docs/content.md ("Relations"): an expanded to-many relation shows its first `pageSize` (25)
visible targets in link order and a to-one relation its first visible target; a target that
is trashed, gone, a draft in the delivery view or of another audience is skipped. The planner
asks for the first N ids and, only while fewer than N were visible, for as many more as are
missing: one BatchGetItem round per level, a further round only for rows that need it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from content_service.content import store as content_store
from content_service.content.entries import get_entry
from content_service.content.relations import Targets, from_known
from content_service.content.requests import DEFAULT_PAGE_SIZE, GetRequest
from content_service.identity.principal import Caller
from tests.support.content_model import (
    AUTHOR,
    EDITOR,
    TAG,
    WORKSPACE,
    content_type,
    entry,
    entry_id,
    field,
    published,
    token,
)
from tests.support.content_store import InMemoryContentStore

POST = content_type(
    "post",
    field("title", "string", "f1"),
    field("tags", "relation", "f2", target="tag", cardinality="many-to-many"),
    field("author", "relation", "f3", target="author", cardinality="many-to-one"),
)
POST_ID = 1
MISSING = 99
TRASHED = 100
# Tags 201.. are visible; the post links a missing id and a trashed tag first.
VISIBLE_TAGS = list(range(201, 201 + DEFAULT_PAGE_SIZE + 1))
TAG_LINKS = [MISSING, TRASHED, *VISIBLE_TAGS]
DRAFT_AUTHOR, LIVE_AUTHOR = 301, 302


@pytest.fixture
def posts() -> Iterator[InMemoryContentStore]:
    fake = InMemoryContentStore()
    for content in (TAG, AUTHOR, POST):
        fake.add_type(content)
    fake.add_entry(TAG, entry(TAG, TRASHED, {"label": "gone"}, deleted=True))
    for n in VISIBLE_TAGS:
        fake.add_entry(TAG, entry(TAG, n, {"label": f"tag {n}"}))
    fake.add_entry(AUTHOR, entry(AUTHOR, DRAFT_AUTHOR, {"name": "draft"}))
    live = entry(AUTHOR, LIVE_AUTHOR, {"name": "live"}, status="published")
    fake.add_entry(AUTHOR, live, published(live))
    with content_store.using(fake):
        yield fake


def _post(fake: InMemoryContentStore, author: int, *, live: bool = False) -> None:
    links = {"tags": [entry_id(n) for n in TAG_LINKS], "author": [entry_id(author)]}
    post = entry(
        POST, POST_ID, {"title": "hello"}, links=links, status="published" if live else "draft"
    )
    fake.add_entry(POST, post, published(post) if live else None)


def _expanded(caller: Caller, relation: str, view: str = "latest") -> list[str]:
    request = GetRequest(
        caller,
        WORKSPACE,
        "post",
        entry_id(POST_ID),
        expand=(relation,),
        view=view,  # type: ignore[arg-type]
    )
    relations = get_entry(request).relations
    assert relations is not None
    return [target.id for target in relations[relation]]


def test_targets_ask_for_what_is_missing_until_enough_are_visible() -> None:
    targets: Targets[str] = Targets(["a", "b", "c", "d", "e"], 3)
    assert targets.ask() == ["a", "b", "c"]
    targets.take(["A", None, None])
    assert targets.ask() == ["d", "e"]
    targets.take(["D", "E"])
    assert targets.ask() == []
    assert targets.found == ["A", "D", "E"]


def test_from_known_waits_for_every_id_it_asks() -> None:
    known = {"a": None, "b": "B"}
    assert from_known(known, ["a", "b", "c"], 1) == ["B"]
    assert from_known(known, ["a", "b", "c"], 2) is None


def test_a_to_many_expansion_shows_the_first_page_of_visible_targets_in_link_order(
    posts: InMemoryContentStore,
) -> None:
    _post(posts, LIVE_AUTHOR)
    posts.calls.clear()
    shown = _expanded(EDITOR, "tags")
    assert shown == [entry_id(n) for n in VISIBLE_TAGS[:DEFAULT_PAGE_SIZE]]
    # 25 ids, of which 23 visible; then the 2 missing ones: two rounds, not one per target.
    assert posts.calls.count("get_many content") == 2


def test_a_to_one_expansion_skips_a_draft_in_the_delivery_view(
    posts: InMemoryContentStore,
) -> None:
    _post(posts, DRAFT_AUTHOR, live=True)
    assert _expanded(EDITOR, "author") == [entry_id(DRAFT_AUTHOR)]
    assert _expanded(token(access="read"), "author", "published") == []


def test_a_to_one_expansion_shows_a_published_target_to_a_read_token(
    posts: InMemoryContentStore,
) -> None:
    _post(posts, LIVE_AUTHOR, live=True)
    assert _expanded(token(access="read"), "author", "published") == [entry_id(LIVE_AUTHOR)]
