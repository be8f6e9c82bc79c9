"""The in-memory store's expressions and transactions refuse what DynamoDB refuses and raise on
what they do not evaluate, so a write rule's test never passes on an unread condition
(docs/decisions.md, D145)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from content_service.storage import dynamo
from tests.support.content_store import InMemoryContentStore
from tests.support.dynamo_expressions import Unsupported, apply_update, holds

ITEM = {"pk": "p", "sk": "s", "version": Decimal(2), "deleted": False, "sourceId": "a"}


@pytest.mark.parametrize(
    ("expression", "held"),
    [
        ("attribute_exists(pk)", True),
        ("attribute_not_exists(pk) OR sourceId = :me", False),
        ("#v = :two AND #d = :no", True),
        ("#v < :two", False),
        ("NOT (#v <> :two)", True),
        ("missing = :two", False),
        ("#v = :me", False),
    ],
)
def test_conditions_hold_as_on_dynamodb(expression: str, held: bool) -> None:
    names = {"#v": "version", "#d": "deleted"}
    values = {":two": Decimal(2), ":no": False, ":me": "b"}
    assert holds(expression, ITEM, names, values) is held


@pytest.mark.parametrize(
    "expression", ["begins_with(sk, :p)", "size(sk) > :n", "sk IN (:a, :b)", "pk = :a OR"]
)
def test_an_expression_it_does_not_evaluate_is_an_error(expression: str) -> None:
    with pytest.raises(Unsupported):
        holds(expression, ITEM, {}, {":p": "s", ":n": Decimal(1), ":a": "p", ":b": "q"})


def test_updates_read_every_value_before_writing() -> None:
    item = dict(ITEM, n=Decimal(1))
    apply_update(
        "SET #v = #v + :one, copy = #v, c = if_not_exists(c, :one) REMOVE sourceId ADD n :one, "
        "tags :tags",
        item,
        {"#v": "version"},
        {":one": Decimal(1), ":tags": {"x"}},
    )
    assert item == {
        "pk": "p",
        "sk": "s",
        "version": Decimal(3),
        "copy": Decimal(2),
        "c": Decimal(1),
        "deleted": False,
        "n": Decimal(2),
        "tags": {"x"},
    }


def test_a_refused_transaction_names_its_item_and_writes_nothing() -> None:
    fake = InMemoryContentStore()
    fake.put("content", {"pk": "p", "sk": "s"})
    put = {"Put": {"TableName": "content", "Item": dynamo.key("p", "t")}}
    check = {
        "ConditionCheck": {
            "TableName": "content",
            "Key": dynamo.key("p", "s"),
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }
    with pytest.raises(dynamo.TransactionCancelled) as refused:
        fake.transact([put, check])  # type: ignore[list-item]
    assert refused.value.reasons == ["None", "ConditionalCheckFailed"]
    assert ("p", "t") not in fake.tables["content"]
    with pytest.raises(ValueError, match="two operations on one item"):
        fake.transact([put, {"Delete": {"TableName": "content", "Key": dynamo.key("p", "t")}}])  # type: ignore[list-item]
