"""The deliveries table: creating, reading, claiming, finishing, sweeping and pruning rows.

The rows' attributes are described in `delivery_rows.py`, the log's cursors in
`delivery_log.py`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from content_service.storage.dynamo import (
    TRANSACT_LIMIT,
    TransactionCancelled,
    batch_get,
    conditional,
    decode,
    delete_many,
    encode,
    encode_value,
    failed_item,
    is_condition_failure,
    pages,
    transact,
    values,
)
from content_service.storage.json_values import plain

from .delivery_log import (
    FILTERED_SCAN,
    LogSearch,
    Page,
    cursor_after,
    decode_cursor,
    log_filter,
    log_filters,
)
from .delivery_rows import (
    STATUSES,
    TERMINAL,
    Claim,
    DeliveryRow,
    InsertResult,
    NotClaimed,
    Outcome,
    Refused,
    claimed,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

BY_ENDPOINT = "byEndpoint"
BY_SWEEP = "bySweep"
BY_FINISH = "byFinish"
PRUNE_CONTROL_ID = "control#prune"
# The endpoint list's 24 h health counts read at most this many rows per endpoint.
HEALTH_MAX_ROWS = 20_000


class DeliveryStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    @property
    def table(self) -> str:
        return self._table

    # -- creating rows -------------------------------------------------------------------

    def insert_new(self, rows: Sequence[DeliveryRow]) -> InsertResult:
        """Inserts rows that do not exist yet, in transactions of up to 100.

        Each put is conditional on `attribute_not_exists(id)`, so an existing row (a repeated
        stream record, a concurrent fan-out of the same event) is never overwritten. When a
        transaction is cancelled, its cancellation reasons say which rows already existed;
        the rest are put again in a new transaction. A single row is a conditional PutItem.
        """
        result = InsertResult()
        for start in range(0, len(rows), TRANSACT_LIMIT):
            pending = list(rows[start : start + TRANSACT_LIMIT])
            for _ in range(5):
                if not pending:
                    break
                pending = self._transact_puts(pending, result)
            if pending:
                raise RuntimeError(f"could not insert {len(pending)} delivery row(s)")
        return result

    def _transact_puts(self, rows: list[DeliveryRow], result: InsertResult) -> list[DeliveryRow]:
        result.requests += 1
        if len(rows) == 1:
            # One row needs no transaction (which would cost twice the write capacity).
            try:
                self.insert_one(rows[0])
            except ClientError as error:
                if not is_condition_failure(error):
                    raise
                result.existing.append(rows[0].id)
            else:
                result.inserted.append(rows[0].id)
            return []
        try:
            puts: list[Any] = [{"Put": self.insert_request(row)} for row in rows]
            transact(puts, using=self._client)
        except TransactionCancelled as cancelled:
            if len(cancelled.reasons) != len(rows):
                raise
            retry: list[DeliveryRow] = []
            for row, code in zip(rows, cancelled.reasons, strict=True):
                if code == "ConditionalCheckFailed":
                    result.existing.append(row.id)
                elif code in ("None", "TransactionConflict", "ThrottlingError"):
                    retry.append(row)
                else:
                    raise
            return retry
        result.inserted.extend(row.id for row in rows)
        return []

    def insert_one(self, row: DeliveryRow) -> None:
        self._client.put_item(**self.insert_request(row))

    def insert_request(self, row: DeliveryRow) -> dict[str, Any]:
        """The Put of a new row (a transaction's, or `insert_one`'s), never over one there."""
        return {
            "TableName": self._table,
            "Item": encode(row.to_values(), sparse=True),
            "ConditionExpression": "attribute_not_exists(id)",
        }

    # -- reading -------------------------------------------------------------------------

    def get(self, delivery_id: str) -> DeliveryRow | None:
        response = self._client.get_item(
            TableName=self._table, Key={"id": {"S": delivery_id}}, ConsistentRead=True
        )
        item = response.get("Item")
        if not item or "endpointId" not in item:
            return None
        return DeliveryRow.from_values(plain(decode(item)))

    def get_many(self, delivery_ids: Sequence[str]) -> dict[str, DeliveryRow]:
        """The rows among `delivery_ids` that exist, by id (strongly consistent)."""
        keys = [{"id": {"S": i}} for i in delivery_ids]
        found = batch_get(self._table, keys, using=self._client)
        return {i["id"]: DeliveryRow.from_values(plain(i)) for i in found if "endpointId" in i}

    def page_for_endpoint(
        self,
        endpoint_id: str,
        *,
        limit: int,
        cursor: str | None = None,
        status: str | None = None,
        event: str | None = None,
        search: LogSearch | None = None,
        max_requests: int = 20,
    ) -> Page:
        """The delivery log of one endpoint, newest first, optionally filtered.

        `since`/`until` narrow the index's key range (creation time), so a time window costs
        only its own rows. The other filters are applied as the rows are read: a filtered
        query reads `FILTERED_SCAN` rows per request, at most `max_requests` requests per
        page, and a page that ran out of requests ends with a cursor, not with everything.
        """
        search = search or LogSearch()
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": BY_ENDPOINT,
            "KeyConditionExpression": "endpointId = :endpoint" + search.key_range(),
            "ScanIndexForward": False,
        }
        expression_values = values(endpoint=endpoint_id, **search.key_values())
        filters, names = log_filter(status, event, search, expression_values)
        if filters:
            kwargs["FilterExpression"] = " AND ".join(filters)
        if names:
            kwargs["ExpressionAttributeNames"] = names
        kwargs["ExpressionAttributeValues"] = expression_values
        filters_digest = log_filters(status, event, search)
        if cursor is not None:
            kwargs["ExclusiveStartKey"] = decode_cursor(cursor, endpoint_id, filters_digest)
        kwargs["Limit"] = max(FILTERED_SCAN, limit) if filters else limit
        items: list[DeliveryRow] = []
        last: Mapping[str, Any] | None = None
        for response in islice(pages("query", kwargs, self._client), max_requests):
            found = response.get("Items", [])
            last = response.get("LastEvaluatedKey")
            for index, item in enumerate(found):
                row = DeliveryRow.from_values(plain(decode(item)))
                if search.entry_id is not None and row.entry_id != search.entry_id:
                    continue
                items.append(row)
                if len(items) == limit:
                    more = index < len(found) - 1 or bool(last)
                    next_cursor = cursor_after(item, filters_digest) if more else None
                    return Page(items, next_cursor)
        return Page(items, cursor_after(last, filters_digest) if last else None)

    def latest_for_endpoint(self, endpoint_id: str) -> DeliveryRow | None:
        page = self.page_for_endpoint(endpoint_id, limit=1, max_requests=1)
        return page.items[0] if page.items else None

    def verdict_counts(
        self, endpoint_id: str, since_iso: str, max_rows: int = HEALTH_MAX_ROWS
    ) -> tuple[dict[str, int], bool]:
        """Rows of one endpoint created since `since_iso`, counted by status; True when the
        count stopped at `max_rows` (the figures are then a lower bound)."""
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": BY_ENDPOINT,
            "KeyConditionExpression": "endpointId = :endpoint AND createdKey >= :since",
            "ProjectionExpression": "#status",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": values(endpoint=endpoint_id, since=since_iso),
        }
        seen = 0
        for page in pages("query", kwargs, self._client):
            for item in page.get("Items", []):
                status = item.get("status", {}).get("S", "")
                if status in counts:
                    counts[status] += 1
                seen += 1
            if page.get("LastEvaluatedKey") and seen >= max_rows:
                return counts, True
        return counts, False

    def recoverable(
        self,
        endpoint_id: str,
        *,
        since_iso: str,
        until_iso: str,
        statuses: Sequence[str],
        after: str | None,
        limit: int,
    ) -> tuple[list[DeliveryRow], str | None]:
        """Rows created in [since, until) with one of `statuses`, oldest first, from after the
        `createdKey` `after`; with the `createdKey` to continue from (None at the end)."""
        low = after if after is not None else since_iso
        operator = ">" if after is not None else ">="
        names = {"#status": "status"}
        placeholders = ", ".join(f":s{i}" for i in range(len(statuses)))
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": BY_ENDPOINT,
            "KeyConditionExpression": (
                "endpointId = :endpoint AND createdKey BETWEEN :low AND :until"
            ),
            "FilterExpression": f"#status IN ({placeholders})",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": {
                **values(endpoint=endpoint_id, low=low, until=until_iso),
                **{f":s{i}": encode_value(status) for i, status in enumerate(statuses)},
            },
            "ScanIndexForward": True,
            "Limit": FILTERED_SCAN,
        }
        rows: list[DeliveryRow] = []
        last: Mapping[str, Any] | None = None
        for response in islice(pages("query", kwargs, self._client), 5):
            last = response.get("LastEvaluatedKey")
            for item in response.get("Items", []):
                row = DeliveryRow.from_values(plain(decode(item)))
                key = f"{row.created_at}#{row.id}"
                if operator == ">" and key <= low:
                    continue
                rows.append(row)
                if len(rows) == limit:
                    return rows, key
        return rows, str(last["createdKey"]["S"]) if last else None

    def schedule_now_request(
        self, delivery_id: str, now_iso: str, sweep_iso: str
    ) -> dict[str, Any]:
        """Retry now, as a transaction's Update: a `failed` row's next attempt becomes due at
        once (refused when the row is not failed)."""
        return {
            "TableName": self._table,
            "Key": {"id": {"S": delivery_id}},
            "UpdateExpression": "SET nextAttemptAt = :now, sweepAt = :sweep, updatedAt = :now",
            "ConditionExpression": "attribute_exists(endpointId) AND #status = :failed",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": values(now=now_iso, sweep=sweep_iso, failed="failed"),
        }

    def mark_recovered(
        self, original: DeliveryRow, redelivery_id: str, now_iso: str, expires_at: int | None
    ) -> None:
        """Records the redelivery a recovery made of `original`. A `failed` original stops its
        own retries (dead, "superseded"), so the event is not sent twice; if a worker took it
        meanwhile, only the mark is written."""
        why = f"superseded by redelivery {redelivery_id} (recovery)"
        sets = "#status = :dead, recoveredBy = :by, lastError = :why, updatedAt = :now"
        sets += ", finishedAt = :now" + (", expiresAt = :expires" if expires_at else "")
        retire_values = values(dead="dead", by=redelivery_id, why=why, now=now_iso, failed="failed")
        if expires_at:
            retire_values.update(values(expires=expires_at))
        if original.status == "failed":
            retired = conditional(
                self._client.update_item,
                TableName=self._table,
                Key={"id": {"S": original.id}},
                UpdateExpression=f"SET {sets} REMOVE nextAttemptAt, sweepAt",
                ConditionExpression="#status = :failed",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues=retire_values,
            )
            if retired is not None:
                return
        conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": original.id}},
            UpdateExpression="SET recoveredBy = :by",
            ConditionExpression="attribute_exists(endpointId)",
            ExpressionAttributeValues=values(by=redelivery_id),
        )

    # -- claiming and recording ----------------------------------------------------------

    def claim(
        self, delivery_id: str, now_iso: str, cutoff_iso: str, reclaim_at_iso: str
    ) -> Claim | NotClaimed:
        """The conditional claim (docs/webhooks.md, "Delivery"): one UpdateItem, committed before
        any send.

        Claimable: `pending`; `failed` whose `nextAttemptAt` has come; `delivering` whose claim
        is older than the claim timeout (`cutoff_iso`). The claim records a new token and time,
        adds one to `attempts`, and sets `sweepAt` to when the claim expires, so the minute
        sweep re-enqueues the row if this worker dies.
        """
        token = str(uuid.uuid4())
        try:
            response = self._client.update_item(
                **self._claim_request(delivery_id, token, now_iso, cutoff_iso, reclaim_at_iso),
                ReturnValues="ALL_OLD",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise
            seen = plain(failed_item(error))
            if seen is None or "endpointId" not in seen:
                return NotClaimed("missing", None)
            row = DeliveryRow.from_values(seen)
            if row.status in TERMINAL:
                return NotClaimed("finished", row)
            if row.status == "delivering":
                return NotClaimed("claimed", row)
            return NotClaimed("not_due", row)
        before = DeliveryRow.from_values(plain(decode(response["Attributes"])))
        return claimed(before, token, now_iso, reclaim_at_iso)

    def claim_checked(
        self,
        seen: DeliveryRow,
        check: Mapping[str, Any],
        times: tuple[str, str, str],
        finishing: tuple[Claim, Outcome] | None = None,
    ) -> Claim | Refused:
        """The claim `claim` makes, on two more conditions, in one TransactWriteItems: the row is
        still exactly as it was read (`seen`: status, attempts, last write), and `check` (a
        ConditionCheck, the endpoint unchanged since it was read) holds. `finishing`, the
        outcome of the delivery before it, is recorded in the same transaction. `times` are
        the claim's (now, cutoff, reclaim at). Either everything is written or nothing is;
        `Refused` then says which conditions failed.
        """
        token = str(uuid.uuid4())
        now_iso, cutoff_iso, reclaim_at_iso = times
        update = self._claim_request(seen.id, token, now_iso, cutoff_iso, reclaim_at_iso)
        attempts = "attempts = :seenAttempts"
        if seen.attempts == 0:
            attempts = f"(attribute_not_exists(attempts) OR {attempts})"
        update["ConditionExpression"] = (
            f"({update['ConditionExpression']}) AND #status = :seenStatus"
            f" AND updatedAt = :seenUpdatedAt AND {attempts}"
        )
        update["ExpressionAttributeValues"].update(
            values(
                seenStatus=seen.status, seenUpdatedAt=seen.updated_at, seenAttempts=seen.attempts
            )
        )
        items: list[Any] = [{"ConditionCheck": dict(check)}, {"Update": update}]
        if finishing is not None:
            items.insert(0, {"Update": self._finish_request(*finishing)})
        try:
            transact(items, using=self._client)
        except TransactionCancelled as cancelled:
            codes = [code != "None" for code in cancelled.reasons]
            if len(codes) != len(items):
                raise
            if finishing is None:
                codes.insert(0, False)
            return Refused(finish=codes[0], check=codes[1], row=codes[2])
        return claimed(seen, token, now_iso, reclaim_at_iso)

    def _claim_request(
        self, delivery_id: str, token: str, now_iso: str, cutoff_iso: str, reclaim_at_iso: str
    ) -> dict[str, Any]:
        return {
            "TableName": self._table,
            "Key": {"id": {"S": delivery_id}},
            "UpdateExpression": (
                "SET #status = :delivering, claimToken = :token, claimedAt = :now, "
                "attempts = if_not_exists(attempts, :zero) + :one, updatedAt = :now, "
                "sweepAt = :reclaim"
            ),
            "ConditionExpression": (
                "attribute_exists(endpointId) AND (#status = :pending"
                " OR (#status = :failed AND nextAttemptAt <= :now)"
                " OR (#status = :delivering AND claimedAt <= :cutoff))"
            ),
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": values(
                delivering="delivering",
                pending="pending",
                failed="failed",
                token=token,
                now=now_iso,
                cutoff=cutoff_iso,
                reclaim=reclaim_at_iso,
                zero=0,
                one=1,
            ),
        }

    def finish(self, claim: Claim, outcome: Outcome) -> bool:
        """Records an outcome if this worker still holds the claim; False if it lost it.

        A `failed` row gets its `nextAttemptAt` and `sweepAt`; a terminal one leaves the sweep
        index (no `sweepAt`) and enters the prune index (`finishedAt`, and `expiresAt` for TTL).
        When no request was sent (`outcome.sent` False) the previous attempt's status code,
        duration and snippet stay; only the error is replaced.
        """
        written = conditional(self._client.update_item, **self._finish_request(claim, outcome))
        return written is not None

    def _finish_request(self, claim: Claim, outcome: Outcome) -> dict[str, Any]:
        assignments = [
            "#status = :status",
            "updatedAt = :now",
            "attemptLog = list_append(if_not_exists(attemptLog, :empty), :log)",
        ]
        removes = ["claimToken"]
        expression_values: dict[str, Any] = values(
            status=outcome.status,
            now=outcome.now_iso,
            token=claim.token,
            delivering="delivering",
            log=[entry.to_json() for entry in outcome.log],
            empty=[],
        )

        def assign(name: str, value: Any) -> None:
            if value is None:
                removes.append(name)
            else:
                assignments.append(f"{name} = :{name}")
                expression_values[f":{name}"] = encode_value(value)

        if outcome.sent:
            assign("lastStatusCode", outcome.status_code)
            assign("lastDurationMs", outcome.duration_ms)
            assign("responseSnippet", outcome.response_snippet)
        assign("lastError", outcome.error)
        if outcome.attempts is not None:
            assign("attempts", outcome.attempts)
        if outcome.status in ("failed", "pending"):  # pending: given back unsent (throttled)
            assign("nextAttemptAt", outcome.next_attempt_at)
            assign("sweepAt", outcome.sweep_at)
        else:
            assign("finishedAt", outcome.now_iso)
            if outcome.expires_at is not None:
                assign("expiresAt", outcome.expires_at)
            removes += ["nextAttemptAt", "sweepAt"]
        return {
            "TableName": self._table,
            "Key": {"id": {"S": claim.row.id}},
            "UpdateExpression": "SET " + ", ".join(assignments) + " REMOVE " + ", ".join(removes),
            "ConditionExpression": "claimToken = :token AND #status = :delivering",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": expression_values,
        }

    # -- the minute sweep and the hourly prune -------------------------------------------

    def due_for_sweep(self, shard: str, now_iso: str) -> Iterator[tuple[str, str]]:
        """(id, sweepAt) of the shard's non-terminal rows whose `sweepAt` has come."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": BY_SWEEP,
            "KeyConditionExpression": "sweepShard = :shard AND sweepAt <= :now",
            "ExpressionAttributeValues": values(shard=shard, now=now_iso),
        }
        for page in pages("query", kwargs, self._client):
            for item in page.get("Items", []):
                yield item["id"]["S"], item["sweepAt"]["S"]

    def unfinished(self, shard: str) -> Iterator[str]:
        """Ids of the shard's non-terminal rows, whatever their `sweepAt`."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": BY_SWEEP,
            "KeyConditionExpression": "sweepShard = :shard",
            "ExpressionAttributeValues": values(shard=shard),
        }
        for page in pages("query", kwargs, self._client):
            yield from (item["id"]["S"] for item in page.get("Items", []))

    def postpone_sweep(self, delivery_id: str, seen_iso: str, next_iso: str) -> bool:
        """Moves `sweepAt` on if nobody changed it since it was read (a claim, an outcome)."""
        written = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": delivery_id}},
            UpdateExpression="SET sweepAt = :next",
            ConditionExpression="sweepAt = :seen",
            ExpressionAttributeValues=values(next=next_iso, seen=seen_iso),
        )
        return written is not None

    def finished_before(self, shard: str, cutoff_iso: str) -> Iterator[str]:
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": BY_FINISH,
            "KeyConditionExpression": "finishShard = :shard AND finishedAt < :cutoff",
            "ExpressionAttributeValues": values(shard=shard, cutoff=cutoff_iso),
        }
        for page in pages("query", kwargs, self._client):
            yield from (item["id"]["S"] for item in page.get("Items", []))

    def delete_many(self, ids: Sequence[str]) -> int:
        """Deletes the rows; raises `Unprocessed` for any DynamoDB left undeleted."""
        return delete_many(self._table, [{"id": {"S": i}} for i in ids], using=self._client)

    def take_prune_slot(self, hour: int, now_iso: str) -> bool:
        """True for the first caller in a clock hour: pruning runs at most once an hour."""
        written = conditional(
            self._client.update_item,
            TableName=self._table,
            Key={"id": {"S": PRUNE_CONTROL_ID}},
            UpdateExpression="SET lastHour = :hour, lastRunAt = :now",
            ConditionExpression="attribute_not_exists(lastHour) OR lastHour < :hour",
            ExpressionAttributeValues=values(hour=hour, now=now_iso),
        )
        return written is not None
