"""Entries through real HTTP: writes, values, states, the outbox, locales and single types."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.content import (
    Storage,
    assert_error,
    create,
    define,
    publish,
    shared_workspace,
)
from tests.support.field_types import every_field_type

NewWorkspace = Callable[..., WorkspaceAccess]

ARTICLE_FIELDS = every_field_type(enum_values=("happy", "SAD"))


@pytest.fixture
def workspace(new_workspace: NewWorkspace) -> WorkspaceAccess:
    access = new_workspace()
    define(access.full, "article", ARTICLE_FIELDS)
    return access


@pytest.fixture(scope="module")
def values_workspace(base_url: str) -> Iterator[WorkspaceAccess]:
    """One workspace with the article type for the value-type tables."""
    with shared_workspace(base_url) as access:
        define(access.full, "article", ARTICLE_FIELDS)
        yield access


def test_create_is_a_draft_with_system_fields_and_one_event(
    workspace: WorkspaceAccess, storage: Storage
) -> None:
    response = workspace.full.post(
        "/api/v1/content/article", json={"values": {"title": "Hello", "views": 3}}
    )
    assert response.status_code == 201, response.text
    entry = response.json()
    assert set(entry) == {
        "id",
        "contentType",
        "status",
        "locale",
        "localeGroupId",
        "createdAt",
        "updatedAt",
        "publishedAt",
        "version",
        "publishedVersion",
        "updatedBy",
        "values",
    }
    assert entry["status"] == "draft"
    assert (entry["version"], entry["publishedVersion"], entry["updatedBy"]) == (1, None, None)
    assert entry["contentType"] == "article"
    assert entry["locale"] == "en"
    assert entry["localeGroupId"] == entry["id"]
    assert entry["publishedAt"] is None
    assert entry["createdAt"] == entry["updatedAt"]
    assert entry["createdAt"].endswith("Z")
    assert entry["values"]["title"] == "Hello"
    assert entry["values"]["views"] == 3
    assert entry["values"]["body"] is None
    assert workspace.full.get(f"/api/v1/content/article/{entry['id']}").json() == entry

    (event,) = storage.events(workspace.id)
    assert event["kind"] == "entry.created"
    assert event["workspaceId"] == workspace.id
    assert event["actor"] is None
    assert event["data"] == {
        "kind": "content_entry",
        "id": entry["id"],
        "contentType": "article",
        "title": "Hello",
    }
    assert event["occurredAt"] == entry["createdAt"]
    assert int(event["expiresAt"]) > 0
    assert len(event["id"]) == 36


def test_every_transition_emits_exactly_its_event(
    workspace: WorkspaceAccess, storage: Storage
) -> None:
    client = workspace.full
    entry = create(client, "article", {"title": "First"})
    path = f"/api/v1/content/article/{entry['id']}"

    published = client.post(f"{path}/publish")
    assert published.status_code == 200
    assert published.json()["status"] == "published"
    assert published.json()["publishedAt"] is not None
    assert published.json()["values"]["title"] == "First"
    assert_error(client.post(f"{path}/publish"), 409, "conflict")

    updated = client.patch(path, json={"values": {"title": "Second"}})
    assert updated.status_code == 200
    # The live version stays as published; the draft is newer (docs/content.md).
    assert updated.json()["status"] == "changed"
    assert updated.json()["publishedAt"] == published.json()["publishedAt"]

    unpublished = client.post(f"{path}/unpublish")
    assert unpublished.status_code == 200
    assert unpublished.json()["status"] == "draft"
    assert unpublished.json()["publishedAt"] is None
    assert_error(client.post(f"{path}/unpublish"), 409)

    assert client.delete(path).status_code == 204
    assert_error(client.delete(path), 409)
    assert_error(client.get(path), 404)
    assert_error(client.patch(path, json={"values": {"title": "x"}}), 404)
    assert_error(client.post(f"{path}/publish"), 404)
    assert_error(client.post(f"{path}/unpublish"), 404)

    restored = client.post(f"{path}/restore")
    assert restored.status_code == 200
    assert restored.json()["status"] == "draft"
    assert restored.json()["values"]["title"] == "Second"
    assert_error(client.post(f"{path}/restore"), 409)
    assert_error(client.delete(f"{path}/purge"), 409)

    assert client.delete(path).status_code == 204
    assert client.delete(f"{path}/purge").status_code == 204
    assert_error(client.get(path), 404)
    assert_error(client.post(f"{path}/restore"), 404)
    assert_error(client.delete(f"{path}/purge"), 404)
    assert storage.entry_item(workspace.id, entry["id"]) is None
    # Its published item and snapshot went with it.
    own = f"ENTRY#{workspace.id}#{entry['id']}"
    assert [i["sk"] for i in storage.content_items(workspace.id) if i["pk"] == own] == []

    events = storage.events_of(workspace.id, entry["id"])
    assert [e["kind"] for e in events] == [
        "entry.created",
        "entry.published",
        "entry.updated",
        "entry.unpublished",
        "entry.deleted",
        "entry.restored",
        "entry.deleted",
        "entry.purged",
    ]
    # The title is a snapshot of the version each event is about (the unpublish takes down
    # the published "First"); it survives the purge.
    titles = ["First", "First", "Second", "First", "Second", "Second", "Second", "Second"]
    assert [e["data"]["title"] for e in events] == titles
    assert {e["actor"] for e in events if e["actor"] is not None} == set()
    assert len({e["id"] for e in events}) == len(events)


def test_restore_brings_back_the_status_it_had(workspace: WorkspaceAccess) -> None:
    entry = publish(
        workspace.full, "article", create(workspace.full, "article", {"title": "P"})["id"]
    )
    path = f"/api/v1/content/article/{entry['id']}"
    assert workspace.full.delete(path).status_code == 204
    assert_error(workspace.read.get(path), 404)
    restored = workspace.full.post(f"{path}/restore").json()
    assert restored["status"] == "published"
    assert restored["publishedAt"] == entry["publishedAt"]
    assert workspace.read.get(path).status_code == 200


def test_a_signed_in_users_writes_carry_the_user_as_actor(
    workspace: WorkspaceAccess, admin: httpx.Client, credentials: dict[str, Any], storage: Storage
) -> None:
    headers = {"X-Workspace-Id": workspace.id}
    response = admin.post(
        "/api/v1/content/article", json={"values": {"title": "By hand"}}, headers=headers
    )
    assert response.status_code == 201, response.text
    entry_id = response.json()["id"]
    assert (
        admin.post(f"/api/v1/content/article/{entry_id}/publish", headers=headers).status_code
        == 200
    )
    me = admin.get("/api/v1/me").json()
    events = storage.events_of(workspace.id, entry_id)
    assert [e["actor"] for e in events] == [
        {"id": me["id"], "email": credentials["admin"]["email"]}
    ] * 2


def test_patch_leaves_omitted_fields_and_null_clears(workspace: WorkspaceAccess) -> None:
    entry = create(workspace.full, "article", {"title": "T", "views": 1, "mood": "happy"})
    path = f"/api/v1/content/article/{entry['id']}"
    response = workspace.full.patch(path, json={"values": {"views": 2, "mood": None}})
    assert response.status_code == 200, response.text
    values = response.json()["values"]
    assert values["title"] == "T"
    assert values["views"] == 2
    assert values["mood"] is None
    assert response.json()["updatedAt"] >= entry["updatedAt"]
    assert workspace.full.get(path).json()["values"] == values


def test_required_is_enforced_on_create_and_every_update(
    workspace: WorkspaceAccess, storage: Storage
) -> None:
    with storage.unchanged(workspace.id):
        error = assert_error(
            workspace.full.post("/api/v1/content/article", json={"values": {}}), 422
        )
    assert error["details"] == [{"location": "values.title", "problem": "is required"}]
    entry = create(workspace.full, "article", {"title": "T"})
    path = f"/api/v1/content/article/{entry['id']}"
    with storage.unchanged(workspace.id):
        assert_error(workspace.full.patch(path, json={"values": {"title": None}}), 422)
    # A required field added later must be supplied by the next update.
    workspace.full.put(
        "/api/v1/content-types/article",
        json={
            "name": "article",
            "fields": [*ARTICLE_FIELDS, {"name": "sku", "type": "string", "required": True}],
        },
    )
    error = assert_error(workspace.full.patch(path, json={"values": {"views": 1}}), 422)
    assert {"location": "values.sku", "problem": "is required"} in error["details"]
    assert workspace.full.patch(path, json={"values": {"sku": "A1"}}).status_code == 200


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"views": 9223372036854775807}, {"views": 9223372036854775807}),
        ({"views": -9223372036854775808}, {"views": -9223372036854775808}),
        ({"rating": 4}, {"rating": 4.0}),
        ({"rating": 0.1}, {"rating": 0.1}),
        ({"rating": -1.5e100}, {"rating": -1.5e100}),
        ({"featured": False}, {"featured": False}),
        (
            {"published_on": "2024-05-01T12:30:00+02:00"},
            {"published_on": "2024-05-01T10:30:00.000Z"},
        ),
        (
            {"published_on": "2024-05-01T10:30:00.123456Z"},
            {"published_on": "2024-05-01T10:30:00.123Z"},
        ),
        ({"day": "2024-02-29"}, {"day": "2024-02-29"}),
        ({"mood": "SAD"}, {"mood": "SAD"}),
        (
            {"meta": {"a": [1, 2.5, None, True], "b": {"c": "ü"}}},
            {"meta": {"a": [1, 2.5, None, True], "b": {"c": "ü"}}},
        ),
        ({"meta": [1, "two"]}, {"meta": [1, "two"]}),
        ({"meta": "just a string"}, {"meta": "just a string"}),
        ({"summary": "t" * 50_000}, {"summary": "t" * 50_000}),
        ({"title": "s" * 256}, {"title": "s" * 256}),
        (
            {"title": "😀 \u0000 <script>alert(1)</script> ' OR 1=1 --"},
            {"title": "😀 \u0000 <script>alert(1)</script> ' OR 1=1 --"},
        ),
    ],
)
def test_value_types_round_trip(
    values_workspace: WorkspaceAccess, values: dict[str, Any], expected: dict[str, Any]
) -> None:
    body = {"title": "x", **values}
    entry = create(values_workspace.full, "article", body)
    for name, value in expected.items():
        assert entry["values"][name] == value
        assert type(entry["values"][name]) is type(value)
    read_back = values_workspace.full.get(f"/api/v1/content/article/{entry['id']}").json()
    assert read_back["values"] == entry["values"]


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"views": "3"}, "views"),
        ({"views": 1.5}, "views"),
        ({"views": True}, "views"),
        ({"views": 9223372036854775808}, "views"),
        ({"rating": "1.0"}, "rating"),
        ({"rating": False}, "rating"),
        ({"rating": 1e300}, "rating"),
        ({"featured": "true"}, "featured"),
        ({"featured": 1}, "featured"),
        ({"published_on": "2024-05-01T12:30:00"}, "published_on"),
        ({"published_on": "yesterday"}, "published_on"),
        ({"published_on": 1714557000}, "published_on"),
        ({"day": "2024-02-30"}, "day"),
        ({"day": "2024-2-3"}, "day"),
        ({"day": "2024-05-01T00:00:00Z"}, "day"),
        ({"mood": "happy "}, "mood"),
        ({"mood": "angry"}, "mood"),
        ({"title": "s" * 257}, "title"),
        ({"title": 5}, "title"),
        ({"title": ["a"]}, "title"),
        ({"summary": "t" * 50_001}, "summary"),
        ({"meta": "x" * (100 * 1024)}, "meta"),
        ({"nope": 1}, "nope"),
        ({"_hidden": 1}, "_hidden"),
        ({"id": "x"}, "id"),
    ],
)
def test_wrong_values_are_422_naming_the_field_and_write_nothing(
    values_workspace: WorkspaceAccess, stack: LocalStack, values: dict[str, Any], field: str
) -> None:
    with Storage(stack).unchanged(values_workspace.id):
        response = values_workspace.full.post(
            "/api/v1/content/article", json={"values": {"title": "x", **values}}
        )
        error = assert_error(response, 422, "validation_failed")
    assert [d["location"] for d in error["details"]] == [f"values.{field}"]


def test_non_finite_numbers_in_json_bodies_are_refused(values_workspace: WorkspaceAccess) -> None:
    for literal in ("NaN", "Infinity", "-Infinity"):
        for field in ("rating", "views", "meta"):
            response = values_workspace.full.post(
                "/api/v1/content/article",
                content=f'{{"values": {{"title": "x", "{field}": {literal}}}}}'.encode(),
                headers={"Content-Type": "application/json"},
            )
            assert_error(response, 422)


def test_lone_surrogates_are_refused_not_500(values_workspace: WorkspaceAccess) -> None:
    """A string that is not valid Unicode is a malformed body: 400, naming where it is."""
    for body, location in (
        (b'{"values": {"title": "\\ud800"}}', "body.values.title"),
        (b'{"values": {"title": "x", "meta": ["\\udc00"]}}', "body.values.meta[0]"),
    ):
        response = values_workspace.full.post(
            "/api/v1/content/article", content=body, headers={"Content-Type": "application/json"}
        )
        error = assert_error(response, 400, "bad_request")
        assert error["details"] == [
            {"location": location, "problem": "not valid Unicode (a lone surrogate)"}
        ]


def test_rich_text_near_the_item_limit(values_workspace: WorkspaceAccess) -> None:
    entry = create(values_workspace.full, "article", {"title": "big", "body": "r" * 200_000})
    assert len(entry["values"]["body"]) == 200_000
    too_long = values_workspace.full.post(
        "/api/v1/content/article", json={"values": {"title": "x", "body": "r" * 200_001}}
    )
    assert_error(too_long, 422)
    # 200,000 four-byte characters would make an 800 KB item: refused before DynamoDB would.
    wide = values_workspace.full.post(
        "/api/v1/content/article", json={"values": {"title": "x", "body": "😀" * 120_000}}
    )
    error = assert_error(wide, 422)
    assert "item size" in error["message"]


def test_unknown_type_and_unknown_entry_are_404(values_workspace: WorkspaceAccess) -> None:
    client = values_workspace.full
    assert_error(client.post("/api/v1/content/nothing", json={"values": {}}), 404)
    assert_error(client.get("/api/v1/content/nothing"), 404)
    missing = "00000000-0000-4000-8000-000000000000"
    for path in (f"/api/v1/content/article/{missing}", "/api/v1/content/article/not-an-id"):
        assert_error(client.get(path), 404)
        assert_error(client.patch(path, json={"values": {}}), 404)
        assert_error(client.post(f"{path}/publish"), 404)
        assert_error(client.post(f"{path}/unpublish"), 404)
        assert_error(client.delete(path), 404)
        assert_error(client.post(f"{path}/restore"), 404)
        assert_error(client.delete(f"{path}/purge"), 404)


def test_an_id_of_another_type_is_404(workspace: WorkspaceAccess) -> None:
    define(workspace.full, "other", [{"name": "name", "type": "string"}])
    entry = create(workspace.full, "other", {"name": "o"})
    assert_error(workspace.full.get(f"/api/v1/content/article/{entry['id']}"), 404)
    assert_error(workspace.full.delete(f"/api/v1/content/article/{entry['id']}"), 404)


def test_read_tokens_cannot_write_and_nothing_is_written(
    workspace: WorkspaceAccess, storage: Storage
) -> None:
    entry = create(workspace.full, "article", {"title": "T"})
    path = f"/api/v1/content/article/{entry['id']}"
    with storage.unchanged(workspace.id):
        assert_error(
            workspace.read.post("/api/v1/content/article", json={"values": {"title": "x"}}), 403
        )
        assert_error(workspace.read.patch(path, json={"values": {"title": "x"}}), 403)
        assert_error(workspace.read.post(f"{path}/publish"), 403)
        assert_error(workspace.read.post(f"{path}/unpublish"), 403)
        assert_error(workspace.read.delete(path), 403)
        assert_error(workspace.read.post(f"{path}/restore"), 403)
        assert_error(workspace.read.delete(f"{path}/purge"), 403)


def test_refused_transitions_write_nothing(workspace: WorkspaceAccess, storage: Storage) -> None:
    entry = create(workspace.full, "article", {"title": "T"})
    path = f"/api/v1/content/article/{entry['id']}"
    with storage.unchanged(workspace.id):
        assert_error(workspace.full.post(f"{path}/unpublish"), 409)
        assert_error(workspace.full.post(f"{path}/restore"), 409)
        assert_error(workspace.full.delete(f"{path}/purge"), 409)


# ---------------------------------------------------------------------------------------------
# Locales and single types


def test_localized_entries_share_a_locale_group(
    new_workspace: NewWorkspace, storage: Storage
) -> None:
    workspace = new_workspace()
    define(workspace.full, "page", [{"name": "title", "type": "string"}], localized=True)
    english = create(workspace.full, "page", {"title": "Hello"})
    german = create(
        workspace.full, "page", {"title": "Hallo"}, locale="de", localeGroupId=english["id"]
    )
    assert german["locale"] == "de"
    assert german["localeGroupId"] == english["id"]
    assert german["id"] != english["id"]
    brazilian = create(
        workspace.full, "page", {"title": "Olá"}, locale="pt-BR", localeGroupId=english["id"]
    )
    assert brazilian["localeGroupId"] == english["id"]
    with storage.unchanged(workspace.id):
        duplicate = workspace.full.post(
            "/api/v1/content/page",
            json={"values": {"title": "Servus"}, "locale": "de", "localeGroupId": english["id"]},
        )
        assert_error(duplicate, 409, "conflict")
        for bad in ("DE", "de-de", "deutsch", "e"):
            response = workspace.full.post(
                "/api/v1/content/page", json={"values": {}, "locale": bad}
            )
            assert_error(response, 422)
        unknown_group = workspace.full.post(
            "/api/v1/content/page",
            json={
                "values": {},
                "locale": "fr",
                "localeGroupId": "00000000-0000-4000-8000-000000000000",
            },
        )
        assert_error(unknown_group, 422)
    # Lists return one locale, `en` by default.
    listed = workspace.full.get("/api/v1/content/page").json()
    assert [e["id"] for e in listed["items"]] == [english["id"]]
    listed_de = workspace.full.get("/api/v1/content/page", params={"locale": "de"}).json()
    assert [e["values"]["title"] for e in listed_de["items"]] == ["Hallo"]
    # The locale of an entry cannot change.
    assert_error(
        workspace.full.patch(f"/api/v1/content/page/{german['id']}", json={"locale": "fr"}), 422
    )
    # A purged translation frees its (group, locale) slot.
    path = f"/api/v1/content/page/{german['id']}"
    assert workspace.full.delete(path).status_code == 204
    assert workspace.full.delete(f"{path}/purge").status_code == 204
    create(workspace.full, "page", {"title": "Hallo!"}, locale="de", localeGroupId=english["id"])


def test_non_localized_types_only_take_en(workspace: WorkspaceAccess, storage: Storage) -> None:
    with storage.unchanged(workspace.id):
        response = workspace.full.post(
            "/api/v1/content/article", json={"values": {"title": "x"}, "locale": "de"}
        )
        assert_error(response, 422)
    entry = create(workspace.full, "article", {"title": "x"}, locale="en")
    with storage.unchanged(workspace.id):
        response = workspace.full.post(
            "/api/v1/content/article",
            json={"values": {"title": "y"}, "localeGroupId": entry["id"]},
        )
        assert_error(response, 422)
    assert (
        workspace.full.get("/api/v1/content/article", params={"locale": "de"}).json()["total"] == 0
    )


def test_a_single_type_has_one_entry_per_locale(
    new_workspace: NewWorkspace, storage: Storage
) -> None:
    workspace = new_workspace()
    define(
        workspace.full,
        "site_settings",
        [{"name": "site_name", "type": "string"}],
        kind="single",
        localized=True,
    )
    first = create(workspace.full, "site_settings", {"site_name": "Mine"})
    with storage.unchanged(workspace.id):
        assert_error(
            workspace.full.post(
                "/api/v1/content/site_settings", json={"values": {"site_name": "2"}}
            ),
            409,
        )
    create(
        workspace.full,
        "site_settings",
        {"site_name": "Meins"},
        locale="de",
        localeGroupId=first["id"],
    )
    publish(workspace.full, "site_settings", first["id"])
    # Read through the list route: the client takes the first item.
    listed = workspace.read.get("/api/v1/content/site_settings").json()
    assert listed["total"] == 1
    assert listed["items"][0]["values"] == {"site_name": "Mine"}
    # Trashing keeps the slot (restore brings it back); purging frees it.
    path = f"/api/v1/content/site_settings/{first['id']}"
    assert workspace.full.delete(path).status_code == 204
    assert_error(
        workspace.full.post("/api/v1/content/site_settings", json={"values": {"site_name": "3"}}),
        409,
    )
    assert workspace.full.delete(f"{path}/purge").status_code == 204
    create(workspace.full, "site_settings", {"site_name": "Again"})


def test_entry_writes_store_the_documented_shape(
    workspace: WorkspaceAccess, storage: Storage
) -> None:
    entry = create(
        workspace.full, "article", {"title": "T", "body": "long", "views": 5, "meta": {"k": 1}}
    )
    item = storage.entry_item(workspace.id, entry["id"])
    assert item is not None
    # The list index items it has, in the latest versions' view (`A`) only, a draft having no
    # published version: by createdAt (with the summary), by updatedAt and in publishedAt's
    # null partition (ordered by id), and each again in its status's partition.
    prefix = f"L#{workspace.id}#article#en#A#0.1#"
    created = f"{entry['createdAt']}\x01{entry['id']}"
    updated = f"{entry['updatedAt']}\x01{entry['id']}"
    keys = sorted(map(tuple, item["listKeys"]))
    assert keys == [
        (f"{prefix}@c", created),
        (f"{prefix}@c#=@s:draft", created),
        (f"{prefix}@p!", entry["id"]),
        (f"{prefix}@p!#=@s:draft", entry["id"]),
        (f"{prefix}@u", updated),
        (f"{prefix}@u#=@s:draft", updated),
    ]
    indexed = {(i["pk"], i["sk"]): i for i in storage.content_items(workspace.id)}
    assert all(key in indexed for key in keys)
    assert indexed[keys[0]]["summary"] == item["summary"]
    assert "summary" not in indexed[keys[1]]
    # Counted among the latest versions, and among the drafts.
    plain, by_status = sorted(item["listCounts"])
    assert plain.startswith(f"N#{workspace.id}#article#en#A#")
    assert by_status == plain + "#=status:draft"
    summary = json.loads(item["summary"])  # compact JSON in one string attribute
    assert summary["i"] == entry["id"]
    assert summary["s"] == "draft"
    assert "d" not in summary  # false: left out
    # Scalars only: no text, rich text or json in the summary.
    assert sorted(summary["v"].values(), key=str) == [5, "T"]
    assert item["title"] == "T"
    assert workspace.full.delete(f"/api/v1/content/article/{entry['id']}").status_code == 204
    trashed = storage.entry_item(workspace.id, entry["id"])
    assert trashed is not None
    assert trashed["listKeys"] == []  # out of every list, in the same transaction
    assert trashed["listCounts"] == []
    remaining = {(i["pk"], i["sk"]) for i in storage.content_items(workspace.id)}
    assert not remaining & set(keys)
    assert json.loads(trashed["summary"])["d"] is True
