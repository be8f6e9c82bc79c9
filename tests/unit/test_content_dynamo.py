"""The low-level DynamoDB helpers: BatchGetItem chunking and UnprocessedKeys retries,
transaction cancellation reasons."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from content_service.storage import dynamo


class FakeClient:
    """Answers batch_get_item from a script; records every request."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self.requests: list[dict[str, Any]] = []

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:  # noqa: N803
        self.requests.append(RequestItems)
        if self.answers:
            return self.answers.pop(0)
        keys = RequestItems["t"]["Keys"]
        return {"Responses": {"t": [{**k, "x": {"S": "found"}} for k in keys]}}

    def transact_write_items(self, TransactItems: list[Any]) -> None:  # noqa: N803
        raise ClientError(
            {
                "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
                "CancellationReasons": [{"Code": "None"}, {"Code": "ConditionalCheckFailed"}],
            },
            "TransactWriteItems",
        )


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dynamo.time, "sleep", lambda _: None)


def keys(count: int) -> list[dict[str, Any]]:
    return [dynamo.key(f"p{i}", "s") for i in range(count)]


def test_batch_get_asks_at_most_100_keys_per_call(
    monkeypatch: pytest.MonkeyPatch, no_sleep: None
) -> None:
    fake = FakeClient([])
    monkeypatch.setattr(dynamo, "client", lambda: fake)
    found = dynamo.batch_get("t", keys(250) + keys(10))  # duplicates are asked once
    assert [len(r["t"]["Keys"]) for r in fake.requests] == [100, 100, 50]
    assert len(found) == 250
    assert all(r["t"]["ConsistentRead"] is True for r in fake.requests)


def test_batch_get_retries_unprocessed_keys(
    monkeypatch: pytest.MonkeyPatch, no_sleep: None
) -> None:
    wanted = keys(3)
    fake = FakeClient(
        [
            {
                "Responses": {"t": [{**wanted[0], "x": {"S": "a"}}]},
                "UnprocessedKeys": {"t": {"Keys": wanted[1:]}},
            },
            {
                "Responses": {"t": [{**wanted[1], "x": {"S": "b"}}]},
                "UnprocessedKeys": {"t": {"Keys": wanted[2:]}},
            },
        ]
    )
    monkeypatch.setattr(dynamo, "client", lambda: fake)
    projection = dynamo.Projection.of([["id"], ["values", "f1"]])
    found = dynamo.batch_get("t", wanted, projection)
    assert sorted(i["pk"] for i in found) == ["p0", "p1", "p2"]
    assert [len(r["t"]["Keys"]) for r in fake.requests] == [3, 2, 1]
    assert all(r["t"]["ProjectionExpression"] == "#p0, #p1.#p2" for r in fake.requests)


def test_batch_get_never_drops_keys_silently(
    monkeypatch: pytest.MonkeyPatch, no_sleep: None
) -> None:
    stuck = {"Responses": {"t": []}, "UnprocessedKeys": {"t": {"Keys": keys(1)}}}
    fake = FakeClient([dict(stuck) for _ in range(20)])
    monkeypatch.setattr(dynamo, "client", lambda: fake)
    with pytest.raises(RuntimeError, match="unprocessed"):
        dynamo.batch_get("t", keys(1))


def test_transaction_cancellation_reasons_are_kept_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dynamo, "client", lambda: FakeClient([]))
    with pytest.raises(dynamo.TransactionCancelled) as cancelled:
        dynamo.transact([{"Put": {}}, {"Put": {}}])
    assert cancelled.value.reasons == ["None", "ConditionalCheckFailed"]
    assert cancelled.value.failed(1)
    assert not cancelled.value.failed(0)
    assert not cancelled.value.conflicted


def test_a_transaction_over_100_items_is_refused_before_sending() -> None:
    with pytest.raises(ValueError, match="at most 100"):
        dynamo.transact([{"Put": {}}] * 101)


def test_projection_reuses_aliases() -> None:
    projection = dynamo.Projection.of([["values", "f1"], ["values", "f2"], ["id"]])
    assert projection.expression == "#p0.#p1, #p0.#p2, #p3"
    assert projection.names == {"#p0": "values", "#p1": "f1", "#p2": "f2", "#p3": "id"}
