"""The `Surrogate-Key` value: every tag while it fits, else the types' list tags, which the
purge of any change of those entries names too (docs/api.md, "Cache tags")."""

from __future__ import annotations

from content_service.content import cache_tags
from content_service.content.cache_tags import (
    MAX_HEADER_BYTES,
    change_tags,
    entry_tag,
    list_tag,
    token_tag,
    workspace_tag,
)


def test_tags_are_short_and_name_no_workspace_entry_or_token() -> None:
    tags = [workspace_tag("ws-1"), token_tag("tok-1"), list_tag("ws-1", "post")]
    tags.append(entry_tag("ws-1", "secret-looking-id"))
    assert all(len(t) == 15 for t in tags)
    assert not any(part in " ".join(tags) for part in ("ws-1", "tok-1", "post", "secret"))


def test_the_same_entry_id_in_two_workspaces_has_two_tags() -> None:
    assert entry_tag("ws-1", "home") != entry_tag("ws-2", "home")
    assert list_tag("ws-1", "post") != list_tag("ws-2", "post")


def test_an_answer_within_the_bound_names_every_entry() -> None:
    with cache_tags.collecting() as collected:
        cache_tags.record_list("ws", "post")
        cache_tags.record_entries("ws", "author", ["a1", "a2"])
    header = collected.header("tok").split(" ")
    assert set(header) == {
        workspace_tag("ws"),
        token_tag("tok"),
        list_tag("ws", "post"),
        entry_tag("ws", "a1"),
        entry_tag("ws", "a2"),
    }


def test_an_answer_over_the_bound_falls_back_to_its_types_list_tags() -> None:
    with cache_tags.collecting() as collected:
        cache_tags.record_list("ws", "post")
        cache_tags.record_entries("ws", "author", [f"a{i}" for i in range(400)])
    header = collected.header(None)
    assert len(header) <= MAX_HEADER_BYTES
    assert set(header.split(" ")) == {
        workspace_tag("ws"),
        list_tag("ws", "post"),
        list_tag("ws", "author"),
    }
    assert set(change_tags("ws", "author", "a7")) & set(header.split(" "))


def test_reads_outside_a_request_record_nothing() -> None:
    cache_tags.record_entries("ws", "author", ["a1"])
    assert cache_tags.current() is None
