"""Write validation against a content type and its relations, with the in-memory content store.

docs/api.md ("Errors", "Entries"): a refused write is a 422 `validation_failed` whose
`details` name every field at fault (`{location, problem}`), and nothing is written; links
must name entries that exist here, are of the field's target type and are visible to the
writer; a to-one field holds one target. The fake store has no writes at all: a write that
passed validation would fail these tests by reaching for DynamoDB.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from content_service.content import store as content_store
from content_service.content.requests import RelationChange, WriteRequest
from content_service.content.writes import Problems, check_targets, create_entry, update_entry
from content_service.errors import NotFound, ValidationFailed, VersionConflict
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
    token,
)
from tests.support.content_store import InMemoryContentStore

POST = content_type(
    "post",
    field("title", "string", "f1", required=True),
    field("views", "integer", "f2"),
    field("tags", "relation", "f3", target="tag", cardinality="many-to-many"),
    field("author", "relation", "f4", target="author", cardinality="many-to-one"),
)
MEMO = content_type("memo", field("text", "string", "f1"), audience_gated=True)
TAG_ID, TRASHED_TAG, AUTHOR_ID, POST_ID = 10, 11, 20, 30


@pytest.fixture(autouse=True)
def stored() -> Iterator[InMemoryContentStore]:
    fake = InMemoryContentStore()
    for content in (TAG, AUTHOR, POST, MEMO):
        fake.add_type(content)
    fake.add_entry(TAG, entry(TAG, TAG_ID, {"label": "news"}))
    fake.add_entry(TAG, entry(TAG, TRASHED_TAG, {"label": "old"}, deleted=True))
    fake.add_entry(AUTHOR, entry(AUTHOR, AUTHOR_ID, {"name": "Ada"}))
    fake.add_entry(POST, entry(POST, POST_ID, {"title": "hello"}))
    with content_store.using(fake):
        yield fake


def _refused(caller: Caller = EDITOR, type_name: str = "post", **body: Any) -> list[dict[str, str]]:
    with pytest.raises(ValidationFailed) as refused:
        create_entry(WriteRequest(caller, WORKSPACE, type_name, **body))
    assert refused.value.message == "the entry is invalid"
    details: list[dict[str, str]] = refused.value.details
    return details


def test_every_value_at_fault_is_named_at_once() -> None:
    details = _refused(values={"nope": 1, "views": "many", "tags": ["x"]})
    assert details == [
        {"location": "values.nope", "problem": "content type 'post' has no field 'nope'"},
        {"location": "values.views", "problem": details[1]["problem"]},
        {
            "location": "values.tags",
            "problem": "is a relation: change it under relations with link/unlink",
        },
        {"location": "values.title", "problem": "is required"},
    ]
    assert "integer" in details[1]["problem"]


def test_links_must_name_existing_visible_entries_of_the_target_type() -> None:
    tags = RelationChange(link=(entry_id(TAG_ID), entry_id(TRASHED_TAG), entry_id(AUTHOR_ID)))
    details = _refused(values={"title": "t"}, relations={"tags": tags})
    assert details == [
        {
            "location": "relations.tags.link",
            "problem": f"no entry {entry_id(TRASHED_TAG)} of content type 'tag'",
        },
        {
            "location": "relations.tags.link",
            "problem": f"no entry {entry_id(AUTHOR_ID)} of content type 'tag'",
        },
    ]


def test_link_ids_and_to_one_fields_are_checked_before_reading_targets(
    stored: InMemoryContentStore,
) -> None:
    two = RelationChange(link=(entry_id(AUTHOR_ID), entry_id(AUTHOR_ID + 1)))
    details = _refused(
        values={"title": "t"},
        relations={"author": two, "tags": RelationChange(link=("Not-An-Id",))},
    )
    assert details == [
        {"location": "relations.author.link", "problem": "a many-to-one field holds one target"},
        {
            "location": "relations.tags",
            "problem": "link and unlink take entry ids (lower-case UUIDs)",
        },
    ]
    assert [c for c in stored.calls if c == "get_many content"] == []


def test_audiences_belong_to_audience_gated_types_and_include_the_writer() -> None:
    assert _refused(values={"title": "t"}, audiences=("members",)) == [
        {"location": "audiences", "problem": "content type 'post' is not audience-gated"}
    ]
    writer = token(audiences=("staff",))
    assert _refused(writer, "memo", audiences=("members",)) == [
        {
            "location": "audiences",
            "problem": "must include one of this token's audiences, or the entry would be "
            "invisible to it",
        }
    ]


def test_an_update_from_an_older_version_is_a_conflict() -> None:
    request = WriteRequest(
        EDITOR, WORKSPACE, "post", id=entry_id(POST_ID), values={"views": 2}, expected_version=3
    )
    with pytest.raises(VersionConflict) as conflict:
        update_entry(request)
    assert conflict.value.details == [{"location": "version", "problem": "is 1 now"}]


def test_an_update_of_an_entry_of_another_type_is_not_found() -> None:
    request = WriteRequest(EDITOR, WORKSPACE, "post", id=entry_id(TAG_ID), values={"views": 2})
    with pytest.raises(NotFound):
        update_entry(request)


def test_valid_targets_pass_and_are_checked_again_in_the_transaction() -> None:
    problems = Problems()
    tags = POST.field("tags")
    assert tags is not None
    linked = [(tags, entry_id(TAG_ID)), (tags, entry_id(TAG_ID))]
    assert check_targets(EDITOR, WORKSPACE, entry_id(POST_ID), POST, linked, problems) == [
        entry_id(TAG_ID)
    ]
    assert problems.items == []
