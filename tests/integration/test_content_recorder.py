"""The storage recorder the content tests and benchmarks rely on: it forwards unchanged, records
what the app asked DynamoDB, and replays recorded answers on demand."""

from __future__ import annotations

from collections.abc import Callable

from infra.local_stack import LocalStack
from infra.request_recorder import RequestRecorder
from tests.support.clients import WorkspaceAccess
from tests.support.content import capture, create, define

NewWorkspace = Callable[..., WorkspaceAccess]


def test_the_session_stack_routes_the_app_through_the_recorder(
    stack: LocalStack, new_workspace: NewWorkspace
) -> None:
    assert stack.recorder is not None
    assert stack.settings is not None
    assert stack.settings.aws_endpoint_url == stack.recorder.url
    workspace = new_workspace()
    define(workspace.full, "note", [{"name": "text", "type": "string"}])
    with capture(stack) as captured:
        entry = create(workspace.full, "note", {"text": "x"})
    (transaction,) = [c for c in captured.dynamodb() if c.operation == "TransactWriteItems"]
    assert transaction.status == 200
    assert transaction.elapsed > 0
    assert set(transaction.tables) == {
        stack.settings.tables.content,
        stack.settings.tables.schema,
        stack.settings.tables.events,
        stack.settings.tables.audit,
    }
    assert entry["id"] in transaction.raw_request.decode()
    assert transaction.request_bytes == len(transaction.raw_request)


def test_calls_outside_a_capture_are_not_kept(
    stack: LocalStack, new_workspace: NewWorkspace
) -> None:
    workspace = new_workspace()
    with capture(stack) as first:
        workspace.full.get("/api/v1/content-types")
    workspace.full.get("/api/v1/content-types")
    with capture(stack) as second:
        pass
    assert first.operations() == ["GetItem", "Query"]
    assert second.calls == []


def test_replay_answers_identical_requests_without_the_upstream(stack: LocalStack) -> None:
    with RequestRecorder(stack.emulator.endpoint_url) as recorder:
        live = stack.emulator.session().client("dynamodb", endpoint_url=recorder.url)
        with recorder.capture() as calls:
            tables = live.list_tables()["TableNames"]
        assert calls[0].operation == "ListTables"
        assert not calls[0].replayed
        with recorder.replay(calls), recorder.capture() as replayed:
            assert live.list_tables()["TableNames"] == tables
        assert replayed[0].replayed
        assert replayed[0].elapsed == 0
        # Outside the replay block the upstream answers again.
        with recorder.capture() as again:
            live.list_tables()
        assert not again[0].replayed
