"""Subscription matching (docs/webhooks.md, "Fan-out"): each rule on its own."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from content_service.storage.outbox_event import OutboxEvent
from content_service.webhooks.deliveries import matches
from content_service.webhooks.endpoints import ENTRY_EVENT_KINDS, Endpoint

WS = "11111111-1111-1111-1111-111111111111"
OTHER_WS = "22222222-2222-2222-2222-222222222222"


def endpoint(**fields: Any) -> Endpoint:
    return Endpoint(id="e", url="https://x.test/", secret="whsec_x", **fields)


def event(
    kind: str = "entry.created", workspace: str | None = WS, content_type: str = "post"
) -> OutboxEvent:
    return OutboxEvent(
        id="ev",
        kind=kind,
        occurred_at="2026-01-01T00:00:00.000Z",
        workspace_id=workspace,
        actor=None,
        data={"kind": "content_entry", "id": "x", "contentType": content_type, "title": "t"},
    )


def test_rule_1_all_three_sets_must_match() -> None:
    subscribed = endpoint(workspaces=(WS,), events=("entry.created",), content_types=("post",))
    assert matches(subscribed, event())
    assert not matches(subscribed, event(workspace=OTHER_WS))
    assert not matches(subscribed, event(kind="entry.deleted"))
    assert not matches(subscribed, event(content_type="page"))


@pytest.mark.parametrize("kind", ENTRY_EVENT_KINDS)
def test_rule_2_empty_kinds_means_every_kind(kind: str) -> None:
    assert matches(endpoint(workspaces=(WS,), events=()), event(kind=kind))


def test_rule_2_empty_content_types_means_every_type_even_new_ones() -> None:
    every = endpoint(workspaces=(WS,), content_types=())
    assert matches(every, event(content_type="post"))
    assert matches(every, event(content_type="type_created_tomorrow"))


def test_rule_2_empty_kinds_include_kinds_added_to_the_catalogue_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    matching = sys.modules[matches.__module__]  # the module whose catalogue `matches` reads
    monkeypatch.setattr(
        matching, "SUBSCRIBABLE_KINDS", frozenset({*ENTRY_EVENT_KINDS, "entry.archived"})
    )
    assert matches(endpoint(workspaces=(WS,)), event(kind="entry.archived"))
    assert not matches(
        endpoint(workspaces=(WS,), events=("entry.created",)), event("entry.archived")
    )


def test_rule_3_empty_workspace_list_is_not_all_workspaces() -> None:
    assert not matches(endpoint(workspaces=()), event())
    assert matches(endpoint(workspaces=(), all_workspaces=True), event())
    assert matches(endpoint(workspaces=(OTHER_WS,), all_workspaces=True), event())


def test_rule_4_an_event_without_a_workspace_reaches_only_all_workspaces() -> None:
    assert matches(endpoint(all_workspaces=True), event(workspace=None))
    assert not matches(endpoint(workspaces=(WS,)), event(workspace=None))
    assert not matches(endpoint(workspaces=()), event(workspace=None))


def test_rule_5_no_expression_language_names_are_literal() -> None:
    assert not matches(endpoint(workspaces=(WS,), content_types=("*",)), event())
    assert not matches(endpoint(workspaces=(WS,), events=("entry.*",)), event())


def test_ping_and_unknown_kinds_are_never_fanned_out() -> None:
    assert not matches(endpoint(all_workspaces=True), event(kind="ping", workspace=None))
    assert not matches(endpoint(all_workspaces=True), event(kind="media.uploaded"))


def test_a_disabled_endpoint_takes_no_new_deliveries() -> None:
    assert not matches(endpoint(workspaces=(WS,), enabled=False), event())


@pytest.mark.parametrize("kind", ["contentType.changed", "token.changed"])
def test_the_edge_s_own_events_reach_no_endpoint_even_one_subscribed_to_everything(
    kind: str,
) -> None:
    assert not matches(endpoint(all_workspaces=True, events=()), event(kind=kind))
