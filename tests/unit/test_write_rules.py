"""The entry write rules against the in-memory content store: no emulator, the same
transactions, refused on the same conditions (`tests.support.content_store`).

What is asserted is what docs/content.md ("States", "Relations", "What links here") and
docs/api.md ("Entries") promise: a create is a draft at version 1; a PATCH naming a version
that is no longer the entry's is 409 `version_conflict` and writes nothing, and two writes that
race serialise instead of losing one (the version condition); publish makes the draft the live
version and takes snapshot n; discard throws a changed entry's draft away; the trash hides an
entry from every read and restore brings it back as it was; a link leaves a reverse item (what
links here); a one-to-one target and a locale of a locale group are each claimed by one
entry, a second is refused and writes nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pytest

from content_service.content import store as content_store
from content_service.content.entries import Entry, get_entry
from content_service.content.lists import list_entries
from content_service.content.relations import LinkedFromRequest, linked_from
from content_service.content.requests import (
    EntryAction,
    GetRequest,
    ListRequest,
    RelationChange,
    WriteRequest,
)
from content_service.content.writes import (
    create_entry,
    delete_entry,
    discard_changes,
    publish_entry,
    restore_entry,
    update_entry,
)
from content_service.errors import Conflict, NotFound, VersionConflict
from tests.support.content_model import EDITOR, TAG, WORKSPACE, content_type, entry, field
from tests.support.content_store import InMemoryContentStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

POST = content_type(
    "post",
    field("title", "string", "f1", required=True),
    field("views", "integer", "f2"),
    field("tags", "relation", "f3", target="tag", cardinality="many-to-many"),
    field("cover", "relation", "f4", target="tag", cardinality="one-to-one"),
)
PAGE = replace(content_type("page", field("title", "string", "f1")), localized=True)
TAG_ID = entry(TAG, 10).id


@dataclass
class RacingStore(InMemoryContentStore):
    """Runs `meanwhile` (another writer) just before the next transaction commits."""

    meanwhile: Callable[[], object] | None = None

    def transact(self, items: Sequence[TransactWriteItemTypeDef]) -> None:
        other, self.meanwhile = self.meanwhile, None
        if other is not None:
            other()
        super().transact(items)


@pytest.fixture(autouse=True)
def stored() -> Iterator[RacingStore]:
    fake = RacingStore()
    fake.add_type(TAG)
    fake.add_type(POST)
    fake.add_type(PAGE)
    fake.add_entry(TAG, entry(TAG, 10, {"label": "news"}))
    with content_store.using(fake):
        yield fake


def _create(**body: Any) -> Entry:
    return create_entry(WriteRequest(EDITOR, WORKSPACE, "post", **body))


def _update(entry_id: str, **body: Any) -> Entry:
    return update_entry(WriteRequest(EDITOR, WORKSPACE, "post", id=entry_id, **body))


def _action(entry_id: str) -> EntryAction:
    return EntryAction(EDITOR, WORKSPACE, "post", entry_id)


def _read(entry_id: str, view: str = "latest") -> Entry:
    return get_entry(GetRequest(EDITOR, WORKSPACE, "post", entry_id, view=view))  # type: ignore[arg-type]


def _listed() -> tuple[list[str], int]:
    """The ids a list of posts shows, and the total it counts."""
    page = list_entries(ListRequest(EDITOR, WORKSPACE, "post"))
    return [item.id for item in page.items], page.total


def _unchanged(fake: InMemoryContentStore) -> dict[str, Any]:
    return copy.deepcopy(dict(fake.tables))


def test_a_create_is_a_draft_at_version_1_that_reads_and_lists() -> None:
    created = _create(values={"title": "hello"})
    assert (created.status, created.version, created.published_version) == ("draft", 1, None)
    assert _read(created.id).values["title"] == "hello"
    assert _listed() == ([created.id], 1)
    with pytest.raises(NotFound):
        _read(created.id, "published")


def test_an_update_naming_a_stale_version_is_refused_and_writes_nothing(
    stored: RacingStore,
) -> None:
    created = _create(values={"title": "hello"})
    _update(created.id, values={"title": "second"}, expected_version=1)
    before = _unchanged(stored)
    with pytest.raises(VersionConflict) as refused:
        _update(created.id, values={"title": "third"}, expected_version=1)
    assert refused.value.status == 409
    assert refused.value.code == "version_conflict"
    assert _unchanged(stored) == before
    assert _read(created.id).version == 2


def test_two_racing_updates_serialise_and_neither_is_lost(stored: RacingStore) -> None:
    created = _create(values={"title": "hello"})
    stored.meanwhile = lambda: _update(created.id, values={"views": 7})
    after = _update(created.id, values={"title": "renamed"})
    assert (after.values["title"], after.values["views"], after.version) == ("renamed", 7, 3)
    assert _read(created.id).values == after.values


def test_publish_makes_the_draft_the_live_version_and_a_second_publish_is_409() -> None:
    created = _create(values={"title": "hello"})
    published = publish_entry(_action(created.id))
    assert (published.status, published.version, published.published_version) == (
        "published",
        2,
        1,
    )
    live = _read(created.id, "published")
    assert (live.values["title"], live.published_version) == ("hello", 1)
    with pytest.raises(Conflict):
        publish_entry(_action(created.id))


def test_a_published_entry_edited_is_changed_and_its_live_version_stays() -> None:
    created = _create(values={"title": "hello"})
    publish_entry(_action(created.id))
    edited = _update(created.id, values={"title": "draft title"})
    assert edited.status == "changed"
    assert _read(created.id, "published").values["title"] == "hello"


def test_discard_throws_the_draft_away() -> None:
    created = _create(values={"title": "hello"})
    publish_entry(_action(created.id))
    _update(created.id, values={"title": "draft title", "views": 3})
    discarded = discard_changes(_action(created.id))
    assert discarded.status == "published"
    assert (discarded.values["title"], discarded.values["views"]) == ("hello", None)
    assert _read(created.id).values == _read(created.id, "published").values
    with pytest.raises(Conflict):
        discard_changes(_action(created.id))


def test_the_trash_hides_an_entry_from_reads_and_lists_and_restore_brings_it_back() -> None:
    created = _create(values={"title": "hello"})
    publish_entry(_action(created.id))
    delete_entry(_action(created.id))
    assert _listed() == ([], 0)
    for view in ("latest", "published"):
        with pytest.raises(NotFound):
            _read(created.id, view)
    restored = restore_entry(_action(created.id))
    assert restored.status == "published"
    assert _listed() == ([created.id], 1)
    assert _read(created.id, "published").values["title"] == "hello"
    with pytest.raises(Conflict):
        restore_entry(_action(created.id))


def test_a_link_is_listed_under_what_links_its_target() -> None:
    created = _create(values={"title": "hello"}, relations={"tags": RelationChange((TAG_ID,))})
    assert _read(created.id).links["tags"] == (TAG_ID,)
    page = linked_from(LinkedFromRequest(EDITOR, WORKSPACE, "tag", TAG_ID))
    assert [(linker.id, linker.field) for linker in page.items] == [(created.id, "tags")]


def test_a_one_to_one_target_is_claimed_by_one_source(stored: RacingStore) -> None:
    first = _create(values={"title": "first"}, relations={"cover": RelationChange((TAG_ID,))})
    second = _create(values={"title": "second"})
    before = _unchanged(stored)
    with pytest.raises(Conflict) as refused:
        _update(second.id, relations={"cover": RelationChange((TAG_ID,))})
    assert refused.value.details == [
        {"location": "relations.cover.link", "problem": f"{TAG_ID} is taken"}
    ]
    assert _unchanged(stored) == before
    assert _read(first.id).links["cover"] == (TAG_ID,)


def test_a_locale_of_a_locale_group_is_claimed_by_one_entry(stored: RacingStore) -> None:
    def translate(group_id: str | None, locale: str) -> Entry:
        return create_entry(
            WriteRequest(
                EDITOR,
                WORKSPACE,
                "page",
                values={"title": locale},
                locale=locale,
                locale_group_id=group_id,
            )
        )

    first = translate(None, "en")
    assert translate(first.id, "de").locale_group_id == first.id
    before = _unchanged(stored)
    with pytest.raises(Conflict) as refused:
        translate(first.id, "de")
    assert refused.value.message == "the locale group already has an entry in locale 'de'"
    assert _unchanged(stored) == before
