"""The editorial workflow over real HTTP, REST and GraphQL side by side: a published entry stays
live while its next version is drafted (docs/content.md, "States and events").

Every transition of the state table runs in both protocols on its own entry; after each one,
what a read token and a full token see (and what the full token sees asking for the published
version) is checked, and the events the transitions emitted, with the title of the version each
is about.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.support.clients import WorkspaceAccess
from tests.support.content import Storage, assert_error, capture, define, shared_workspace
from tests.support.graphql import post as graphql_post

Protocol = str
PROTOCOLS = ("rest", "graphql")
FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string", "required": True, "sortable": True},
    {"name": "rank", "type": "integer", "sortable": True},
    {"name": "body", "type": "richtext"},
]
_GQL_FIELDS = "id status title rank entryVersion publishedVersion"


@pytest.fixture(scope="module")
def site(base_url: str) -> Iterator[WorkspaceAccess]:
    with shared_workspace(base_url) as access:
        define(access.full, "post", FIELDS)
        yield access


@dataclass
class Editor:
    """One protocol's way to write and read a `post`, answering REST-shaped entries."""

    protocol: Protocol
    site: WorkspaceAccess

    def _mutate(
        self, field: str, declared: str, arguments: str, variables: dict[str, Any]
    ) -> httpx.Response:
        query = f"mutation({declared}) {{ {field}({arguments}) {{ {_GQL_FIELDS} }} }}"
        return self.site.full.post("/api/v1/graphql", json={"query": query, "variables": variables})

    def create(self, title: str, rank: int = 0) -> dict[str, Any]:
        values = {"title": title, "rank": rank}
        if self.protocol == "rest":
            response = self.site.full.post("/api/v1/content/post", json={"values": values})
            assert response.status_code == 201, response.text
            return dict(response.json())
        answer = self._mutate(
            "createPost", "$input: PostCreateInput!", "input: $input", {"input": {"values": values}}
        )
        return _entry(answer)

    def update(self, entry_id: str, **values: Any) -> tuple[int, dict[str, Any]]:
        if self.protocol == "rest":
            response = self.site.full.patch(
                f"/api/v1/content/post/{entry_id}", json={"values": values}
            )
            return response.status_code, response.json()
        answer = self._mutate(
            "updatePost",
            "$id: ID!, $input: PostUpdateInput!",
            "id: $id, input: $input",
            {"id": entry_id, "input": {"values": values}},
        )
        return _outcome(answer, "updatePost")

    def act(self, verb: str, entry_id: str) -> tuple[int, dict[str, Any]]:
        """publish, unpublish or discard."""
        if self.protocol == "rest":
            response = self.site.full.post(f"/api/v1/content/post/{entry_id}/{verb}")
            return response.status_code, response.json()
        field = f"{verb}Post"
        return _outcome(self._mutate(field, "$id: ID!", "id: $id", {"id": entry_id}), field)

    def read(self, client: httpx.Client, entry_id: str, version: str | None = None) -> Any:
        """The entry as `client` reads it (REST-shaped), or None when it is not found."""
        if self.protocol == "rest":
            params = {"version": version} if version else {}
            response = client.get(f"/api/v1/content/post/{entry_id}", params=params)
            if response.status_code == 404:
                return None
            assert response.status_code == 200, response.text
            return response.json()
        argument = f", version: {version.upper()}" if version else ""
        result = graphql_post(client, f'{{ post(id: "{entry_id}"{argument}) {{ {_GQL_FIELDS} }} }}')
        if result.get("errors"):
            assert result["errors"][0]["extensions"]["code"] == "NOT_FOUND", result
            return None
        return _rest_shaped(result["data"]["post"])


def _rest_shaped(found: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": found["id"],
        "status": found["status"].lower(),
        "values": {"title": found["title"], "rank": found["rank"]},
        "version": found["entryVersion"],
        "publishedVersion": found["publishedVersion"],
    }


def _entry(response: httpx.Response) -> dict[str, Any]:
    status, body = _outcome(response, "createPost")
    assert status == 200, body
    return body


def _outcome(response: httpx.Response, field: str) -> tuple[int, dict[str, Any]]:
    """A mutation's answer as REST would give it: (200, the entry) or (status, the error)."""
    assert response.status_code == 200, response.text
    result = response.json()
    if result.get("errors"):
        error = result["errors"][0]
        return int(error["extensions"]["status"]), {"error": error}
    return 200, _rest_shaped(result["data"][field])


@pytest.fixture(params=PROTOCOLS)
def editor(request: pytest.FixtureRequest, site: WorkspaceAccess) -> Editor:
    return Editor(str(request.param), site)


def _title(entry: dict[str, Any] | None) -> str | None:
    return None if entry is None else str(entry["values"]["title"])


@dataclass
class Seen:
    """What a read token, a full token, and a full token asking for the published version
    see of one entry: (status, title), or None when not found."""

    read: tuple[str, str] | None
    full: tuple[str, str] | None
    full_published: tuple[str, str] | None


def _seen(editor: Editor, entry_id: str) -> Seen:
    def pair(found: Any) -> tuple[str, str] | None:
        return None if found is None else (found["status"], _title(found) or "")

    site = editor.site
    return Seen(
        read=pair(editor.read(site.read, entry_id)),
        full=pair(editor.read(site.full, entry_id)),
        full_published=pair(editor.read(site.full, entry_id, "published")),
    )


def test_every_transition_and_what_each_token_sees(
    editor: Editor, site: WorkspaceAccess, storage: Storage
) -> None:
    entry = editor.create("Hello", 1)
    entry_id = entry["id"]
    assert entry["status"] == "draft"
    assert _seen(editor, entry_id) == Seen(None, ("draft", "Hello"), None)

    status, published = editor.act("publish", entry_id)
    assert status == 200, published
    assert (published["status"], published["publishedVersion"]) == ("published", 1)
    live = ("published", "Hello")
    assert _seen(editor, entry_id) == Seen(live, live, live)
    assert editor.act("publish", entry_id)[0] == 409  # nothing in the draft to publish

    status, changed = editor.update(entry_id, title="Hello, world")
    assert (status, changed["status"]) == (200, "changed"), changed
    assert _seen(editor, entry_id) == Seen(live, ("changed", "Hello, world"), live)

    status, _ = editor.act("publish", entry_id)
    assert status == 200
    live = ("published", "Hello, world")
    assert _seen(editor, entry_id) == Seen(live, live, live)

    editor.update(entry_id, title="A typo")
    status, discarded = editor.act("discard", entry_id)
    assert (status, discarded["status"], _title(discarded)) == (200, "published", "Hello, world")
    assert _seen(editor, entry_id) == Seen(live, live, live)
    assert editor.act("discard", entry_id)[0] == 409  # no draft to discard

    editor.update(entry_id, title="Next")
    status, unpublished = editor.act("unpublish", entry_id)
    assert (status, unpublished["status"], _title(unpublished)) == (200, "draft", "Next")
    assert _seen(editor, entry_id) == Seen(None, ("draft", "Next"), None)
    assert editor.act("unpublish", entry_id)[0] == 409
    assert editor.act("discard", entry_id)[0] == 409

    events = [(e["kind"], e["data"]["title"]) for e in storage.events_of(site.id, entry_id)]
    assert events == [
        ("entry.created", "Hello"),
        ("entry.published", "Hello"),
        ("entry.updated", "Hello, world"),
        ("entry.published", "Hello, world"),
        ("entry.updated", "A typo"),
        ("entry.updated", "Hello, world"),  # the discard: the version it returns to
        ("entry.updated", "Next"),
        ("entry.unpublished", "Hello, world"),  # the version taken down
    ]


def test_an_edit_back_to_the_live_values_is_published_again(editor: Editor) -> None:
    entry_id = editor.create("Same", 3)["id"]
    editor.act("publish", entry_id)
    assert editor.update(entry_id, title="Other")[1]["status"] == "changed"
    assert editor.update(entry_id, title="Same")[1]["status"] == "published"


def test_trash_hides_both_versions_and_restore_brings_the_state_back(
    site: WorkspaceAccess,
) -> None:
    editor = Editor("rest", site)
    entry_id = editor.create("Kept", 1)["id"]
    editor.act("publish", entry_id)
    editor.update(entry_id, title="Draft of kept")
    assert site.full.delete(f"/api/v1/content/post/{entry_id}").status_code == 204
    assert _seen(editor, entry_id) == Seen(None, None, None)
    restored = site.full.post(f"/api/v1/content/post/{entry_id}/restore")
    assert restored.status_code == 200, restored.text
    assert restored.json()["status"] == "changed"
    live = ("published", "Kept")
    assert _seen(editor, entry_id) == Seen(live, ("changed", "Draft of kept"), live)


def test_a_read_token_cannot_ask_for_the_preview(site: WorkspaceAccess) -> None:
    entry_id = Editor("rest", site).create("Secret plans")["id"]
    refused = site.read.get(f"/api/v1/content/post/{entry_id}", params={"version": "latest"})
    assert_error(refused, 403, "forbidden")
    assert_error(site.read.get("/api/v1/content/post", params={"version": "latest"}), 403)
    assert_error(site.full.get("/api/v1/content/post", params={"version": "draft"}), 400)
    result = graphql_post(site.read, "{ posts(version: LATEST) { total } }")
    assert result["errors"][0]["extensions"]["status"] == 403


def test_a_save_made_from_an_older_version_is_refused_and_writes_nothing(
    site: WorkspaceAccess, storage: Storage
) -> None:
    created = Editor("rest", site).create("Base")
    entry_id, seen_version = created["id"], created["version"]
    first = site.full.patch(
        f"/api/v1/content/post/{entry_id}",
        json={"values": {"title": "Mine"}, "version": seen_version},
    )
    assert first.status_code == 200, first.text
    with storage.unchanged(site.id):
        late = site.full.patch(
            f"/api/v1/content/post/{entry_id}",
            json={"values": {"title": "Theirs"}, "version": seen_version},
        )
        error = assert_error(late, 409, "version_conflict")
        assert "someone else" in error["message"]
        query = (
            "mutation($id: ID!, $v: Int) { updatePost(id: $id, version: $v, "
            'input: {values: {title: "Theirs"}}) { id } }'
        )
        answer = graphql_post(site.full, query, {"id": entry_id, "v": seen_version})
        assert answer["errors"][0]["extensions"]["code"] == "VERSION_CONFLICT"
    assert Editor("rest", site).read(site.full, entry_id)["values"]["title"] == "Mine"


def test_a_delivery_read_of_one_entry_is_one_item_read(stack: Any, site: WorkspaceAccess) -> None:
    editor = Editor("rest", site)
    entry_id = editor.create("One read")["id"]
    editor.act("publish", entry_id)
    editor.update(entry_id, title="Unpublished change")
    with capture(stack) as captured:
        found = site.read.get(f"/api/v1/content/post/{entry_id}")
    assert found.json()["values"]["title"] == "One read"
    reads = captured.on(stack.settings.tables.content)
    assert [c.operation for c in reads] == ["GetItem"]
    assert reads[0].body["Key"]["sk"] == {"S": "PUBLISHED"}
