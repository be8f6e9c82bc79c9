"""The README's quickstart, run as written against a fresh stack started like `make run`.

The commands and the answers are read from README.md itself (`tests.support.readme`), so the
README cannot drift from the product. Three things are substituted, and only these: the
API's address (`http://127.0.0.1:8000`) and the receiver's port (9000) become free ports of
this test, since fixed ports may be taken on a shared machine; and the delivery line's attempt
number may be 2 when the receiver was not yet listening at the first attempt (the README says
so). The stack is `python -m infra.local_stack`, what `make run` starts, with the settings the
README's `make run` line sets; the commands run in a folder whose `.local` is that stack's and
whose `.venv` is this checkout's, as they would from the repository.

The same stack then shows the rest of a newcomer's first minutes: the start's progress lines
and banner, one log line per request, and the endpoint editor on a stack with one workspace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from harness.ports import free_port
from infra import REPO_ROOT
from tests.support import readme
from tests.support.admin_pages import sign_in_page
from tests.support.waiting import answers_healthz, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

README_BASE = "http://127.0.0.1:8000"
README_RECEIVER_PORT = "9000"


@dataclass
class RunningStack:
    base_url: str
    local_dir: Path
    log: Path
    process: subprocess.Popen[bytes]

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def _healthy(stack: RunningStack) -> bool:
    if stack.process.poll() is not None:
        raise AssertionError(f"the stack exited early:\n{stack.output()}")
    return answers_healthz(stack.base_url)


@pytest.fixture(scope="module")
def quickstart() -> readme.Quickstart:
    parsed = readme.parse()
    assert len(parsed.steps) >= 9, "the README's quickstart lost its marked blocks"
    return parsed


@pytest.fixture(scope="module")
def fresh_stack(
    tmp_path_factory: pytest.TempPathFactory, quickstart: readme.Quickstart
) -> Iterator[RunningStack]:
    root = tmp_path_factory.mktemp("quickstart")
    port = free_port()
    log = root / "stack.log"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("WEBHOOKS_", "API_REF"))},
        **quickstart.server_env,
        "PORT": str(port),
        "MOTO_PORT": str(free_port()),
        "LOCAL_DIR": str(root / ".local"),
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "infra.local_stack"],
            cwd=REPO_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    stack = RunningStack(f"http://127.0.0.1:{port}", root / ".local", log, process)
    try:
        wait_until(lambda: _healthy(stack), timeout=90, message="GET /healthz")
        wait_until((stack.local_dir / "stack.json").exists, timeout=30, message="stack.json")
        yield stack
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def base_url(fresh_stack: RunningStack) -> str:
    """The browser tests of this module open the fresh stack, not the session's."""
    return fresh_stack.base_url


@pytest.fixture(scope="module")
def steps(fresh_stack: RunningStack, quickstart: readme.Quickstart) -> list[readme.Step]:
    replacements = {README_BASE: fresh_stack.base_url, README_RECEIVER_PORT: str(free_port())}
    return readme.substituted(quickstart.steps, replacements)


@pytest.fixture(scope="module")
def ran(fresh_stack: RunningStack, steps: list[readme.Step]) -> list[tuple[str, str]]:
    """Runs every quickstart step in one bash, as a person would; (stdout, stderr) per step."""
    work = fresh_stack.local_dir.parent
    (work / ".venv").symlink_to(REPO_ROOT / ".venv")
    outputs = work / "outputs"
    outputs.mkdir()
    script = work / "quickstart.sh"
    script.write_text(readme.script(steps, outputs), encoding="utf-8")
    result = subprocess.run(
        ["bash", str(script)], cwd=work, capture_output=True, text=True, timeout=180
    )
    results = [
        (
            (outputs / f"{n}.out").read_text() if (outputs / f"{n}.out").exists() else "",
            (outputs / f"{n}.err").read_text() if (outputs / f"{n}.err").exists() else "",
        )
        for n in range(len(steps))
    ]
    assert result.returncode == 0, (result.stdout, result.stderr, results)
    return results


def test_every_quickstart_answer_is_the_one_the_readme_shows(
    steps: list[readme.Step], ran: list[tuple[str, str]]
) -> None:
    checked = 0
    for number, (step, (output, errors)) in enumerate(zip(steps, ran, strict=True)):
        if step.answer is None:
            continue
        if step.answer_kind == "text":
            output = output.replace("(attempt 2)", "(attempt 1)", 1)
        problems = readme.mismatches(step, output)
        assert not problems, (number, step.commands, output, errors, problems)
        checked += 1
    assert checked == len(steps), "every quickstart step shows its answer"


def test_the_quickstart_server_line_allows_a_local_receiver(
    quickstart: readme.Quickstart,
) -> None:
    assert quickstart.server_env == {
        "WEBHOOKS_ALLOW_INSECURE_URLS": "true",
        "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "true",
    }


def test_the_start_prints_its_steps_the_links_and_one_line_per_request(
    fresh_stack: RunningStack, ran: list[tuple[str, str]]
) -> None:
    output = fresh_stack.output()
    for step in (
        "==> starting the AWS emulator",
        "==> provisioning the tables and queues",
        "==> bootstrapping: workspace default",
        "==> starting the API",
    ):
        assert step in output, output
    base = fresh_stack.base_url
    assert f"REST docs  {base}/api/v1/docs" in output
    assert f"Playground {base}/api/v1/graphql/playground" in output
    requests = [line for line in output.splitlines() if '"message":"request"' in line]
    assert any('"path":"/api/v1/graphql"' in line for line in requests), output
    assert "content-service: request" not in output, "a request was logged twice"
    assert "Traceback" not in output


def test_the_editor_preselects_the_only_workspace_and_explains_the_local_policy(
    page: Page, fresh_stack: RunningStack, ran: list[tuple[str, str]]
) -> None:
    admin = json.loads((fresh_stack.local_dir / "bootstrap.json").read_text())["admin"]
    sign_in_page(page, admin["email"], admin["password"], "/webhooks/new")
    expect(page.get_by_role("heading", name="New endpoint")).to_be_visible()
    expect(page.get_by_role("checkbox", name="Default (default)")).to_be_checked()
    help_text = page.locator("#url-help")
    expect(help_text).to_contain_text("WEBHOOKS_ALLOW_INSECURE_URLS is on")
    expect(help_text).to_contain_text("WEBHOOKS_ALLOW_PRIVATE_NETWORKS is on")
    expect(help_text).not_to_contain_text("Must use https")
