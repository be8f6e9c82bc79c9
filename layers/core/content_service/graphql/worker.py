"""GraphQL requests run on worker threads, each thread with an event loop of its own.

graphql-core parses, validates and completes results synchronously; on the server's event loop
a costly document would hold every other request (an amplified introspection held health checks
for 1.2 to 2.4 s). So the route hands a request's whole pipeline (authentication, schema,
parsing, limits, validation, execution) to `run_off_loop`: the server's loop only reads the body
and writes the answer, as it does for the REST routes, which FastAPI runs in its thread pool.

Each worker thread keeps one event loop for its life, so a request costs a thread hop, not a new
loop. Resolvers still await the storage calls they make with `asyncio.to_thread`; those go to
one pool shared by every worker loop (`set_default_executor`), as they went to the server
loop's pool before. The caller's context variables (the correlation id in every log line)
travel with the request. Under Mangum (one request at a time) nothing changes but the hop.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

MAX_CONCURRENT_REQUESTS = 32
"""Requests executing at once in one process; more wait for a free worker."""

T = TypeVar("T")

_requests = ThreadPoolExecutor(MAX_CONCURRENT_REQUESTS, thread_name_prefix="graphql")
_storage = ThreadPoolExecutor(thread_name_prefix="graphql-storage")
_local = threading.local()


def _worker_loop() -> asyncio.AbstractEventLoop:
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None:
        loop = asyncio.new_event_loop()
        loop.set_default_executor(_storage)
        _local.loop = loop
    return loop


async def run_off_loop(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """`await work()`, run to completion on a worker thread's loop."""
    context = contextvars.copy_context()

    def run() -> T:
        return _worker_loop().run_until_complete(work())

    return await asyncio.get_running_loop().run_in_executor(_requests, context.run, run)
