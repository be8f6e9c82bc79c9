"""Per-token request rates, counted in DynamoDB so every API instance shares them.

A fixed window of one second per token: the item `<token id>#<unix second>` of the rate-limits
table counts the requests that second admitted. Admitting a request is one conditional
UpdateItem (`ADD n 1` while `n` is below the limit), so no two instances can together admit
more than the limit in one second, and nothing is kept in process memory. A request over the
limit fails the condition and is refused; it writes nothing (DynamoDB still charges the attempt
one write unit). Counters expire `COUNTER_TTL_SECONDS` after their second (DynamoDB's TTL).

The window is the wall clock's second, so a token may be admitted up to twice its limit across a
second's boundary (the limit at the end of one second, again at the start of the next), never
more than its limit within one second. One counter item takes about 1,000 writes a second,
hence `MAX_RATE_LIMIT`; a flood beyond that is throttled by DynamoDB, which the limiter answers
as a refusal too (and the edge's WAF rule stops floods before they get here).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from botocore.exceptions import ClientError

from content_service.identity.principal import TokenCaller
from content_service.settings import Settings
from content_service.storage import dynamo

COUNTER_TTL_SECONDS = 60
_THROTTLED = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)


@dataclass(frozen=True)
class RateDecision:
    """Whether one request is admitted, and what its answer says about the token's limit."""

    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int
    """Seconds until the window ends and the count starts again."""

    def headers(self) -> dict[str, str]:
        """`RateLimit-Limit`, `-Remaining`, `-Reset` (IETF httpapi draft), and `Retry-After`
        on a refusal."""
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.reset_seconds)
        return headers


def limit_for(caller: TokenCaller, settings: Settings) -> int | None:
    """The token's requests per second: its own `rateLimit`, else the service's default;
    None when it has no limit (0 either way)."""
    limit = caller.rate_limit if caller.rate_limit is not None else settings.delivery.rate_limit
    return limit or None


class RateLimiter:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        """Unix seconds; a test pins it to keep a burst inside one window."""

    def admit(self, token_id: str, limit: int) -> RateDecision:
        """Counts one request of the token against `limit` per second."""
        now = self.clock()
        window = math.floor(now)
        reset = max(1, math.ceil(window + 1 - now))
        try:
            answer = dynamo.client().update_item(
                TableName=dynamo.tables().rate_limits,
                Key={"pk": {"S": f"{token_id}#{window}"}},
                UpdateExpression="ADD #n :one SET #expires = :expires",
                ConditionExpression="attribute_not_exists(#n) OR #n < :limit",
                ExpressionAttributeNames={"#n": "n", "#expires": "expiresAt"},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(limit)},
                    ":expires": {"N": str(window + COUNTER_TTL_SECONDS)},
                },
                ReturnValues="UPDATED_NEW",
            )
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if dynamo.is_condition_failure(error) or code in _THROTTLED:
                return RateDecision(False, limit, 0, reset)
            raise
        count = int(answer["Attributes"]["n"]["N"])
        return RateDecision(True, limit, max(0, limit - count), reset)


limiter = RateLimiter()
"""The process's limiter (its state is in DynamoDB; only the clock is here)."""
