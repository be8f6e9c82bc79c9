"""`graphql.worker`: a request's pipeline runs on a worker thread's own loop, with the caller's
context variables, and its storage calls go to the shared pool."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from content_service.graphql.worker import MAX_CONCURRENT_REQUESTS, run_off_loop

marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


def test_work_runs_on_a_worker_loop_with_the_callers_context() -> None:
    async def work() -> tuple[str, str, asyncio.AbstractEventLoop, str]:
        in_storage_pool = await asyncio.to_thread(lambda: threading.current_thread().name)
        return (
            marker.get(),
            threading.current_thread().name,
            asyncio.get_running_loop(),
            (in_storage_pool),
        )

    async def request() -> tuple[tuple[str, str, asyncio.AbstractEventLoop, str], object]:
        marker.set("this request")
        return await run_off_loop(work), asyncio.get_running_loop()

    (seen, thread, loop, storage_thread), server_loop = asyncio.run(request())
    assert seen == "this request"
    assert thread.startswith("graphql")
    assert loop is not server_loop
    assert storage_thread.startswith("graphql-storage")


def test_a_worker_keeps_its_loop_and_errors_reach_the_caller() -> None:
    async def current() -> tuple[int, asyncio.AbstractEventLoop]:
        return threading.get_ident(), asyncio.get_running_loop()

    async def failing() -> None:
        raise ValueError("inside")

    async def requests() -> set[tuple[int, asyncio.AbstractEventLoop]]:
        seen = {await run_off_loop(current) for _ in range(20)}
        with pytest.raises(ValueError, match="inside"):
            await run_off_loop(failing)
        return seen

    seen = asyncio.run(requests())
    # Each worker thread keeps one loop for every request it runs (how many threads the pool
    # starts depends on how fast each one goes idle again, so only the bound is asserted).
    threads = {thread for thread, _ in seen}
    assert len(seen) == len(threads)
    assert len(threads) <= MAX_CONCURRENT_REQUESTS
