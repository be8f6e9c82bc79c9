"""Attempt statistics per endpoint and hour: what the endpoint page's health chart draws.

Reading a week of delivery rows to draw a chart would cost every row's full size at each page
view, so the delivery worker keeps counters instead: one item per endpoint and UTC hour,
`stats#<endpoint id>#<YYYY-MM-DDTHH>` in the deliveries table (no index key, so in no index),
with the hour's attempts by verdict (`succeeded`, `failed`, `dead`) and a latency histogram:
`l<k>` counts the attempts whose duration fell in bin k, the bins growing by a fifth
(`LATENCY_RATIO`) from 1 ms, so a percentile read from them is within 10 % of the true value.
A worker adds its batch's attempts with one UpdateItem (ADD) per endpoint and hour when the
batch ends; a worker that dies first loses its batch's figures from the chart (never from the
log, which is the record). The items expire (TTL) after eight days; a week's chart reads 169
keys in two BatchGetItem requests.
"""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from content_service.storage.dynamo import batch_get
from content_service.storage.json_values import plain

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

VERDICTS = ("succeeded", "failed", "dead")
LATENCY_RATIO = 1.2
LATENCY_BINS = 64  # the last bin takes everything from about 79 s up
KEEP_SECONDS = 8 * 24 * 3600
HOUR = 3600

log = logging.getLogger(__name__)


def latency_bin(duration_ms: int) -> int:
    """Bin 0 holds durations under 1 ms; bin k, [1.2^(k-1), 1.2^k) ms."""
    if duration_ms < 1:
        return 0
    return min(LATENCY_BINS - 1, 1 + math.floor(math.log(duration_ms, LATENCY_RATIO)))


def bin_value(k: int) -> float:
    """The figure a bin stands for: the geometric middle of its bounds (0.5 for bin 0)."""
    if k == 0:
        return 0.5
    return float(LATENCY_RATIO ** (k - 0.5))


def hour_of(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H")


def stats_key(endpoint_id: str, hour: str) -> str:
    return f"stats#{endpoint_id}#{hour}"


@dataclass
class Tally:
    """Attempts by verdict and their latency histogram, for one hour or a bucket of hours."""

    verdicts: Counter[str] = field(default_factory=Counter)
    latency: Counter[int] = field(default_factory=Counter)

    @property
    def attempts(self) -> int:
        return sum(self.verdicts[v] for v in VERDICTS)

    def add(self, other: Tally) -> None:
        self.verdicts.update(other.verdicts)
        self.latency.update(other.latency)

    def percentile(self, fraction: float) -> float | None:
        """The latency (ms) under which `fraction` of the timed attempts fell; None if none."""
        total = sum(self.latency.values())
        if not total:
            return None
        rank = max(1, math.ceil(fraction * total))
        seen = 0
        for k in sorted(self.latency):
            seen += self.latency[k]
            if seen >= rank:
                return bin_value(k)
        return bin_value(max(self.latency))  # pragma: no cover - the loop always returns

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Tally:
        tally = cls()
        for verdict in VERDICTS:
            tally.verdicts[verdict] = int(item.get(verdict) or 0)
        for name, count in item.items():
            if name.startswith("l") and name[1:].isdigit():
                tally.latency[int(name[1:])] = int(count)
        return tally


class AttemptStats:
    """The attempts of one batch, kept until `flush` writes them (one request per endpoint
    and hour)."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        self._pending: dict[tuple[str, str], Tally] = defaultdict(Tally)

    def record(self, endpoint_id: str, at: float, verdict: str, duration_ms: int | None) -> None:
        tally = self._pending[(endpoint_id, hour_of(at))]
        tally.verdicts[verdict] += 1
        if duration_ms is not None:
            tally.latency[latency_bin(duration_ms)] += 1

    def flush(self, now: float) -> int:
        """Adds the kept attempts to their hours' items; returns the requests made."""
        pending, self._pending = self._pending, defaultdict(Tally)
        written = 0
        for (endpoint_id, hour), tally in pending.items():
            counts = {v: n for v, n in tally.verdicts.items() if n}
            counts.update({f"l{k}": n for k, n in tally.latency.items() if n})
            names = {f"#c{i}": name for i, name in enumerate(counts)}
            values = {f":c{i}": {"N": str(n)} for i, n in enumerate(counts.values())}
            values[":expires"] = {"N": str(int(now) + KEEP_SECONDS)}
            try:
                self._client.update_item(
                    TableName=self._table,
                    Key={"id": {"S": stats_key(endpoint_id, hour)}},
                    UpdateExpression="ADD "
                    + ", ".join(f"#c{i} :c{i}" for i in range(len(counts)))
                    + " SET expiresAt = :expires",
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values,
                )
            except (BotoCoreError, ClientError):
                # A statistic, not a record: the batch's deliveries are done and logged.
                log.warning("could not add the attempt statistics of %s", endpoint_id)
            written += 1
        return written

    def hourly(self, endpoint_id: str, hours: Iterable[float]) -> dict[float, Tally]:
        """The tallies of the given hours (epoch seconds at each hour's start) that have any."""
        keyed = {stats_key(endpoint_id, hour_of(h)): h for h in hours}
        keys = [{"id": {"S": key}} for key in keyed]
        found = batch_get(self._table, keys, consistent=False, using=self._client)
        return {keyed[str(item["id"])]: Tally.from_item(plain(item)) for item in found}

    def buckets(self, endpoint_id: str, now: float, hours: int, per_bucket: int) -> list[Bucket]:
        """`hours` whole hours up to and including the current one, in buckets of
        `per_bucket` hours, oldest first."""
        current = math.floor(now / HOUR) * HOUR
        first = current - (hours - 1) * HOUR
        tallies = self.hourly(endpoint_id, (first + i * HOUR for i in range(hours)))
        result = []
        for index in range(0, hours, per_bucket):
            start = first + index * HOUR
            tally = Tally()
            for offset in range(per_bucket):
                found = tallies.get(start + offset * HOUR)
                if found is not None:
                    tally.add(found)
            result.append(Bucket(start, tally))
        return result


@dataclass(frozen=True)
class Bucket:
    start: float
    tally: Tally
