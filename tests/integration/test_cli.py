"""`content-service` CLI: token create|revoke|list, user create, bootstrap, lists reindex, on the
running stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from infra.local_stack import LocalStack
from tests.support.cli import run_cli
from tests.support.clients import ClientFactory, WorkspaceAccess, sign_in


def cli_output(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = run_cli(*argv)
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else None, captured.err


def test_token_create_list_revoke(
    capsys: pytest.CaptureFixture[str], new_workspace: Any, make_client: ClientFactory
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    code, created, _ = cli_output(
        capsys,
        "token",
        "create",
        "--name",
        "cli token",
        "--workspace",
        workspace.slug,
        "--access",
        "full",
        "--content-types",
        "blog_post,author",
    )
    assert code == 0
    token = created["token"]
    assert created["workspaceId"] == workspace.id
    assert created["contentTypes"] == ["author", "blog_post"]
    assert make_client(token).get("/api/v1/me").json()["name"] == "cli token"

    code, listing, _ = cli_output(capsys, "token", "list")
    assert code == 0
    assert token not in json.dumps(listing)
    assert any(t["id"] == created["id"] for t in listing["items"])

    code, revoked, _ = cli_output(capsys, "token", "revoke", created["id"])
    assert code == 0
    assert revoked["revokedAt"] is not None
    assert make_client(token).get("/api/v1/me").status_code == 401


def test_refusals_exit_non_zero_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli_output(capsys, "token", "create", "--name", "x", "--workspace", "nope")
    assert code == 1
    assert "workspace 'nope' not found" in err
    code, _, err = cli_output(capsys, "token", "revoke", str(uuid.uuid4()))
    assert code == 1
    assert "not found" in err
    code, _, err = cli_output(capsys, "bootstrap")
    assert code == 1
    assert "already bootstrapped" in err


def test_user_create_then_sign_in(
    capsys: pytest.CaptureFixture[str], make_client: ClientFactory
) -> None:
    email = f"cli-{uuid.uuid4().hex[:8]}@example.com"
    code, user, _ = cli_output(
        capsys,
        "user",
        "create",
        "--email",
        email,
        "--role",
        "editor",
        "--password",
        "pw-0123456789",
    )
    assert code == 0
    assert user["role"] == "editor"
    assert "password" not in user
    client = sign_in(make_client(), email, "pw-0123456789")
    assert client.get("/api/v1/me").json()["email"] == email
    code, _, err = cli_output(capsys, "user", "create", "--email", email, "--password", "x" * 12)
    assert code == 1
    assert "already exists" in err


def _token_list(local_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`content-service --local-dir <local_dir> token list` in a process of its own."""
    argv = ["--local-dir", str(local_dir), "token", "list"]
    return subprocess.run(
        [sys.executable, "-m", "content_service.cli", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cli_finds_the_running_local_stack_from_its_state_folder(
    stack: LocalStack, tmp_path: Path
) -> None:
    """As after `make run`: no table variables in the shell, only `.local/stack.json`."""
    (tmp_path / "stack.json").write_text(json.dumps({"env": stack.environment}))
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "WEBHOOKS_"))}
    for name in stack.environment:
        clean_env.pop(name, None)
    result = _token_list(tmp_path, clean_env)
    assert result.returncode == 0, result.stderr
    assert any(t["name"] == "bootstrap read" for t in json.loads(result.stdout)["items"])


def test_cli_without_any_stack_says_how_to_start_one(tmp_path: Path) -> None:
    clean_env = {k: v for k, v in os.environ.items() if not k.endswith("_TABLE")}
    result = _token_list(tmp_path, clean_env)
    assert result.returncode == 1
    assert "make run" in result.stderr


def test_a_reader_that_goes_away_ends_the_output_without_a_traceback(stack: LocalStack) -> None:
    """`content-service token list | head`: the reader closes the pipe early (`true` reads
    nothing at all); the CLI stops quietly, as Unix tools do. The shell's environment names
    the stack's tables, as in Lambda."""
    assert stack.environment["SCHEMA_TABLE"] == os.environ["SCHEMA_TABLE"]
    result = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m content_service.cli token list | true"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    assert "Traceback" not in result.stderr, result.stderr
    assert "BrokenPipeError" not in result.stderr, result.stderr


def test_lists_reindex_indexes_entries_stored_before_list_indexes(
    capsys: pytest.CaptureFixture[str], new_workspace: Any
) -> None:
    from content_service.clock import iso_utc
    from content_service.content.entries import entry_item
    from content_service.content.schema import get_type
    from content_service.storage import dynamo
    from harness.seeding import stored_entry

    workspace: WorkspaceAccess = new_workspace()
    created = workspace.full.post(
        "/api/v1/content-types",
        json={"name": "old", "fields": [{"name": "title", "type": "string", "sortable": True}]},
    )
    assert created.status_code == 201, created.text
    old = get_type(workspace.id, "old")
    assert old is not None
    # Entries as a version without list indexes stored them: the entry item alone.
    for i in range(3):
        entry = stored_entry(
            workspace.id,
            old,
            {old.fields[0].key: f"t{i}"},
            entry_id=str(uuid.uuid4()),
            stamp=iso_utc(1_700_000_000 + i),
        )
        item = entry_item(old, entry)
        del item["listKeys"], item["listCounts"]
        dynamo.client().put_item(TableName=dynamo.tables().content, Item=dynamo.encode(item))
    assert workspace.read.get("/api/v1/content/old").json()["total"] == 0
    code, result, _ = cli_output(capsys, "lists", "reindex", "--workspace", workspace.slug)
    assert code == 0
    assert result == {"indexed": 3}
    body = workspace.read.get("/api/v1/content/old", params={"sort": "-title"}).json()
    assert body["total"] == 3
    assert [e["values"]["title"] for e in body["items"]] == ["t2", "t1", "t0"]
    # Indexed once: running it again changes no total.
    again = cli_output(capsys, "lists", "reindex", "--workspace", workspace.slug)
    assert again[1] == {"indexed": 3}
    assert workspace.read.get("/api/v1/content/old").json()["total"] == 3
