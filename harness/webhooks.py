"""Webhook pieces the tests and the soak run share: an injected clock, and an endpoint written
straight into its table.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from content_service import runtime
from content_service.clock import iso_utc
from content_service.webhooks import services, wiring
from content_service.webhooks.endpoints import Endpoint, mint_secret


class FakeClock:
    """Seconds since the epoch, starting at the real time, moving only when told."""

    def __init__(self, start: float | None = None) -> None:
        self.t = time.time() if start is None else start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def store_endpoint(url: str, **fields: Any) -> Endpoint:
    """Writes an endpoint straight into the table, bypassing the API's URL check.

    For a URL that "turned hostile after creation" (a DNS change, a record from before a policy
    change) and for receivers the current options would refuse on create. Each gets a workspace
    of its own unless told otherwise, so no other test's events reach it. Its `createdAt` is
    the injected clock's, as the API's would be: it takes only events that occur after it.
    """
    now = iso_utc(wiring.dependencies().clock.now())
    endpoint = Endpoint(
        id=str(uuid.uuid4()),
        url=url,
        secret=mint_secret(),
        workspaces=tuple(fields.pop("workspaces", (str(uuid.uuid4()),))),
        created_at=now,
        updated_at=now,
        **fields,
    )
    services.endpoint_store(runtime.settings()).insert(endpoint)
    return endpoint
