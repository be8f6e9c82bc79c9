"""Relations through real HTTP: link and unlink, cardinalities, expand, the relations route, and
batching observed at the storage boundary."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from infra.local_stack import LocalStack
from tests.support.blog import LABEL, define_every_cardinality
from tests.support.clients import WorkspaceAccess
from tests.support.content import (
    Storage,
    assert_error,
    capture,
    create,
    define,
    publish,
    shared_workspace,
)
from tests.support.field_types import relation

NewWorkspace = Callable[..., WorkspaceAccess]


def _define_blog(workspace: WorkspaceAccess) -> None:
    """The blog of every cardinality, tags with notes, and related posts (many-to-many to the
    post type itself)."""
    define_every_cardinality(
        workspace.full,
        tag_fields=(LABEL, {"name": "notes", "type": "richtext"}),
        post_extra=(relation("related", "post", "many-to-many"),),
    )


@pytest.fixture
def blog(new_workspace: NewWorkspace) -> WorkspaceAccess:
    workspace = new_workspace()
    _define_blog(workspace)
    return workspace


def ids_of(entries: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in entries]


def test_link_expand_and_unlink_preserving_order(blog: WorkspaceAccess) -> None:
    client = blog.full
    author = create(client, "author", {"name": "Ann"})
    tags = [create(client, "tag", {"label": label}) for label in ("a", "b", "c")]
    post = create(
        client,
        "post",
        {"title": "P"},
        relations={
            "author": {"link": [author["id"]]},
            "tags": {"link": [tags[2]["id"], tags[0]["id"]]},
        },
    )
    assert "relations" not in post
    assert "author" not in post["values"]
    path = f"/api/v1/content/post/{post['id']}"
    expanded = client.get(path, params={"expand": "author,tags"}).json()
    assert ids_of(expanded["relations"]["author"]) == [author["id"]]
    assert ids_of(expanded["relations"]["tags"]) == [tags[2]["id"], tags[0]["id"]]
    assert expanded["relations"]["author"][0]["values"] == {"name": "Ann"}
    assert set(expanded["relations"]) == {"author", "tags"}

    changed = client.patch(
        path, json={"relations": {"tags": {"link": [tags[1]["id"]], "unlink": [tags[2]["id"]]}}}
    )
    assert changed.status_code == 200, changed.text
    expanded = client.get(path, params={"expand": "tags"}).json()
    assert ids_of(expanded["relations"]["tags"]) == [tags[0]["id"], tags[1]["id"]]
    # Linking again is a no-op; unlinking what is not linked too.
    client.patch(
        path, json={"relations": {"tags": {"link": [tags[0]["id"]], "unlink": [author["id"]]}}}
    )
    expanded = client.get(path, params={"expand": "tags,author"}).json()
    assert ids_of(expanded["relations"]["tags"]) == [tags[0]["id"], tags[1]["id"]]
    assert ids_of(expanded["relations"]["author"]) == [author["id"]]


def test_a_to_one_link_replaces_the_current_target(blog: WorkspaceAccess) -> None:
    first, second = (create(blog.full, "author", {"name": n}) for n in ("A", "B"))
    post = create(blog.full, "post", {}, relations={"author": {"link": [first["id"]]}})
    path = f"/api/v1/content/post/{post['id']}"
    blog.full.patch(path, json={"relations": {"author": {"link": [second["id"]]}}})
    assert ids_of(
        blog.full.get(path, params={"expand": "author"}).json()["relations"]["author"]
    ) == [second["id"]]
    error = assert_error(
        blog.full.patch(
            path, json={"relations": {"author": {"link": [first["id"], second["id"]]}}}
        ),
        422,
    )
    assert error["details"][0]["location"] == "relations.author.link"


def test_exclusive_cardinalities_give_a_target_one_source(
    blog: WorkspaceAccess, storage: Storage
) -> None:
    client = blog.full
    image = create(client, "image", {"url": "u"})
    section = create(client, "section", {"heading": "h"})
    one = create(
        client,
        "post",
        {"title": "one"},
        relations={"cover": {"link": [image["id"]]}, "sections": {"link": [section["id"]]}},
    )
    with storage.unchanged(blog.id):
        for field, target in (("cover", image), ("sections", section)):
            response = client.post(
                "/api/v1/content/post",
                json={"values": {"title": "two"}, "relations": {field: {"link": [target["id"]]}}},
            )
            error = assert_error(response, 409, "conflict")
            assert target["id"] in error["message"]
    # Unlinking frees the target for another source.
    client.patch(
        f"/api/v1/content/post/{one['id']}",
        json={"relations": {"cover": {"unlink": [image["id"]]}}},
    )
    two = create(client, "post", {"title": "two"}, relations={"cover": {"link": [image["id"]]}})
    # Purging a source frees its targets too; trashing does not (restore brings links back).
    path = f"/api/v1/content/post/{one['id']}"
    assert client.delete(path).status_code == 204
    assert_error(
        client.post(
            "/api/v1/content/post", json={"relations": {"sections": {"link": [section["id"]]}}}
        ),
        409,
    )
    assert client.delete(f"{path}/purge").status_code == 204
    three = create(
        client, "post", {"title": "three"}, relations={"sections": {"link": [section["id"]]}}
    )
    assert three["id"] != two["id"]


def test_a_stale_claim_is_taken_over(blog: WorkspaceAccess, stack: LocalStack) -> None:
    """A claim whose source no longer links the target (say, a cleanup that never ran) does not
    block the target forever."""
    assert stack.settings is not None
    client = blog.full
    image = create(client, "image", {"url": "u"})
    first = create(client, "post", {"title": "one"}, relations={"cover": {"link": [image["id"]]}})
    item = Storage(stack).entry_item(blog.id, first["id"])
    assert item is not None
    # Simulate a lost cleanup: the link is gone from the source but its claim remains.
    stack.emulator.dynamodb().update_item(
        TableName=stack.settings.tables.content,
        Key={"pk": {"S": f"ENTRY#{blog.id}#{first['id']}"}, "sk": {"S": "ENTRY"}},
        UpdateExpression="REMOVE links",
    )
    second = create(client, "post", {"title": "two"}, relations={"cover": {"link": [image["id"]]}})
    assert ids_of(
        client.get(f"/api/v1/content/post/{second['id']}", params={"expand": "cover"}).json()[
            "relations"
        ]["cover"]
    ) == [image["id"]]


@pytest.fixture(scope="module")
def link_targets(base_url: str) -> Iterator[tuple[WorkspaceAccess, dict[str, str]]]:
    """A blog whose writes in the invalid-link tests are all refused, with a tag and a trashed
    tag to aim at."""
    with shared_workspace(base_url) as workspace:
        _define_blog(workspace)
        tag = create(workspace.full, "tag", {"label": "t"})
        trashed = create(workspace.full, "tag", {"label": "gone"})
        assert workspace.full.delete(f"/api/v1/content/tag/{trashed['id']}").status_code == 204
        yield workspace, {"{tag}": tag["id"], "{trashed}": trashed["id"]}


@pytest.mark.parametrize(
    ("relations", "location"),
    [
        ({"author": {"link": ["not-an-id"]}}, "relations.author"),
        ({"author": {"link": ["00000000-0000-4000-8000-000000000000"]}}, "relations.author.link"),
        ({"title": {"link": []}}, "relations.title"),
        ({"nope": {"link": []}}, "relations.nope"),
        ({"tags": {"link": ["{tag}"], "unlink": ["{tag}"]}}, "relations.tags"),
        ({"author": {"link": ["{tag}"]}}, "relations.author.link"),
        ({"tags": {"link": ["{trashed}"]}}, "relations.tags.link"),
    ],
)
def test_invalid_links_are_422_and_write_nothing(
    link_targets: tuple[WorkspaceAccess, dict[str, str]],
    storage: Storage,
    relations: dict[str, Any],
    location: str,
) -> None:
    blog, ids = link_targets
    body = {
        name: {key: [ids.get(i, i) for i in targets] for key, targets in change.items()}
        for name, change in relations.items()
    }
    with storage.unchanged(blog.id):
        error = assert_error(
            blog.full.post("/api/v1/content/post", json={"values": {}, "relations": body}), 422
        )
    assert location in [d["location"] for d in error["details"]], error


def test_links_in_values_and_too_many_changes_are_refused(blog: WorkspaceAccess) -> None:
    author = create(blog.full, "author", {"name": "A"})
    error = assert_error(
        blog.full.post("/api/v1/content/post", json={"values": {"author": author["id"]}}), 422
    )
    assert error["details"][0]["location"] == "values.author"
    tags = [f"00000000-0000-4000-8000-{i:012d}" for i in range(41)]
    error = assert_error(
        blog.full.post("/api/v1/content/post", json={"relations": {"tags": {"link": tags}}}), 422
    )
    assert any(d["location"] == "relations" for d in error["details"])


def test_required_relations(new_workspace: NewWorkspace) -> None:
    workspace = new_workspace()
    define(workspace.full, "author", [{"name": "name", "type": "string"}])
    define(workspace.full, "book", [relation("author", "author", "many-to-one", required=True)])
    error = assert_error(workspace.full.post("/api/v1/content/book", json={}), 422)
    assert error["details"] == [
        {"location": "relations.author", "problem": "is required: link a target"}
    ]
    author = create(workspace.full, "author", {"name": "A"})
    book = create(workspace.full, "book", {}, relations={"author": {"link": [author["id"]]}})
    assert_error(
        workspace.full.patch(
            f"/api/v1/content/book/{book['id']}",
            json={"relations": {"author": {"unlink": [author["id"]]}}},
        ),
        422,
    )


def test_self_relations(blog: WorkspaceAccess) -> None:
    post = create(blog.full, "post", {"title": "me"})
    path = f"/api/v1/content/post/{post['id']}"
    response = blog.full.patch(path, json={"relations": {"related": {"link": [post["id"]]}}})
    assert response.status_code == 200, response.text
    assert ids_of(
        blog.full.get(path, params={"expand": "related"}).json()["relations"]["related"]
    ) == [post["id"]]


def test_the_relations_route_pages_visible_targets_in_link_order(
    blog: WorkspaceAccess,
) -> None:
    client = blog.full
    tags = [create(client, "tag", {"label": f"t{i}"}) for i in range(7)]
    for tag in tags[:5]:
        publish(client, "tag", tag["id"])
    order = [tags[i]["id"] for i in (6, 0, 5, 1, 2, 3, 4)]
    post = create(client, "post", {"title": "P"}, relations={"tags": {"link": order}})
    publish(client, "post", post["id"])
    base = f"/api/v1/content/post/{post['id']}/relations/tags"

    full = client.get(base).json()
    assert full["total"] == 7
    assert ids_of(full["items"]) == order
    page = client.get(base, params={"page": 2, "pageSize": 3}).json()
    assert page == {**page, "total": 7, "page": 2, "pageSize": 3}
    assert ids_of(page["items"]) == order[3:6]

    # A read token sees published targets only, and the total counts only those.
    read = blog.read.get(base, params={"pageSize": 2}).json()
    visible = [i for i in order if i not in (tags[5]["id"], tags[6]["id"])]
    assert read["total"] == 5
    assert ids_of(read["items"]) == visible[:2]
    assert (
        ids_of(blog.read.get(base, params={"page": 3, "pageSize": 2}).json()["items"])
        == visible[4:]
    )

    # Trashed targets are seen by no one (a published post links it: trashing takes force).
    trash = client.delete(f"/api/v1/content/tag/{order[0]}", params={"force": "true"})
    assert trash.status_code == 204
    assert client.get(base).json()["total"] == 6
    narrowed = client.get(base, params={"fields": "label"}).json()
    assert all(set(e["values"]) == {"label"} for e in narrowed["items"])


def test_relations_route_errors(blog: WorkspaceAccess) -> None:
    post = create(blog.full, "post", {"title": "P"})
    base = f"/api/v1/content/post/{post['id']}/relations"
    assert_error(blog.full.get(f"{base}/title"), 404)
    assert_error(blog.full.get(f"{base}/nope"), 404)
    assert_error(blog.read.get(f"{base}/tags"), 404)  # the source is a draft
    assert_error(blog.full.get(f"{base}/tags", params={"pageSize": 0}), 400)
    assert_error(blog.full.get(f"{base}/tags", params={"fields": "nope"}), 400)
    assert_error(blog.full.get("/api/v1/content/post/not-an-id/relations/tags"), 404)
    assert blog.full.get(f"{base}/tags").json() == {
        "items": [],
        "total": 0,
        "page": 1,
        "pageSize": 25,
    }


def test_expansion_applies_the_readers_visibility(blog: WorkspaceAccess) -> None:
    client = blog.full
    draft_author = create(client, "author", {"name": "Draft"})
    tags = [create(client, "tag", {"label": f"t{i}"}) for i in range(3)]
    publish(client, "tag", tags[0]["id"])
    publish(client, "tag", tags[2]["id"])
    post = create(
        client,
        "post",
        {"title": "P"},
        relations={"author": {"link": [draft_author["id"]]}, "tags": {"link": ids_of(tags)}},
    )
    publish(client, "post", post["id"])
    path = f"/api/v1/content/post/{post['id']}"
    as_read = blog.read.get(path, params={"expand": "author,tags"}).json()
    assert as_read["relations"] == {
        "author": [],
        "tags": as_read["relations"]["tags"],
    }
    assert ids_of(as_read["relations"]["tags"]) == [tags[0]["id"], tags[2]["id"]]
    as_full = client.get(path, params={"expand": "author,tags"}).json()
    assert ids_of(as_full["relations"]["author"]) == [draft_author["id"]]
    assert len(as_full["relations"]["tags"]) == 3
    # Trashed targets vanish from every expansion (the published post links it: force).
    trash = client.delete(f"/api/v1/content/author/{draft_author['id']}", params={"force": "1"})
    assert trash.status_code == 204
    assert client.get(path, params={"expand": "author"}).json()["relations"]["author"] == []
    # A purged target is skipped too (its link is left dangling, never an error).
    assert client.delete(f"/api/v1/content/author/{draft_author['id']}/purge").status_code == 204
    assert client.get(path, params={"expand": "author"}).json()["relations"]["author"] == []


def test_to_many_expansion_shows_the_first_25_visible_targets(blog: WorkspaceAccess) -> None:
    client = blog.full
    tags = [create(client, "tag", {"label": f"t{i:02d}"}) for i in range(30)]
    for tag in tags[3:]:
        publish(client, "tag", tag["id"])
    # At most 25 link changes per write: the last five in a second one.
    post = create(client, "post", {"title": "P"}, relations={"tags": {"link": ids_of(tags[:25])}})
    more = {"relations": {"tags": {"link": ids_of(tags[25:])}}}
    assert client.patch(f"/api/v1/content/post/{post['id']}", json=more).status_code == 200
    publish(client, "post", post["id"])
    path = f"/api/v1/content/post/{post['id']}"
    full = client.get(path, params={"expand": "tags"}).json()["relations"]["tags"]
    assert ids_of(full) == ids_of(tags[:25])
    # The first three are drafts to a read token: the expansion tops up from further links.
    read = blog.read.get(path, params={"expand": "tags"}).json()["relations"]["tags"]
    assert ids_of(read) == ids_of(tags[3:28])


def test_expanded_relations_cost_a_constant_number_of_requests(
    new_workspace: NewWorkspace, stack: LocalStack
) -> None:
    """N rows with two relations expanded: the same DynamoDB requests for N = 3 and N = 30."""
    assert stack.settings is not None
    workspace = new_workspace()
    client = workspace.full
    define(client, "author", [{"name": "name", "type": "string"}])
    define(client, "tag", [{"name": "label", "type": "string"}])
    define(
        client,
        "post",
        [
            {"name": "title", "type": "string"},
            relation("author", "author", "many-to-one"),
            relation("tags", "tag", "many-to-many"),
        ],
    )
    authors = [create(client, "author", {"name": f"a{i}"}) for i in range(3)]
    tags = [create(client, "tag", {"label": f"t{i}"}) for i in range(4)]

    def add_posts(count: int) -> None:
        for i in range(count):
            create(
                client,
                "post",
                {"title": f"p{i}"},
                relations={
                    "author": {"link": [authors[i % 3]["id"]]},
                    "tags": {"link": [tags[i % 4]["id"], tags[(i + 1) % 4]["id"]]},
                },
            )

    def observe(page_size: int) -> list[tuple[str, int]]:
        with capture(stack) as captured:
            body = client.get(
                "/api/v1/content/post", params={"expand": "author,tags", "pageSize": page_size}
            ).json()
        assert len(body["items"]) == page_size
        assert all(len(e["relations"]["author"]) == 1 for e in body["items"])
        assert all(len(e["relations"]["tags"]) == 2 for e in body["items"])
        return [
            (c.operation, c.batch_keys())
            for c in captured.on(stack.settings.tables.content)  # type: ignore[union-attr]
        ]

    add_posts(3)
    small = observe(3)
    add_posts(27)
    large = observe(30)
    # Query (the index), BatchGetItem (the page's rows), BatchGetItem (every row's targets of
    # both relations at once): one round per level, whatever N.
    assert [op for op, _ in small] == ["Query", "BatchGetItem", "BatchGetItem"]
    assert [op for op, _ in large] == ["Query", "BatchGetItem", "BatchGetItem"]
    assert small[1][1] == 3
    assert large[1][1] == 30
    # The level's keys are the distinct targets (3 authors + 4 tags), not one per row.
    assert large[2][1] == 7
