"""Fixtures several integration test files share (each file used to define its own alike)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import httpx
import pytest

from infra.emulator import Emulator
from infra.local_stack import LocalStack
from tests.support.clients import WorkspaceAccess
from tests.support.content import create, define, publish

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    """A bare emulator of the module's own, beside the session's stack: nothing provisioned."""
    with Emulator(port=0) as running:
        yield running


@pytest.fixture(scope="module")
def s3(stack: LocalStack) -> S3Client:
    """The session stack's S3, straight to the emulator."""
    return stack.emulator.s3()


@pytest.fixture(scope="module")
def bucket(stack: LocalStack) -> str:
    """The session stack's assets bucket."""
    assert stack.provisioned is not None
    return stack.provisioned.buckets["AssetsBucket"].name


@pytest.fixture
def ws(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    """A fresh workspace of the test's own (with no content model)."""
    return new_workspace()


@pytest.fixture
def post_site(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    """A fresh workspace with a `post` type (a title) and one published post, "Hi"."""
    workspace = new_workspace()
    define(workspace.full, "post", [{"name": "title", "type": "string"}])
    publish(workspace.full, "post", create(workspace.full, "post", {"title": "Hi"})["id"])
    return workspace


@pytest.fixture
def anonymous(base_url: str) -> Iterator[httpx.Client]:
    """A client with no session, no token and no Origin."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        yield client
