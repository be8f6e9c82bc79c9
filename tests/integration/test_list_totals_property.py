"""Totals stay exact: random sequences of create, update, publish, unpublish, delete, restore and
purge (through the content service, against the emulator's tables), with every total a list
answers checked against a recount of the stored entries.

After every step: the whole list's total for a read token (published) and a full token (drafts
too), served from the sharded counts. After every sequence, also: each `eq` on the two
sortable fields (their own counts) and the whole list filtered in memory (a condition on a
field that is not sortable). The recount reads every entry the sequence ever created, straight
from the table, and counts those not in the trash by status and value; the sequence's own model
must agree with it, and a step the model refuses must be refused by the service.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
)

from content_service import runtime
from content_service.content import service
from content_service.content.entries import entry_key, from_item
from content_service.content.requests import EntryAction, ListRequest, WriteRequest
from content_service.content.schema import FieldSpec, TypeDefinition
from content_service.errors import Conflict, NotFound
from content_service.identity.tokens import TokenSpec, authenticate_token, create_token
from content_service.identity.workspaces import create_workspace
from content_service.storage import dynamo
from infra.local_stack import LocalStack
from tests.support.fuzzing import FUZZ

COLORS = ("red", "green", "blue")
SIZES = (1, 2, 3)


class Totals(RuleBasedStateMachine):
    """One content type per run: `color` (enum) and `size` (integer) are sortable."""

    entries = Bundle("entries")

    def __init__(self) -> None:
        super().__init__()
        slug = f"prop-{uuid.uuid4().hex[:10]}"
        workspace = create_workspace(runtime.settings(), slug, slug)
        self.workspace_id = workspace.id
        full, _ = create_token(TokenSpec(name="full", workspace_id=workspace.id, access="full"))
        read, _ = create_token(TokenSpec(name="read", workspace_id=workspace.id, access="read"))
        self.full, self.read = authenticate_token(full), authenticate_token(read)
        service.create_type(
            self.full,
            workspace.id,
            TypeDefinition(
                "thing",
                fields=(
                    FieldSpec("title", "string"),
                    FieldSpec("color", "enum", values=COLORS, sortable=True),
                    FieldSpec("size", "integer", sortable=True),
                ),
                list_shards=2,
            ),
        )
        # id -> (status, trashed, color, size); purged entries leave the model
        self.model: dict[str, tuple[str, bool, str | None, int | None]] = {}
        self.created: list[str] = []

    def _action(self, entry_id: str) -> EntryAction:
        return EntryAction(self.full, self.workspace_id, "thing", entry_id)

    @rule(
        target=entries,
        color=st.one_of(st.none(), st.sampled_from(COLORS)),
        size=st.one_of(st.none(), st.sampled_from(SIZES)),
    )
    def create(self, color: str | None, size: int | None) -> str:
        values: dict[str, Any] = {"title": "t", "color": color, "size": size}
        made = service.create_entry(
            WriteRequest(self.full, self.workspace_id, "thing", values=values)
        )
        self.model[made.id] = ("draft", False, color, size)
        self.created.append(made.id)
        return made.id

    def _expect(self, allowed: bool, call: Any) -> bool:
        """Runs a transition the model allows, or checks the service refuses it."""
        if allowed:
            call()
            return True
        with pytest.raises((Conflict, NotFound)):
            call()
        return False

    @rule(entry_id=entries, color=st.one_of(st.none(), st.sampled_from(COLORS)))
    def update(self, entry_id: str, color: str | None) -> None:
        state = self.model.get(entry_id)
        request = WriteRequest(
            self.full, self.workspace_id, "thing", id=entry_id, values={"color": color}
        )
        if self._expect(state is not None and not state[1], lambda: service.update_entry(request)):
            assert state is not None
            self.model[entry_id] = (state[0], False, color, state[3])

    @rule(entry_id=entries)
    def publish(self, entry_id: str) -> None:
        state = self.model.get(entry_id)
        allowed = state is not None and not state[1] and state[0] == "draft"
        if self._expect(allowed, lambda: service.publish_entry(self._action(entry_id))):
            assert state is not None
            self.model[entry_id] = ("published", False, state[2], state[3])

    @rule(entry_id=entries)
    def unpublish(self, entry_id: str) -> None:
        state = self.model.get(entry_id)
        allowed = state is not None and not state[1] and state[0] == "published"
        if self._expect(allowed, lambda: service.unpublish_entry(self._action(entry_id))):
            assert state is not None
            self.model[entry_id] = ("draft", False, state[2], state[3])

    @rule(entry_id=entries)
    def delete(self, entry_id: str) -> None:
        state = self.model.get(entry_id)
        allowed = state is not None and not state[1]
        if self._expect(allowed, lambda: service.delete_entry(self._action(entry_id))):
            assert state is not None
            self.model[entry_id] = (state[0], True, state[2], state[3])

    @rule(entry_id=entries)
    def restore(self, entry_id: str) -> None:
        state = self.model.get(entry_id)
        allowed = state is not None and state[1]
        if self._expect(allowed, lambda: service.restore_entry(self._action(entry_id))):
            assert state is not None
            self.model[entry_id] = (state[0], False, state[2], state[3])

    @rule(entry_id=consumes(entries))
    def purge(self, entry_id: str) -> None:
        state = self.model.get(entry_id)
        allowed = state is not None and state[1]
        if self._expect(allowed, lambda: service.purge_entry(self._action(entry_id))):
            del self.model[entry_id]

    # -- the check ---------------------------------------------------------------------------

    def _recount(self) -> Counter[tuple[str, str, Any]]:
        """Entries not in the trash, from the table: by status, and by status and value."""
        found = dynamo.batch_get(
            dynamo.tables().content, [entry_key(self.workspace_id, i) for i in self.created]
        )
        counts: Counter[tuple[str, str, Any]] = Counter()
        for item in found:
            entry = from_item(self.workspace_id, item)
            if entry.deleted:
                continue
            values: dict[str, Any] = {"color": None, "size": None}
            for key, value in entry.values.items():
                name = {"f2": "color", "f3": "size"}.get(key)
                if name is not None:
                    values[name] = int(value) if name == "size" else value
            counts[(entry.status, "", None)] += 1
            for name, value in values.items():
                if value is not None:
                    counts[(entry.status, name, value)] += 1
        return counts

    def _total(self, caller: Any, filter: Any = None) -> int:
        return service.list_entries(
            ListRequest.parse(caller, self.workspace_id, "thing", filter=filter, page_size=1)
        ).total

    def _expected(self) -> Counter[tuple[str, str, Any]]:
        """The recount, which the sequence's own model must agree with."""
        recount = self._recount()
        model: Counter[tuple[str, str, Any]] = Counter()
        for status, trashed, color, size in self.model.values():
            if trashed:
                continue
            model[(status, "", None)] += 1
            if color is not None:
                model[(status, "color", color)] += 1
            if size is not None:
                model[(status, "size", size)] += 1
        assert +recount == +model
        return recount

    @invariant()
    def the_totals_of_the_whole_list_match_a_recount(self) -> None:
        recount = self._expected()
        published, drafts = recount[("published", "", None)], recount[("draft", "", None)]
        assert self._total(self.read) == published
        assert self._total(self.full) == published + drafts

    def teardown(self) -> None:
        """Every other total, once the sequence is done (counts never heal: a miscount on
        the way would still show)."""
        recount = self._expected()
        published, drafts = recount[("published", "", None)], recount[("draft", "", None)]
        # In memory: title is not sortable, `eq "t"` matches every entry.
        everything = {"field": "title", "op": "eq", "value": "t"}
        assert self._total(self.read, everything) == published
        assert self._total(self.full, everything) == published + drafts
        for name, values in (("color", COLORS), ("size", SIZES)):
            for value in values:
                where = {"field": name, "op": "eq", "value": value}
                shown = recount[("published", name, value)]
                assert self._total(self.read, where) == shown
                assert self._total(self.full, where) == shown + recount[("draft", name, value)]


Totals.TestCase.settings = settings(FUZZ, stateful_step_count=8)


# Runs the state machine against the session stack's tables.
TestTotals = pytest.mark.usefixtures("stack")(Totals.TestCase)


def test_the_machine_runs_on_the_session_stack(stack: LocalStack) -> None:
    assert stack.settings is not None
    assert runtime.settings().tables.content == stack.settings.tables.content
