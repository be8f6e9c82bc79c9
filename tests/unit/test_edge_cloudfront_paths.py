"""CloudFront invalidation paths: a pattern covered by another is dropped, too many collapse to
the whole API and the files, and a retried batch names the same invalidation."""

from __future__ import annotations

from content_service.edge.changes import EdgeChange
from content_service.edge.cloudfront import (
    EVERYTHING,
    MAX_PATHS,
    caller_reference,
    invalidation_paths,
)


def no_linkers(_workspace: str, _type: str) -> list[str]:
    return []


def entry(content_type: str, event_id: str = "e") -> EdgeChange:
    return EdgeChange("entry", "ws", content_type=content_type, entry_id="x", event_id=event_id)


def test_past_the_path_budget_the_whole_api_and_the_files_are_invalidated() -> None:
    within = [entry(f"t{i}") for i in range(MAX_PATHS - 1)]
    assert len(invalidation_paths(within, no_linkers)) == MAX_PATHS
    assert invalidation_paths([*within, entry("one_more")], no_linkers) == list(EVERYTHING)


def test_linkers_are_asked_once_per_workspace_and_type() -> None:
    asked: list[tuple[str, str]] = []

    def linkers(workspace: str, content_type: str) -> list[str]:
        asked.append((workspace, content_type))
        return ["post"]

    paths = invalidation_paths([entry("author", "1"), entry("author", "2")], linkers)
    assert asked == [("ws", "author")]
    assert "/api/v1/content/post*" in paths


def test_the_caller_reference_follows_the_batch_s_events_not_their_order() -> None:
    first = caller_reference([entry("a", "1"), entry("b", "2")])
    assert first == caller_reference([entry("b", "2"), entry("a", "1")])
    assert first != caller_reference([entry("a", "1"), entry("b", "3")])
