"""Fixtures shared by every test tier.

One local stack per test session: moto in server mode (over HTTP) with the journal, in a process
of its own as `make run` runs it, tables and queues created from template.yaml, the real FastAPI
app served by uvicorn on a thread of the test process (tests observe and reconfigure it there:
docs/decisions.md, D83), a recording proxy in front of moto (`stack.recorder.capture()` lists
the storage requests made meanwhile), and the template's pollers built but not started, so a
test moves events through the fan-out and delivery handlers with `stack.drain()` instead of
waiting. Tests isolate themselves by workspace.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings as hypothesis_settings

from content_service import runtime
from content_service.identity.tokens import TokenSpec, create_token
from content_service.identity.workspaces import create_workspace
from infra import request_check
from infra.local_stack import LocalStack, LocalStackOptions, ensure_session_key
from tests.support.clients import ClientFactory, WorkspaceAccess, sign_in
from tests.support.content import Storage
from tests.support.settings import FAST_PASSWORDS, webhook_options

# The webhook fixtures (`receiver`, `hooks`, `clock`...): one list for every file that uses them.
pytest_plugins = ["tests.support.webhook_fixtures"]

# A property's examples are checked for what they return, never for how long they take:
# hypothesis' default 200 ms deadline failed examples on a machine under load.
hypothesis_settings.register_profile("project", deadline=None)
hypothesis_settings.load_profile("project")

# Every client the app builds in the test process holds its requests to AWS's rules while the
# check is on (the local stack switches it on; `aws_would_accept_every_request` reads it).
request_check.hook_into_app_clients()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with a test marked `slow` run first, each file's tests in their order. `make test`
    hands files to its two workers in collection order (`--no-loadscope-reorder`), so the long
    poles start at once and short files fill the end, where pytest-xdist's default order (most
    tests first) started a one-test file of minutes last while the other worker idled."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


@pytest.fixture(autouse=True)
def aws_would_accept_every_request() -> Iterator[None]:
    """Fails a test during which the app sent a request AWS would refuse (the local stack turns
    the request check on), even when the app caught the refusal and carried on."""
    request_check.take_refusals()
    yield
    refused = request_check.take_refusals()
    if refused:
        pytest.fail("AWS would refuse requests made in this test:\n" + "\n".join(map(str, refused)))


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    local = tmp_path_factory.mktemp("local-stack")
    options = LocalStackOptions(
        local_dir=local,
        port=0,
        moto_port=0,
        start_pollers=False,
        time_scale=0.01,
        record_storage=True,
        user_env={
            "SESSION_KEY_FILE": str(ensure_session_key(local / "session.key")),
            "API_REFERENCE_ENABLED": "true",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_NAMESPACE": "ContentServiceTests",
            # No default request rate: tests send bursts from one token. The rate tests give
            # their tokens a rateLimit, or switch the default on for themselves.
            "CONTENT_RATE_LIMIT": "0",
            **FAST_PASSWORDS,
        },
    )
    # The emulator's process takes the environment it starts with. The soak in small
    # (tests/integration/test_soak_quick.py) purges the delivery queue after every wave, and moto
    # refuses a second PurgeQueue on a queue within 60 s, as SQS does.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR", "false")
        running = LocalStack(options)
        running.start()
    # The CLI run in-process, and the stacks tests start, read it from the environment.
    with pytest.MonkeyPatch.context() as patch:
        for name, value in FAST_PASSWORDS.items():
            patch.setenv(name, value)
        try:
            yield running
        finally:
            running.stop()


@pytest.fixture
def storage(stack: LocalStack) -> Storage:
    """Direct reads of the stack's tables, not through the recorder."""
    return Storage(stack)


@pytest.fixture(scope="session")
def base_url(stack: LocalStack) -> str:
    assert stack.base_url is not None
    return stack.base_url


@pytest.fixture(scope="session")
def credentials(stack: LocalStack) -> dict[str, Any]:
    assert stack.credentials is not None
    return stack.credentials


@pytest.fixture
def make_client(base_url: str) -> Iterator[ClientFactory]:
    """Builds HTTP clients for the running API; all are closed after the test."""
    clients: list[httpx.Client] = []

    def build(token: str | None = None, **headers: str) -> httpx.Client:
        all_headers = {"Origin": base_url, **headers}
        if token is not None:
            all_headers["Authorization"] = f"Bearer {token}"
        client = httpx.Client(base_url=base_url, headers=all_headers, timeout=30)
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()


@pytest.fixture
def admin(make_client: ClientFactory, credentials: dict[str, Any]) -> httpx.Client:
    """A client signed in as the bootstrap administrator (session cookie, same Origin)."""
    return sign_in(make_client(), credentials["admin"]["email"], credentials["admin"]["password"])


@pytest.fixture
def new_workspace(stack: LocalStack, make_client: ClientFactory) -> Callable[..., WorkspaceAccess]:
    """Creates an isolated workspace per call, so tests sharing the stack never see each other."""

    def build(read_audiences: tuple[str, ...] = ()) -> WorkspaceAccess:
        settings = runtime.settings()
        slug = f"ws-{uuid.uuid4().hex[:12]}"
        workspace = create_workspace(settings, slug, slug)
        full, _ = create_token(TokenSpec(name="full", workspace_id=workspace.id, access="full"))
        read, _ = create_token(
            TokenSpec(
                name="read", workspace_id=workspace.id, access="read", audiences=read_audiences
            )
        )
        return WorkspaceAccess(
            id=workspace.id,
            slug=slug,
            full_token=full,
            read_token=read,
            full=make_client(full),
            read=make_client(read),
        )

    return build


@pytest.fixture
def local_receivers_allowed() -> Iterator[None]:
    """Receivers on 127.0.0.1 over http: private networks and insecure URLs, this test only."""
    with webhook_options(allow_private_networks=True, allow_insecure_urls=True):
        yield


@pytest.fixture
def output_dir(request: pytest.FixtureRequest) -> Path:
    """`test-output/<test name>/` for screenshots and other artefacts a person may inspect."""
    name: str = request.node.name
    root = Path(request.config.rootpath) / "test-output" / name.replace("/", "_")
    root.mkdir(parents=True, exist_ok=True)
    return root
