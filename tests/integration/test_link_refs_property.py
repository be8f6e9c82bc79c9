"""The reverse-link index under random sequences of link, unlink, publish, discard, trash and
restore (hypothesis), against a model written from docs/content.md.

After every step the stored reverse items must be exactly the union of each source's draft and
published links (trashed sources included), and `GET .../links` must answer what the model
says: a read token the sources whose published version links the target and that are not
trashed, a full token the sources whose latest draft links it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from content_service.content.schema import get_type
from infra.local_stack import LocalStack
from tests.support.blog import define_every_cardinality
from tests.support.clients import WorkspaceAccess
from tests.support.content import Storage, create, publish, shared_workspace
from tests.support.fuzzing import stack_properties

SOURCES = 2
TARGETS = {"author": 2, "tags": 2}
TARGET_TYPE = {"author": "author", "tags": "tag"}

Links = dict[str, list[str]]


@pytest.fixture(scope="module")
def site(base_url: str) -> Iterator[WorkspaceAccess]:
    with shared_workspace(base_url) as access:
        define_every_cardinality(access.full)
        yield access


@dataclass
class Source:
    """One post as the model sees it: its draft's links, its published ones (None while not
    published), whether it is in the trash."""

    id: str
    draft: Links = field(default_factory=lambda: {"author": [], "tags": []})
    published: Links | None = None
    trashed: bool = False

    @property
    def status(self) -> str:
        if self.published is None:
            return "draft"
        return "published" if self.published == self.draft else "changed"


@dataclass
class World:
    site: WorkspaceAccess
    storage: Storage
    targets: dict[str, list[str]]
    sources: list[Source]
    keys: dict[str, str]
    """Field name -> storage key of post's relation fields."""


Step = tuple[str, int, str, int]  # (action, source, field, target)
steps = st.lists(
    st.tuples(
        st.sampled_from(
            ["link", "link", "unlink", "unlink", "publish", "discard", "trash", "restore"]
        ),
        st.integers(0, SOURCES - 1),
        st.sampled_from(sorted(TARGETS)),
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=10,
)


def _write(world: World, source: Source, body: dict[str, Any]) -> None:
    response = world.site.full.patch(f"/api/v1/content/post/{source.id}", json=body)
    assert response.status_code == (404 if source.trashed else 200), response.text


def _link(world: World, source: Source, name: str, target: str, link: bool) -> None:
    _write(world, source, {"relations": {name: {"link" if link else "unlink": [target]}}})
    if source.trashed:
        return
    held = source.draft[name]
    if link and target not in held:
        source.draft[name] = [target] if name == "author" else [*held, target]
    elif not link and target in held:
        held.remove(target)


def _transition(world: World, source: Source, action: str) -> None:
    allowed = {
        "publish": not source.trashed and source.status in ("draft", "changed"),
        "discard": not source.trashed and source.status == "changed",
        "trash": not source.trashed,
        "restore": source.trashed,
    }[action]
    path = f"/api/v1/content/post/{source.id}"
    if action == "trash":
        response = world.site.full.delete(path)
    else:
        response = world.site.full.post(f"{path}/{action}")
    refused = 404 if source.trashed and action in ("publish", "discard") else 409
    assert response.status_code == ((204 if action == "trash" else 200) if allowed else refused)
    if not allowed:
        return
    if action == "publish":
        source.published = {k: list(v) for k, v in source.draft.items()}
    elif action == "discard":
        source.draft = {k: list(v) for k, v in (source.published or {}).items()}
    else:
        source.trashed = action == "trash"


def _apply(world: World, step: Step) -> None:
    action, index, name, target_index = step
    source = world.sources[index]
    if action in ("link", "unlink"):
        # An unlink takes one of the draft's links when it has some, so it removes something.
        held = source.draft[name] if action == "unlink" and source.draft[name] else None
        target = held[target_index % len(held)] if held else world.targets[name][target_index]
        _link(world, source, name, target, action == "link")
    else:
        _transition(world, source, action)


def _stored(world: World, target: str) -> set[tuple[str, str]]:
    """(source id, field key) of the target's reverse items, read from the table."""
    pages = world.storage.client.get_paginator("query").paginate(
        TableName=world.storage.tables.content,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"REF#{world.site.id}#{target}"}},
        ConsistentRead=True,
    )
    return {
        (item["sourceId"]["S"], item["fieldKey"]["S"])
        for page in pages
        for item in page.get("Items", [])
    }


def _answered(world: World, client: Any, type_name: str, target: str) -> set[tuple[str, str]]:
    response = client.get(f"/api/v1/content/{type_name}/{target}/links", params={"pageSize": 100})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == len(body["items"])
    return {(i["id"], i["field"]) for i in body["items"]}


def _check(world: World, answers: set[str]) -> None:
    """The stored reverse items of every target, and `/links` of the targets of the fields in
    `answers` (the field a link or unlink touched; every field after a state change)."""
    for name, targets in world.targets.items():
        for target in targets:
            index = {
                (s.id, world.keys[name])
                for s in world.sources
                for links in (s.draft, s.published or {})
                if target in links.get(name, ())
            }
            assert _stored(world, target) == index
            live = {
                (s.id, name)
                for s in world.sources
                if not s.trashed and s.published and target in s.published[name]
            }
            latest = {
                (s.id, name) for s in world.sources if not s.trashed and target in s.draft[name]
            }
            if name not in answers:
                continue
            type_name = TARGET_TYPE[name]
            assert _answered(world, world.site.read, type_name, target) == live
            assert _answered(world, world.site.full, type_name, target) == latest


@stack_properties(quick_examples=3)
@given(steps=steps)
# Besides the random ones: a publish replacing a to-one link, then a draft-only unlink and a
# discard, each of which leaves a reverse item to delete.
@example(
    steps=[
        ("link", 0, "author", 0),
        ("publish", 0, "author", 0),
        ("link", 0, "author", 1),
        ("publish", 0, "author", 0),
    ]
)
@example(
    steps=[
        ("link", 0, "tags", 0),
        ("link", 0, "tags", 1),
        ("unlink", 0, "tags", 0),
        ("publish", 0, "tags", 0),
        ("link", 0, "tags", 0),
        ("discard", 0, "tags", 0),
        ("trash", 0, "tags", 0),
        ("restore", 0, "tags", 0),
    ]
)
def test_the_index_and_links_follow_the_model(
    site: WorkspaceAccess, stack: LocalStack, steps: list[Step]
) -> None:
    client = site.full
    targets: dict[str, list[str]] = {}
    for name, count in TARGETS.items():
        type_name = TARGET_TYPE[name]
        made = [create(client, type_name, {})["id"] for _ in range(count)]
        for target in made:
            publish(client, type_name, target)
        targets[name] = made
    post_type = get_type(site.id, "post")
    assert post_type is not None
    keys = {f.name: f.key for f in post_type.relation_fields}
    sources = [Source(create(client, "post", {"title": "p"})["id"]) for _ in range(SOURCES)]
    world = World(site, Storage(stack), targets, sources, keys)
    for step in steps:
        _apply(world, step)
        _check(world, {step[2]} if step[0] in ("link", "unlink") else set(TARGETS))
