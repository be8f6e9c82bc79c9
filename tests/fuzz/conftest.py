"""Fixtures of the fuzzers: per module, one workspace seeded with related content types and
entries (`tests/support/fuzzing.py`) and a full token for it, so generated requests reach the
service code rather than stopping at 401 or 404."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.content import shared_workspace
from tests.support.fuzzing import FuzzWorld, seed


@pytest.fixture(scope="module")
def fuzz_world(base_url: str) -> Iterator[FuzzWorld]:
    with shared_workspace(base_url) as access:
        yield seed(access.full, access.full_token)


@pytest.fixture(autouse=True)
def _schemathesis_node_id(request: pytest.FixtureRequest) -> None:
    """schemathesis 4.32's lazy schemas (`schemathesis.pytest.from_fixture`) read
    `node._nodeid`, which pytest 9.2 no longer has (the id lives in `node._id`); give them the
    plain string they expect."""
    node: Any = request.node
    if not hasattr(node, "_nodeid"):
        node._nodeid = node.nodeid
