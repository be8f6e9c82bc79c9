"""The content store on DynamoDB (`content.store` is the interface): the process's client,
strongly consistent reads, the list index's Queries of sort keys alone, and the writes as
their requests say (a refused single write answers False, a refused transaction raises
`storage.dynamo.TransactionCancelled`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

    from content_service.content.store import Item, Key, Named, Paths, Raw, Request, Table


def _table(table: Named) -> str:
    tables = dynamo.tables()
    return {"content": tables.content, "schema": tables.schema, "events": tables.events}[table]


def _projection(paths: Paths | None) -> dynamo.Projection | None:
    return None if paths is None else dynamo.Projection.of(paths)


def index_query(
    pk: str,
    lower: str | None,
    upper: str | None,
    *,
    forward: bool,
    limit: int,
    count: bool = False,
) -> dict[str, Any]:
    """A strongly consistent Query of one partition between inclusive sort-key bounds, of the
    keys (or, `count`, of their number)."""
    condition = "#pk = :pk"
    values: dict[str, Any] = {":pk": {"S": pk}}
    if lower is not None and upper is not None:
        condition += " AND #sk BETWEEN :lo AND :hi"
    elif lower is not None:
        condition += " AND #sk >= :lo"
    elif upper is not None:
        condition += " AND #sk <= :hi"
    if lower is not None:
        values[":lo"] = {"S": lower}
    if upper is not None:
        values[":hi"] = {"S": upper}
    request: dict[str, Any] = {
        "TableName": dynamo.tables().content,
        "KeyConditionExpression": condition,
        "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
        "ExpressionAttributeValues": values,
        "ScanIndexForward": forward,
        "Limit": limit,
        "ConsistentRead": True,
    }
    if not count:
        request["ProjectionExpression"] = "#sk"
    elif lower is None and upper is None:
        del request["ExpressionAttributeNames"]["#sk"]
    return request


class DynamoContentStore:
    """Reads and writes through the process's client (`storage.dynamo.client()`), asked on
    every call."""

    def get(self, table: Table, key: Key, paths: Paths | None = None) -> Item | None:
        return dynamo.get_item(_table(table), key, _projection(paths))

    def get_many(self, table: Table, keys: Sequence[Key], paths: Paths | None = None) -> list[Item]:
        return dynamo.batch_get(_table(table), keys, _projection(paths))

    def partition(self, table: Table, pk: str, *, limit: int | None = None) -> Iterator[list[Item]]:
        request: dict[str, Any] = {
            "TableName": _table(table),
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ConsistentRead": True,
        }
        if limit is not None:
            request["Limit"] = limit
        for page in dynamo.query_pages(request):
            yield [dynamo.decode(raw) for raw in page]

    def summaries(self, pk: str) -> Iterator[list[str]]:
        for page in dynamo.query_pages(
            {
                "TableName": dynamo.tables().content,
                "KeyConditionExpression": "#pk = :pk",
                "ExpressionAttributeNames": {"#pk": "pk", "#s": "summary"},
                "ExpressionAttributeValues": {":pk": {"S": pk}},
                "ProjectionExpression": "#s",
                "ConsistentRead": True,
            }
        ):
            yield [raw["summary"]["S"] for raw in page if "summary" in raw]

    def index_keys(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int
    ) -> Iterator[list[str]]:
        request = index_query(pk, lower, upper, forward=True, limit=limit)
        for page in dynamo.query_pages(request):
            yield [item["sk"]["S"] for item in page]

    def index_keys_descending(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int
    ) -> tuple[list[str], bool]:
        request = index_query(pk, lower, upper, forward=False, limit=limit)
        raw, last = dynamo.query_page(request)
        return [item["sk"]["S"] for item in raw], last is not None

    def index_count(
        self, pk: str, lower: str | None, upper: str | None, *, limit: int, budget: int
    ) -> int | None:
        request = index_query(pk, lower, upper, forward=True, limit=limit, count=True)
        return dynamo.query_count(request, budget)

    def table_name(self, table: Named) -> str:
        return _table(table)

    def query(self, request: Request) -> Iterator[list[Raw]]:
        return dynamo.query_pages(request)

    def query_page(self, request: Request) -> tuple[list[Raw], Raw | None]:
        items, last = dynamo.query_page(request)
        return [dict(item) for item in items], last

    def scan(self, request: Request) -> Iterator[list[Raw]]:
        for page in dynamo.pages("scan", request, None):
            yield [dict(item) for item in page.get("Items", [])]

    def transact(self, items: Sequence[TransactWriteItemTypeDef]) -> None:
        dynamo.transact(items)

    def update(self, request: Request) -> bool:
        return dynamo.conditional(dynamo.client().update_item, **request) is not None

    def delete(self, request: Request) -> bool:
        return dynamo.conditional(dynamo.client().delete_item, **request) is not None

    def delete_many(self, table: Table, keys: Sequence[Key]) -> int:
        return dynamo.delete_many(_table(table), keys)
