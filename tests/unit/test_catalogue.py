"""The event catalogue against its documented table (docs/api.md) and the contract's JSON shape."""

from __future__ import annotations

import dataclasses
import json

import pytest

from content_service.webhooks.endpoints import (
    CATALOGUE,
    ENTRY_EVENT_KINDS,
    OPERATIONAL_KINDS,
    PING,
    SUBSCRIBABLE_KINDS,
    catalogue_json,
    is_known_kind,
)
from tests.support.webhooks import ENVELOPE_FIELDS

# The catalogue, row by row: kind, group, filtered by content type, carries a workspace.
SPEC_TABLE = [
    ("entry.created", "content", True, True),
    ("entry.updated", "content", True, True),
    ("entry.published", "content", True, True),
    ("entry.unpublished", "content", True, True),
    ("entry.deleted", "content", True, True),
    ("entry.restored", "content", True, True),
    ("entry.purged", "content", True, True),
    ("ping", "system", False, False),
]
# Beyond the content events: the operational notices about endpoints (issue 26).
OPERATIONAL_TABLE = [
    ("endpoint.failing", "operational", False, False),
    ("endpoint.disabled", "operational", False, False),
    ("endpoint.recovered", "operational", False, False),
]


def test_catalogue_is_the_spec_table_in_order_then_the_operational_kinds() -> None:
    rows = [(e.kind, e.group, e.filtered_by_content_type, e.carries_workspace) for e in CATALOGUE]
    assert rows == SPEC_TABLE + OPERATIONAL_TABLE


def test_json_shape_is_the_contracts() -> None:
    body = catalogue_json()
    assert json.loads(json.dumps(body)) == body
    assert [
        (row["kind"], row["group"], row["filteredByContentType"], row["carriesWorkspace"])
        for row in body
    ] == SPEC_TABLE + OPERATIONAL_TABLE
    assert all(
        set(row)
        == {"kind", "group", "filteredByContentType", "carriesWorkspace", "description", "example"}
        for row in body
    )


def test_every_kind_has_a_description_and_an_example_envelope_of_its_kind() -> None:
    for row in catalogue_json():
        assert len(row["description"]) > 20
        example = row["example"]
        # The envelope (docs/api.md, "What a receiver gets"): the same fields for every kind, in
        # this order.
        assert list(example) == ENVELOPE_FIELDS
        assert example["event"] == row["kind"]
        assert (example["workspaceId"] is not None) == row["carriesWorkspace"]
        if row["group"] == "content":
            assert set(example["data"]) == {"kind", "id", "contentType", "title"}
            assert example["data"]["kind"] == "content_entry"
        elif row["group"] == "operational":
            assert list(example["data"]) == ["kind", "id", "host", "reason", "consecutiveDead"]
            assert example["data"]["kind"] == "webhook_endpoint"
            assert example["actor"] is None
        else:
            assert example["data"]["kind"] == "endpoint"


def test_entry_kinds_are_the_seven_entry_events() -> None:
    assert tuple(kind for kind, *_ in SPEC_TABLE[:7]) == ENTRY_EVENT_KINDS


def test_ping_is_known_but_not_subscribable() -> None:
    assert PING == "ping"
    assert is_known_kind("ping")
    assert "ping" not in SUBSCRIBABLE_KINDS
    assert frozenset((*ENTRY_EVENT_KINDS, *OPERATIONAL_KINDS)) == SUBSCRIBABLE_KINDS


@pytest.mark.parametrize(
    "kind",
    ["media.created", "workspace.created", "entry.*", "ENTRY.CREATED", "entry.created ", ""],
)
def test_unknown_kinds(kind: str) -> None:
    # Media, transfer, account and workspace events are not delivered; no custom kinds.
    assert not is_known_kind(kind)


def test_rows_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        CATALOGUE[0].kind = "entry.renamed"  # type: ignore[misc]
