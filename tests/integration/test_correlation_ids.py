"""Every log line of a request carries that request's correlation id, even when requests overlap.

uvicorn serves requests concurrently in one process. The access log line of each of 24
overlapping requests, each with its own `X-Correlation-Id`, must carry exactly that id: not
another request's (a shared logger key overwritten by the next request), and not none (a shared
key removed by the first request to end).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from content_service.observability import logger
from tests.support.clients import ClientFactory, WorkspaceAccess

REQUESTS = 24


class _Collect(logging.Handler):
    """Keeps each record as the service's JSON log line."""

    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.setFormatter(logger.registered_formatter)
        self.lines: list[dict[str, object]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


@pytest.fixture
def log_lines() -> Iterator[list[dict[str, object]]]:
    handler = _Collect()
    level = logger.log_level
    logger.setLevel(logging.INFO)
    # The standard logger the service's Powertools Logger writes through.
    underlying = logging.getLogger(logger.name)
    underlying.addHandler(handler)
    try:
        yield handler.lines
    finally:
        underlying.removeHandler(handler)
        logger.setLevel(level)


def test_overlapping_requests_keep_their_own_correlation_ids(
    new_workspace: Callable[..., WorkspaceAccess],
    make_client: ClientFactory,
    log_lines: list[dict[str, object]],
) -> None:
    workspace = new_workspace()
    ids = [f"overlap-{uuid.uuid4().hex[:12]}" for _ in range(REQUESTS)]
    clients = [make_client(workspace.full_token) for _ in ids]

    def call(index: int) -> int:
        response = clients[index].get("/api/v1/me", headers={"X-Correlation-Id": ids[index]})
        assert response.headers["x-correlation-id"] == ids[index]
        return response.status_code

    with ThreadPoolExecutor(REQUESTS) as pool:
        assert set(pool.map(call, range(REQUESTS))) == {200}

    access = [line for line in log_lines if line.get("path") == "/api/v1/me"]
    assert len(access) == REQUESTS
    assert sorted(str(line.get("correlation_id")) for line in access) == sorted(ids)


def test_a_request_without_an_id_never_takes_a_handler_s(make_client: ClientFactory) -> None:
    """The fan-out and delivery handlers set the logger's correlation id (process-wide) to the
    event or delivery they handle; where they share the API's process, a request without its
    own id still gets a new one, not theirs."""
    logger.set_correlation_id("delivery-of-another-handler")
    try:
        generated = make_client().get("/healthz").headers["x-correlation-id"]
    finally:
        logger.set_correlation_id(None)
    assert str(uuid.UUID(generated)) == generated
