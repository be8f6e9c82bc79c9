"""Lists over published values while their drafts differ: a property over random edit,
publish, unpublish and discard sequences (hypothesis), against a model written from
docs/content.md.

After every step, a read token's list and a full token's list (filtered, sorted, with totals)
must be exactly what the model says: a read token sees each entry's published version, and only
entries that have one, never a draft (not even in a total); a full token sees every entry's
latest version with its state, and the published ones when it asks for `version=published`.
The lists cover the index (an `eq` on one sortable field and a sort by another, a status
partition) and the in-memory path (`contains`), in REST and GraphQL.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.clients import WorkspaceAccess
from tests.support.content import define, shared_workspace
from tests.support.fuzzing import stack_properties
from tests.support.graphql import post as graphql_post

FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string", "required": True},
    {"name": "rank", "type": "integer", "sortable": True},
    {"name": "batch", "type": "string", "sortable": True},
]
ENTRIES = 4


@pytest.fixture(scope="module")
def site(base_url: str) -> Iterator[WorkspaceAccess]:
    with shared_workspace(base_url) as access:
        define(access.full, "item", FIELDS)
        yield access


@dataclass
class Model:
    """What each entry is: its latest values and state, and its published values (or None)."""

    latest: dict[str, Any]
    published: dict[str, Any] | None = None
    status: str = "draft"


@dataclass
class World:
    site: WorkspaceAccess
    batch: str
    ids: list[str] = field(default_factory=list)
    models: list[Model] = field(default_factory=list)

    def url(self, index: int, tail: str = "") -> str:
        return f"/api/v1/content/item/{self.ids[index]}{tail}"


Step = tuple[str, int, int]  # (action, entry, new rank)
steps = st.lists(
    st.tuples(
        st.sampled_from(["update", "publish", "unpublish", "discard"]),
        st.integers(0, ENTRIES - 1),
        st.integers(0, 5),
    ),
    min_size=1,
    max_size=7,
)


def _apply(world: World, step: Step) -> None:
    action, index, rank = step
    model = world.models[index]
    client = world.site.full
    if action == "update":
        values = {"title": f"t{rank}-{uuid.uuid4().hex[:4]}", "rank": rank}
        response = client.patch(world.url(index), json={"values": values})
        assert response.status_code == 200, response.text
        model.latest = {**model.latest, **values}
        model.status = (
            "draft"
            if model.published is None
            else ("published" if model.latest == model.published else "changed")
        )
        return
    response = client.post(world.url(index, f"/{action}"))
    allowed = {
        "publish": model.status in ("draft", "changed"),
        "unpublish": model.status in ("published", "changed"),
        "discard": model.status == "changed",
    }[action]
    assert response.status_code == (200 if allowed else 409), (step, response.text)
    if not allowed:
        return
    if action == "publish":
        model.published, model.status = dict(model.latest), "published"
    elif action == "unpublish":
        model.published, model.status = None, "draft"
    else:
        model.latest, model.status = dict(model.published or {}), "published"


def _expected(world: World, view: str, rank: int | None, title_part: str | None) -> list[Any]:
    """(id, status, title, rank) of what a list shows, sorted by -rank then id, as the model
    says: `view` "published" is the delivery view, "latest" the preview."""
    rows = []
    for entry_id, model in zip(world.ids, world.models, strict=True):
        values = model.published if view == "published" else model.latest
        if values is None:
            continue
        if rank is not None and values["rank"] != rank:
            continue
        if title_part is not None and title_part not in values["title"]:
            continue
        status = "published" if view == "published" else model.status
        rows.append((entry_id, status, values["title"], values["rank"]))
    return sorted(rows, key=lambda r: (-r[3], r[0]))


def _rest(client: httpx.Client, world: World, filters: list[dict[str, Any]], **params: Any) -> Any:
    query = {
        "filter": json.dumps(
            {"and": [{"field": "batch", "op": "eq", "value": world.batch}, *filters]}
        ),
        "sort": "-rank",
        "pageSize": 100,
        **params,
    }
    response = client.get("/api/v1/content/item", params=query)
    assert response.status_code == 200, response.text
    body = response.json()
    rows = [
        (e["id"], e["status"], e["values"]["title"], e["values"]["rank"]) for e in body["items"]
    ]
    assert body["total"] == len(rows)
    return rows


def _check(world: World) -> None:
    site = world.site
    for client, view, params in (
        (site.read, "published", {}),
        (site.full, "latest", {}),
        (site.full, "published", {"version": "published"}),
    ):
        assert _rest(client, world, [], **params) == _expected(world, view, None, None)
    for rank in (0, 3):
        eq = [{"field": "rank", "op": "eq", "value": rank}]
        assert _rest(site.read, world, eq) == _expected(world, "published", rank, None)
    contains = [{"field": "title", "op": "contains", "value": "t3"}]
    assert _rest(site.read, world, contains) == _expected(world, "published", None, "t3")
    assert _rest(site.full, world, contains) == _expected(world, "latest", None, "t3")
    changed = [(r[0], r[2]) for r in _expected(world, "latest", None, None) if r[1] == "changed"]
    status_filter = json.dumps(
        {
            "and": [
                {"field": "batch", "op": "eq", "value": world.batch},
                {"field": "status", "op": "eq", "value": "changed"},
            ]
        }
    )
    listed = site.full.get(
        "/api/v1/content/item", params={"filter": status_filter, "sort": "-updatedAt"}
    ).json()
    assert sorted((e["id"], e["values"]["title"]) for e in listed["items"]) == sorted(changed)
    assert listed["total"] == len(changed)
    _check_graphql(world)


def _check_graphql(world: World) -> None:
    query = (
        'query($f: Filter) { items(filter: $f, sort: "-rank", pageSize: 100) '
        "{ total items { id status title rank } } }"
    )
    variables = {"f": {"and": [{"field": "batch", "op": "eq", "value": world.batch}]}}
    for client, view in ((world.site.read, "published"), (world.site.full, "latest")):
        result = graphql_post(client, query, variables)
        assert "errors" not in result, result
        found = result["data"]["items"]
        rows = [(e["id"], e["status"].lower(), e["title"], e["rank"]) for e in found["items"]]
        assert rows == _expected(world, view, None, None)
        assert found["total"] == len(rows)


@stack_properties(quick_examples=8)
@given(steps=steps)
def test_lists_over_published_values_while_drafts_differ(
    site: WorkspaceAccess, steps: list[Step]
) -> None:
    world = World(site, batch=uuid.uuid4().hex)
    for index in range(ENTRIES):
        values = {"title": f"t{index}", "rank": index, "batch": world.batch}
        response = site.full.post("/api/v1/content/item", json={"values": values})
        assert response.status_code == 201, response.text
        world.ids.append(response.json()["id"])
        world.models.append(Model(latest={"title": f"t{index}", "rank": index}))
        if index % 2 == 0:
            _apply(world, ("publish", index, 0))
    _check(world)
    for step in steps:
        _apply(world, step)
        _check(world)
