"""Stand-ins for Lambda's event sources: a DynamoDB stream poller, an SQS poller and a scheduler.

Each feeds the handler the template names with events shaped exactly as Lambda delivers them,
and follows Lambda's rules for what a failure means:

- Streams: records are filtered (`FilterCriteria`), batched (`BatchSize`, batching window) and
  delivered in order per shard. A reported item failure retries from the first failed record
  (everything before it is checkpointed); an exception retries the whole batch, split in two
  first when `BisectBatchOnFunctionError` is set (each half with its own retry budget), so one
  poison record ends up alone. After `MaximumRetryAttempts` retries the batch is described to
  the `OnFailure` destination queue and skipped, so the shard moves on.
- SQS: up to `BatchSize` messages (several ReceiveMessage calls, as SQS returns at most ten)
  within the batching window; messages not reported as failed are deleted, none if the
  handler raises; the rest become visible again after the queue's visibility timeout, and
  moto moves them to the dead-letter queue after `maxReceiveCount` receives.
- Schedules: `rate(...)` expressions call the handler with the event's constant `Input`.

Handler errors are logged and never end a poller thread. Every wait is on the stop event, so
`stop()` returns as soon as the current invocation (if any) finishes.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from infra.emulator import Emulator
from infra.event_filters import compile_filter_criteria
from infra.lambda_runtime import FunctionRuntime
from infra.provisioning import Provisioned
from infra.snapshot import encode_value
from infra.template_model import EventSource, TemplateError, scalar_str

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_sqs import SQSClient

log = logging.getLogger(__name__)

_SQS_RECEIVE_LIMIT = 10
_SQS_DELETE_LIMIT = 10
_RATE = re.compile(r"^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$")
_RATE_UNITS = {"minute": 60, "hour": 3600, "day": 86400}
_LAMBDA_SQS_ATTRIBUTES = (
    "ApproximateReceiveCount",
    "SentTimestamp",
    "SenderId",
    "ApproximateFirstReceiveTimestamp",
    "AWSTraceHeader",
    "MessageGroupId",
    "MessageDeduplicationId",
    "SequenceNumber",
    "DeadLetterQueueSourceArn",
)


class HandlerFailed(Exception):
    """The handler raised; the poller treats the whole batch as failed."""


class Poller:
    """A thread that calls `poll_once` until stopped, waiting between idle polls."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._stop_event = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def stopping(self) -> bool:
        return self._stop_event.is_set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def poll_once(self) -> bool:
        """Does one unit of work; True when there may be more right away."""
        raise NotImplementedError

    def idle_seconds(self) -> float:
        raise NotImplementedError

    def prepare(self) -> None:
        """Work to do synchronously before the thread starts (see StreamPoller)."""

    def start(self) -> None:
        if self._thread is not None:
            return
        self.prepare()
        self._stop_event.clear()
        self._thread = threading.Thread(target=self._run, name=f"poller:{self.name}", daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """Asks the thread to finish without waiting for it (stop several at once)."""
        self._stop_event.set()

    def stop(self, timeout: float = 15.0) -> bool:
        """Stops the thread; False when it did not finish its current invocation in time.

        Once its thread is gone the poller can be driven by `poll_once` again (a test module
        that ran it on its thread hands it back to the synchronous drains of the next one).
        """
        self._stop_event.set()
        thread, self._thread = self._thread, None
        if thread is None:
            return True
        thread.join(timeout)
        if thread.is_alive():
            log.warning(
                "%s did not finish its current invocation within %.0f s", self.name, timeout
            )
            return False
        self._stop_event.clear()
        return True

    def _sleep(self, seconds: float) -> bool:
        """Waits unless stopped; True when stopped."""
        return self._stop_event.wait(max(0.0, seconds))

    def _run(self) -> None:
        log.debug("%s started", self.name)
        while not self.stopping:
            try:
                busy = self.poll_once()
            except Exception:
                log.exception("%s: polling failed; trying again", self.name)
                busy = False
            if not busy and self._sleep(self.idle_seconds()):
                break
        log.debug("%s stopped", self.name)


def _event_enabled(provisioned: Provisioned, event: EventSource) -> bool:
    enabled = provisioned.intrinsics.resolve(event.properties.get("Enabled", True))
    state = provisioned.intrinsics.resolve(event.properties.get("State", "ENABLED"))
    return scalar_str(enabled).lower() == "true" and scalar_str(state).upper() == "ENABLED"


def _failed_identifiers(result: Any, valid: Sequence[str]) -> list[str] | None:
    """Lambda's reading of a partial batch response: the failed ids, or None for "all failed".

    No response, or an empty or null `batchItemFailures`, is complete success; an identifier
    that is empty or not in the batch makes Lambda treat the whole batch as failed.
    """
    if not isinstance(result, Mapping):
        return []
    failures = result.get("batchItemFailures")
    if not failures:
        return []
    identifiers = []
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, Mapping) else None
        if not isinstance(identifier, str) or identifier not in valid:
            log.warning("invalid itemIdentifier %r: the whole batch counts as failed", identifier)
            return None
        identifiers.append(identifier)
    return identifiers


def _lambda_image(image: Mapping[str, Any]) -> dict[str, Any]:
    """boto3 decodes binary attributes to bytes; Lambda's JSON carries them as base64."""
    return {name: encode_value(value) for name, value in image.items()}


@dataclass
class _Shard:
    """Where a poller is in one shard; `pending` holds a batch read but not yet resolved."""

    shard_id: str
    iterator: str | None = None
    checkpoint: str | None = None
    pending: list[Any] | None = None


class StreamPoller(Poller):
    """Polls one DynamoDB stream for one `Type: DynamoDB` event of a function."""

    def __init__(
        self,
        *,
        runtime: FunctionRuntime,
        event: EventSource,
        provisioned: Provisioned,
        streams: DynamoDBStreamsClient,
        sqs: SQSClient,
        starting_position: str | None = None,
        poll_interval_s: float = 0.25,
        time_scale: float = 1.0,
        retry_base_s: float = 0.5,
    ) -> None:
        super().__init__(f"{runtime.logical_id}.{event.name}")
        resolve = provisioned.intrinsics.resolve
        props = {k: resolve(v) for k, v in event.properties.items()}
        self.runtime = runtime
        self.region = provisioned.region
        self.stream_arn = str(props["Stream"])
        self.batch_size = int(props.get("BatchSize", 100))
        self.batching_window_s = float(props.get("MaximumBatchingWindowInSeconds", 0)) * time_scale
        self.starting_position = starting_position or str(props.get("StartingPosition", "LATEST"))
        self.max_retries = int(props.get("MaximumRetryAttempts", -1))
        self.bisect = bool(props.get("BisectBatchOnFunctionError", False))
        self.reports_failures = "ReportBatchItemFailures" in (
            props.get("FunctionResponseTypes") or []
        )
        self.accepts = compile_filter_criteria(props.get("FilterCriteria"))
        destination = ((props.get("DestinationConfig") or {}).get("OnFailure") or {}).get(
            "Destination"
        )
        self.failure_queue_url = provisioned.queue_by_arn(destination).url if destination else None
        self.enabled = _event_enabled(provisioned, event)
        self.poll_interval_s = poll_interval_s
        self.retry_base_s = retry_base_s * time_scale
        self._streams = streams
        self._sqs = sqs
        self._shards: list[_Shard] | None = None

    def idle_seconds(self) -> float:
        return self.poll_interval_s

    def prepare(self) -> None:
        """Takes the shard iterators now, so "LATEST" means "after what exists at this call".

        The local stack calls this right after restoring a snapshot and before anything else
        writes, which is what keeps restored items from being fed to the handler again.
        """
        if self._shards is not None:
            return
        description = self._streams.describe_stream(StreamArn=self.stream_arn)["StreamDescription"]
        self._shards = [_Shard(shard["ShardId"]) for shard in description.get("Shards", [])]
        for shard in self._shards:
            self._acquire_iterator(shard)

    def _acquire_iterator(self, shard: _Shard) -> None:
        if shard.checkpoint is not None:
            response = self._streams.get_shard_iterator(
                StreamArn=self.stream_arn,
                ShardId=shard.shard_id,
                ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                SequenceNumber=shard.checkpoint,
            )
        else:
            response = self._streams.get_shard_iterator(
                StreamArn=self.stream_arn,
                ShardId=shard.shard_id,
                ShardIteratorType=self.starting_position,  # type: ignore[arg-type]
            )
        shard.iterator = response.get("ShardIterator")

    def _read(self, shard: _Shard, limit: int) -> list[Any]:
        if shard.iterator is None:
            return []
        try:
            response = self._streams.get_records(ShardIterator=shard.iterator, Limit=limit)
        except (ClientError, BotoCoreError):
            # Expired (AWS: 15 minutes) or compacted away: resume after the checkpoint.
            log.debug("%s: shard iterator unusable, re-acquiring", self.name)
            self._acquire_iterator(shard)
            if shard.iterator is None:
                return []
            response = self._streams.get_records(ShardIterator=shard.iterator, Limit=limit)
        shard.iterator = response.get("NextShardIterator")
        return list(response.get("Records", []))

    def poll_once(self) -> bool:
        self.prepare()
        busy = False
        for shard in self._shards or []:
            if self.stopping:
                break
            # A batch interrupted by stop() is delivered first on the next start.
            records = shard.pending or self._gather(shard)
            if not records:
                continue
            busy = True
            shard.pending = records
            batch = [r for r in (self._lambda_record(raw) for raw in records) if self.accepts(r)]
            if batch and not self._deliver(batch, shard.shard_id):
                return False
            shard.checkpoint = records[-1]["dynamodb"]["SequenceNumber"]
            shard.pending = None
        return busy

    def _gather(self, shard: _Shard) -> list[Any]:
        """Reads up to a batch, waiting at most the batching window to fill it."""
        records = self._read(shard, self.batch_size)
        if not records:
            return records
        deadline = time.monotonic() + self.batching_window_s
        while len(records) < self.batch_size and not self.stopping:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            more = self._read(shard, self.batch_size - len(records))
            records.extend(more)
            if not more:
                self._sleep(min(remaining, 0.05))
        return records

    def _lambda_record(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        change = raw["dynamodb"]
        created = change.get("ApproximateCreationDateTime")
        dynamodb: dict[str, Any] = {
            # Unix seconds, rounded down to the second, as a JSON number (Lambda sends 1.7E9).
            "ApproximateCreationDateTime": (
                float(int(created.timestamp())) if isinstance(created, datetime) else created
            ),
            "Keys": _lambda_image(change.get("Keys", {})),
        }
        for image in ("NewImage", "OldImage"):
            if image in change:
                dynamodb[image] = _lambda_image(change[image])
        dynamodb["SequenceNumber"] = change["SequenceNumber"]
        dynamodb["SizeBytes"] = change.get("SizeBytes", 0)
        dynamodb["StreamViewType"] = change.get("StreamViewType")
        return {
            "eventID": raw["eventID"],
            "eventName": raw["eventName"],
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": self.region,
            "dynamodb": dynamodb,
            "eventSourceARN": self.stream_arn,
        }

    def _invoke(self, batch: list[dict[str, Any]]) -> int | None:
        """The index of the first record to retry from, or None when the batch succeeded."""
        try:
            result = self.runtime.invoke({"Records": batch})
        except Exception as error:
            log.exception("%s: handler raised on a batch of %d", self.name, len(batch))
            raise HandlerFailed from error
        if not self.reports_failures:
            return None
        sequence_numbers = [r["dynamodb"]["SequenceNumber"] for r in batch]
        failed = _failed_identifiers(result, sequence_numbers)
        if failed is None:
            return 0
        if not failed:
            return None
        return min(sequence_numbers.index(identifier) for identifier in failed)

    def _deliver(self, batch: list[dict[str, Any]], shard_id: str) -> bool:
        """Runs Lambda's retry rules for one batch; False when stopped before resolving it."""
        pending, retries = batch, 0
        while pending:
            if self.stopping:
                return False
            try:
                retry_from = self._invoke(pending)
                function_error = None
            except HandlerFailed:
                if self.bisect and len(pending) > 1:
                    middle = len(pending) // 2
                    return self._deliver(pending[:middle], shard_id) and self._deliver(
                        pending[middle:], shard_id
                    )
                retry_from, function_error = 0, "Unhandled"
            if retry_from is None:
                return True
            pending = pending[retry_from:]
            retries += 1
            if 0 <= self.max_retries < retries:
                self._send_to_failure_destination(pending, shard_id, retries, function_error)
                return True
            log.info(
                "%s: retrying %d record(s) from sequence %s (retry %d)",
                self.name,
                len(pending),
                pending[0]["dynamodb"]["SequenceNumber"],
                retries,
            )
            if self._sleep(min(self.retry_base_s * 2 ** (retries - 1), 30.0)):
                return False
        return True

    def _send_to_failure_destination(
        self, batch: list[dict[str, Any]], shard_id: str, invocations: int, error: str | None
    ) -> None:
        """Sends the invocation record Lambda sends for a stream batch that exhausted retries."""
        log.error(
            "%s: giving up on %d record(s) after %d attempts", self.name, len(batch), invocations
        )
        if self.failure_queue_url is None:
            return

        def arrival(record: Mapping[str, Any]) -> str:
            seconds = record["dynamodb"].get("ApproximateCreationDateTime") or 0
            return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

        response_context: dict[str, Any] = {"statusCode": 200, "executedVersion": "$LATEST"}
        if error:
            response_context["functionError"] = error
        message = {
            "requestContext": {
                "requestId": str(uuid.uuid4()),
                "functionArn": self.runtime.arn,
                "condition": "RetryAttemptsExhausted",
                "approximateInvokeCount": invocations,
            },
            "responseContext": response_context,
            "version": "1.0",
            "timestamp": datetime.now(UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "DDBStreamBatchInfo": {
                "shardId": shard_id,
                "startSequenceNumber": batch[0]["dynamodb"]["SequenceNumber"],
                "endSequenceNumber": batch[-1]["dynamodb"]["SequenceNumber"],
                "approximateArrivalOfFirstRecord": arrival(batch[0]),
                "approximateArrivalOfLastRecord": arrival(batch[-1]),
                "batchSize": len(batch),
                "streamArn": self.stream_arn,
            },
        }
        self._sqs.send_message(QueueUrl=self.failure_queue_url, MessageBody=json.dumps(message))


class SqsPoller(Poller):
    """Polls one queue for one `Type: SQS` event of a function."""

    def __init__(
        self,
        *,
        runtime: FunctionRuntime,
        event: EventSource,
        provisioned: Provisioned,
        sqs: SQSClient,
        interval_s: float,
        time_scale: float = 1.0,
    ) -> None:
        super().__init__(f"{runtime.logical_id}.{event.name}")
        resolve = provisioned.intrinsics.resolve
        props = {k: resolve(v) for k, v in event.properties.items()}
        queue = provisioned.queue_by_arn(str(props["Queue"]))
        self.runtime = runtime
        self.region = provisioned.region
        self.queue_url = queue.url
        self.queue_arn = queue.arn
        self.batch_size = int(props.get("BatchSize", 10))
        self.batching_window_s = float(props.get("MaximumBatchingWindowInSeconds", 0)) * time_scale
        self.reports_failures = "ReportBatchItemFailures" in (
            props.get("FunctionResponseTypes") or []
        )
        self.accepts = compile_filter_criteria(props.get("FilterCriteria"))
        self.enabled = _event_enabled(provisioned, event)
        self.interval_s = interval_s
        self._sqs = sqs

    def idle_seconds(self) -> float:
        return self.interval_s

    def _receive(self, count: int) -> list[Any]:
        response = self._sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=count,
            WaitTimeSeconds=0,
            MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        return list(response.get("Messages", []))

    def _gather(self) -> list[Any]:
        """Fills a batch as Lambda does: several receives, within the batching window."""
        messages = self._receive(min(_SQS_RECEIVE_LIMIT, self.batch_size))
        if not messages:
            return messages
        deadline = time.monotonic() + self.batching_window_s
        while len(messages) < self.batch_size and not self.stopping:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            more = self._receive(min(_SQS_RECEIVE_LIMIT, self.batch_size - len(messages)))
            messages.extend(more)
            if not more:
                self._sleep(min(remaining, 0.05))
        return messages

    def _lambda_record(self, message: Mapping[str, Any]) -> dict[str, Any]:
        attributes = message.get("Attributes", {})
        record: dict[str, Any] = {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message.get("Body", ""),
            "attributes": {k: attributes[k] for k in _LAMBDA_SQS_ATTRIBUTES if k in attributes},
            "messageAttributes": {
                name: {
                    **({"stringValue": v["StringValue"]} if "StringValue" in v else {}),
                    **(
                        {"binaryValue": base64.b64encode(v["BinaryValue"]).decode()}
                        if "BinaryValue" in v
                        else {}
                    ),
                    "stringListValues": list(v.get("StringListValues", [])),
                    "binaryListValues": [
                        base64.b64encode(b).decode() for b in v.get("BinaryListValues", [])
                    ],
                    "dataType": v["DataType"],
                }
                for name, v in message.get("MessageAttributes", {}).items()
            },
            "md5OfBody": message.get("MD5OfBody", ""),
        }
        if "MD5OfMessageAttributes" in message:
            record["md5OfMessageAttributes"] = message["MD5OfMessageAttributes"]
        record.update(
            {"eventSource": "aws:sqs", "eventSourceARN": self.queue_arn, "awsRegion": self.region}
        )
        return record

    def _filterable(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Lambda matches SQS filters against the body parsed as JSON when it is JSON."""
        try:
            body: Any = json.loads(record["body"])
        except ValueError:
            body = record["body"]
        return {**record, "body": body}

    def poll_once(self) -> bool:
        messages = self._gather()
        if not messages:
            return False
        records = [self._lambda_record(m) for m in messages]
        accepted = [self.accepts(self._filterable(r)) for r in records]
        batch = [r for r, ok in zip(records, accepted, strict=True) if ok]
        # Lambda deletes messages its filters drop: they would otherwise come back forever.
        to_delete = [r for r, ok in zip(records, accepted, strict=True) if not ok]
        if batch:
            failed = self._invoke(batch)
            if failed is not None:
                to_delete.extend(r for r in batch if r["messageId"] not in failed)
        self._delete(to_delete)
        return True

    def _invoke(self, batch: list[dict[str, Any]]) -> set[str] | None:
        """The failed message ids; None when the handler raised (nothing is deleted)."""
        try:
            result = self.runtime.invoke({"Records": batch})
        except Exception:
            log.exception("%s: handler raised on a batch of %d", self.name, len(batch))
            return None
        if not self.reports_failures:
            return set()
        failed = _failed_identifiers(result, [r["messageId"] for r in batch])
        if failed is None:
            return None
        return set(failed)

    def _delete(self, records: list[dict[str, Any]]) -> None:
        for start in range(0, len(records), _SQS_DELETE_LIMIT):
            chunk = records[start : start + _SQS_DELETE_LIMIT]
            response = self._sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": r["receiptHandle"]} for i, r in enumerate(chunk)
                ],
            )
            for failure in response.get("Failed", []):
                log.warning("%s: could not delete a message: %s", self.name, failure)


@dataclass
class Schedule:
    """One `Type: Schedule` event: who to call, how often, with what."""

    key: str
    runtime: FunctionRuntime
    period_s: float
    event: Any
    rule_arn: str
    next_due: float = 0.0


def parse_rate(expression: str) -> float:
    """Seconds between runs for `rate(N unit)`; cron expressions are refused, not ignored."""
    match = _RATE.match(expression.strip())
    if match is None:
        raise TemplateError(f"schedule {expression!r}: the local stack supports rate(N unit) only")
    amount, unit = int(match.group(1)), match.group(2).rstrip("s")
    if amount <= 0:
        raise TemplateError(f"schedule {expression!r}: the rate must be positive")
    return float(amount * _RATE_UNITS[unit])


class SchedulePoller(Poller):
    """Fires every schedule on its period; `tick(name)` fires one now (for tests)."""

    def __init__(self, schedules: Sequence[Schedule], region: str) -> None:
        super().__init__("schedules")
        self.schedules = {s.key: s for s in schedules}
        self.region = region

    def prepare(self) -> None:
        # EventBridge's first run of a rate rule comes one period after the rule is created.
        now = time.monotonic()
        for schedule in self.schedules.values():
            schedule.next_due = now + schedule.period_s

    def idle_seconds(self) -> float:
        if not self.schedules:
            return 3600.0
        return min(s.next_due for s in self.schedules.values()) - time.monotonic()

    def poll_once(self) -> bool:
        now = time.monotonic()
        for schedule in self.schedules.values():
            if self.stopping:
                break
            if schedule.next_due <= now:
                schedule.next_due = now + schedule.period_s
                try:
                    self._fire(schedule)
                except Exception:
                    log.exception("%s: handler raised", schedule.key)
        return False

    def _lookup(self, name: str) -> Schedule:
        if name in self.schedules:
            return self.schedules[name]
        found = [s for key, s in self.schedules.items() if key.split(".", 1)[1] == name]
        if len(found) != 1:
            raise KeyError(f"no single schedule named {name!r}; have {sorted(self.schedules)}")
        return found[0]

    def tick(self, name: str) -> Any:
        """Calls the schedule's handler now, in this thread; returns what it returned."""
        return self._fire(self._lookup(name))

    def _fire(self, schedule: Schedule) -> Any:
        log.debug("%s: firing", schedule.key)
        return schedule.runtime.invoke(self._event(schedule))

    def _event(self, schedule: Schedule) -> Any:
        if schedule.event is not None:
            return json.loads(json.dumps(schedule.event))
        return {
            "version": "0",
            "id": str(uuid.uuid4()),
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": schedule.rule_arn.split(":")[4],
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": self.region,
            "resources": [schedule.rule_arn],
            "detail": {},
        }


@dataclass
class PollerOptions:
    """Knobs for `build_pollers`.

    `delivery_interval_s` is the SQS pollers' idle interval (`deliveryIntervalMs`); 0 means
    they are not created at all. `time_scale` multiplies what the template's times imply
    (batching windows, retry backoff, schedule periods) so tests can run minutes in seconds.
    `stream_starting_position` overrides the template's `StartingPosition` (after a restore).
    """

    delivery_interval_s: float = 2.0
    time_scale: float = 1.0
    stream_poll_interval_s: float = 0.25
    stream_retry_base_s: float = 0.5
    stream_starting_position: str | None = None


class Pollers:
    """All pollers of a stack, started and stopped together."""

    def __init__(
        self,
        streams: Sequence[StreamPoller],
        queues: Sequence[SqsPoller],
        schedules: SchedulePoller | None,
    ) -> None:
        self.streams = list(streams)
        self.queues = list(queues)
        self.schedules = schedules

    def __iter__(self) -> Iterator[Poller]:
        yield from self.streams
        yield from self.queues
        if self.schedules is not None:
            yield self.schedules

    def prepare(self) -> None:
        for poller in self:
            poller.prepare()

    def start(self) -> None:
        for poller in self:
            poller.start()

    def stop(self, timeout: float = 15.0) -> None:
        for poller in self:
            poller.request_stop()
        for poller in self:
            poller.stop(timeout)

    def tick(self, name: str) -> Any:
        if self.schedules is None:
            raise KeyError("no schedules")
        return self.schedules.tick(name)


def _schedule(
    provisioned: Provisioned,
    logical_id: str,
    runtime: FunctionRuntime,
    event: EventSource,
    options: PollerOptions,
) -> Schedule:
    """A Schedule event source as EventBridge would fire it: its rate, input and rule ARN."""
    props = {k: provisioned.intrinsics.resolve(v) for k, v in event.properties.items()}
    raw_input = props.get("Input")
    return Schedule(
        key=f"{logical_id}.{event.name}",
        runtime=runtime,
        period_s=parse_rate(str(props["Schedule"])) * options.time_scale,
        event=json.loads(raw_input) if isinstance(raw_input, str) else raw_input,
        rule_arn=(
            f"arn:aws:events:{provisioned.region}:"
            f"{runtime.arn.split(':')[4]}:rule/{runtime.function_name}{event.name}"
        ),
    )


def build_pollers(
    provisioned: Provisioned,
    emulator: Emulator,
    runtimes: Mapping[str, FunctionRuntime],
    options: PollerOptions | None = None,
) -> Pollers:
    """A poller per enabled event source of every function in `runtimes`."""
    options = options or PollerOptions()
    streams: list[StreamPoller] = []
    queues: list[SqsPoller] = []
    schedules: list[Schedule] = []
    for logical_id, runtime in runtimes.items():
        for event in runtime.spec.events.values():
            if not _event_enabled(provisioned, event):
                log.info("%s.%s is disabled in the template", logical_id, event.name)
                continue
            if event.type == "DynamoDB":
                streams.append(
                    StreamPoller(
                        runtime=runtime,
                        event=event,
                        provisioned=provisioned,
                        streams=emulator.dynamodbstreams(),
                        sqs=emulator.sqs(),
                        starting_position=options.stream_starting_position,
                        poll_interval_s=options.stream_poll_interval_s,
                        time_scale=options.time_scale,
                        retry_base_s=options.stream_retry_base_s,
                    )
                )
            elif event.type == "SQS":
                if options.delivery_interval_s <= 0:
                    log.info(
                        "%s.%s not polled: deliveryIntervalMs is 0 (queue, never send)",
                        logical_id,
                        event.name,
                    )
                    continue
                queues.append(
                    SqsPoller(
                        runtime=runtime,
                        event=event,
                        provisioned=provisioned,
                        sqs=emulator.sqs(),
                        interval_s=options.delivery_interval_s,
                        time_scale=options.time_scale,
                    )
                )
            elif event.type == "Schedule":
                schedules.append(_schedule(provisioned, logical_id, runtime, event, options))
    return Pollers(
        streams, queues, SchedulePoller(schedules, provisioned.region) if schedules else None
    )
