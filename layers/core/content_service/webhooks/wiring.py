"""The seams the webhook workers take time, randomness and DNS from.

Handlers ask `dependencies()` on every invocation, so a test can swap the clock (to step through
the retry ladder without sleeping; the sleep a rate limit asks for advances it), the random
source (to pin the jitter) or the resolver (to make a name resolve to a private address) for
the code it encloses with `overridden(...)`, the API's send test and URL checks included.
Production never overrides anything.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.clock import Clock, SystemClock
from content_service.settings import WebhookOptions
from content_service.swappable import Swappable

if TYPE_CHECKING:
    # The fan-out and the scheduler send nothing: only the code that sends loads the sender.
    from .endpoints import Resolver, UrlPolicy
    from .sending import Sender

PING_SNIPPET_BYTES = 2048


@dataclass(frozen=True)
class Dependencies:
    clock: Clock
    rng: random.Random
    resolver: Resolver | None = None
    ca_bundle: str | None = None
    # How a worker waits for an endpoint's turn (rate limit, pause): a fake clock advances.
    sleep: Callable[[float], None] = time.sleep


_current = Swappable(Dependencies(clock=SystemClock(), rng=random.SystemRandom()))


def dependencies() -> Dependencies:
    return _current.get()


def overridden(**changes: Any) -> AbstractContextManager[Dependencies]:
    """Replaces some dependencies for the enclosed code (every thread), then restores them."""
    return _current.changed(lambda before: dataclasses.replace(before, **changes))


def url_policy(options: WebhookOptions) -> UrlPolicy:
    from .endpoints import UrlPolicy

    return UrlPolicy(
        allow_insecure_urls=options.allow_insecure_urls,
        allow_private_networks=options.allow_private_networks,
    )


def make_sender(
    options: WebhookOptions, deps: Dependencies, *, snippet_bytes: int | None = None
) -> Sender:
    """A pinned sender for one batch (or one send test) under the current options."""
    from .sending import Sender

    return Sender(
        url_policy(options),
        resolver=deps.resolver,
        timeout_ms=options.timeout_ms,
        snippet_bytes=options.response_snippet_bytes if snippet_bytes is None else snippet_bytes,
        ca_bundle=deps.ca_bundle,
        wall_clock=deps.clock.now,
    )
