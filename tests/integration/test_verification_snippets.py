"""The receivers' verification code (webhooks/endpoints/verification_snippets.py) against a
real delivery.

A delivery made by the real pipeline reaches a receiver on 127.0.0.1; the Python snippet runs
under this machine's Python and the Node snippet under its `node`, each exactly as a receiver
would copy it from the endpoint page, with only a few lines of driver appended. Both accept the
delivery and refuse a changed byte, another secret and an old timestamp. The docs carry the
same code as the page, all four languages.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from content_service.webhooks.endpoints import (
    NODE,
    PYTHON,
    SNIPPETS,
    STANDARD_PYTHON,
    STANDARD_SNIPPETS,
)
from content_service.webhooks.sending import signature_header
from harness.receiver import Answer
from infra.local_stack import LocalStack
from tests.support.webhooks import Receiving, write_event

DOCS = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"

PYTHON_DRIVER = """
import base64, json, sys
cases = json.load(sys.stdin)
print(json.dumps([
    verify_signature(base64.b64decode(c["body"]), c["header"], c["secret"]) for c in cases
]))
"""

NODE_DRIVER = """
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const cases = JSON.parse(input);
  console.log(JSON.stringify(cases.map((c) =>
    verifySignature(Buffer.from(c.body, "base64"), c.header, c.secret))));
});
"""


@pytest.fixture
def delivery(stack: LocalStack, receiving: Receiving) -> tuple[bytes, str, str]:
    """(raw body, X-Service-Signature, secret) of a real delivery."""
    workspace, hooks, receiver = receiving
    endpoint = hooks.create(receiver.url("/verify"), workspaces=[workspace.id])
    receiver.always(Answer(204))
    write_event(workspace_id=workspace.id, kind="entry.published", title="Signed ✓")
    stack.drain()
    (request,) = receiver.requests
    return request.body, request.header("X-Service-Signature") or "", endpoint["secret"]


def _cases(body: bytes, header: str, secret: str) -> list[dict[str, str]]:
    stale = signature_header(secret, int(header.split(",")[0][2:]) - 3600, body)
    return [
        {"body": base64.b64encode(body).decode(), "header": header, "secret": secret},
        {"body": base64.b64encode(body + b" ").decode(), "header": header, "secret": secret},
        {"body": base64.b64encode(body).decode(), "header": header, "secret": secret + "x"},
        {"body": base64.b64encode(body).decode(), "header": stale, "secret": secret},
    ]


EXPECTED = [True, False, False, False]


def _verdicts(command: list[str], delivery: tuple[bytes, str, str]) -> Any:
    """What a snippet's driver prints for the cases of `delivery`, one verdict each."""
    result = subprocess.run(
        command,
        input=json.dumps(_cases(*delivery)),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def test_the_python_snippet_verifies_a_real_delivery(delivery: tuple[bytes, str, str]) -> None:
    assert _verdicts([sys.executable, "-c", PYTHON + PYTHON_DRIVER], delivery) == EXPECTED


def test_the_node_snippet_verifies_a_real_delivery(delivery: tuple[bytes, str, str]) -> None:
    node = shutil.which("node")
    assert node is not None, "node is part of this machine (the Node snippet is tested with it)"
    assert _verdicts([node, "-e", NODE + NODE_DRIVER], delivery) == EXPECTED


def test_the_standard_python_snippet_verifies_a_real_delivery(
    stack: LocalStack, receiving: Receiving
) -> None:
    workspace, hooks, receiver = receiving
    endpoint = hooks.create(
        receiver.url("/standard"), workspaces=[workspace.id], signatureScheme="standard"
    )
    write_event(workspace_id=workspace.id, kind="entry.published", title="Standard ✓")
    stack.drain()
    (request,) = receiver.requests
    headers = dict(request.headers)
    namespace: dict[str, Any] = {"SECRET": endpoint["secret"]}
    exec(STANDARD_PYTHON, namespace)  # noqa: S102 (the snippet as a receiver copies it)
    handle = namespace["handle"]
    assert handle(request.body, headers) == 204
    assert handle(request.body + b" ", headers) == 400
    namespace["webhook"] = namespace["Webhook"](endpoint["secret"][:-8] + "AAAAAAA=")
    assert handle(request.body, headers) == 400


def test_the_docs_carry_the_same_code_as_the_page() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for snippet in (*SNIPPETS, *STANDARD_SNIPPETS):
        assert f"```{snippet.language}\n{snippet.code}```" in text, snippet.label
