"""Users and roles administered over HTTP (`/api/v1/roles`, `/api/v1/users`, a token's role) and
on the command line (`content-service user create|grant`, `token create --role`), each change
audited once.

Everything runs against the local stack as a signed-in administrator; the users and roles each
test makes are its own (fresh e-mails, fresh role names), and a test that needs an administrator
to refuse itself signs in one of its own, never the bootstrap one.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from tests.support.cli import run_cli
from tests.support.clients import ClientFactory, WorkspaceAccess, sign_in

PASSWORD = "roles-password-1"
BUILTIN = ["administrator", "editor", "author", "translator", "viewer"]
RULE = {"actions": ["read", "update"], "contentTypes": ["post"], "locales": ["de"]}


def _ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json() if response.content else None


def _email() -> str:
    return f"roles-{uuid.uuid4().hex[:10]}@example.com"


def _me(client: httpx.Client) -> dict[str, Any]:
    return dict(_ok(client.get("/api/v1/me")))


def _service_log(admin: httpx.Client, **query: str) -> list[dict[str, Any]]:
    return list(_ok(admin.get("/api/v1/audit", params={"scope": "service", **query}))["items"])


def _one_record(admin: httpx.Client, target: str, action: str) -> dict[str, Any]:
    """The one record of `action` on `target`; there must be exactly one."""
    found = [r for r in _service_log(admin, target=target) if r["action"] == action]
    assert len(found) == 1, found
    return found[0]


def _actor(admin: httpx.Client) -> dict[str, str]:
    me = _me(admin)
    return {"kind": "user", "id": me["id"], "email": me["email"]}


def _new_role(admin: httpx.Client, **more: Any) -> dict[str, Any]:
    body = {"name": f"Role {uuid.uuid4().hex[:8]}", "rules": [RULE], **more}
    return dict(_ok(admin.post("/api/v1/roles", json=body), 201))


def _new_user(admin: httpx.Client, grants: dict[str, Any]) -> dict[str, Any]:
    body = {"email": _email(), "password": PASSWORD, "grants": grants}
    return dict(_ok(admin.post("/api/v1/users", json=body), 201))


def _signed_in(make_client: ClientFactory, user: dict[str, Any]) -> httpx.Client:
    return sign_in(make_client(), user["email"], PASSWORD)


def test_a_custom_role_is_made_listed_changed_and_deleted_each_audited_once(
    admin: httpx.Client,
) -> None:
    role = _new_role(admin, description="German posts", takesLocales=True)
    assert role["id"].startswith("role-")
    assert role["builtin"] is False
    assert role["administrator"] is False
    assert role["takesLocales"] is True
    assert role["rules"] == [
        {
            "actions": ["read", "update"],
            "contentTypes": ["post"],
            "locales": ["de"],
            "fields": None,
            "ownEntriesOnly": False,
        }
    ]
    listed = _ok(admin.get("/api/v1/roles"))["items"]
    assert [r["id"] for r in listed[:5]] == BUILTIN
    assert role in listed

    patched = _ok(admin.patch(f"/api/v1/roles/{role['id']}", json={"name": "Renamed"}))
    assert patched == {**role, "name": "Renamed"}
    assert _ok(admin.delete(f"/api/v1/roles/{role['id']}"), 204) is None
    assert role["id"] not in [r["id"] for r in _ok(admin.get("/api/v1/roles"))["items"]]

    target = f"role:{role['id']}"
    for action in ("role.created", "role.updated", "role.deleted"):
        record = _one_record(admin, target, action)
        assert record["actor"] == _actor(admin)
        assert record["target"]["kind"] == "role"


def test_built_in_roles_and_roles_still_granted_are_kept(admin: httpx.Client) -> None:
    for verb, body in (("PATCH", {"name": "Boss"}), ("DELETE", None)):
        refused = admin.request(verb, "/api/v1/roles/editor", json=body)
        assert refused.status_code == 409, refused.text
    role = _new_role(admin)
    _new_user(admin, {"*": [{"role": role["id"]}]})
    refused = admin.delete(f"/api/v1/roles/{role['id']}")
    assert refused.status_code == 409, refused.text
    assert role in _ok(admin.get("/api/v1/roles"))["items"]
    assert [r["action"] for r in _service_log(admin, target=f"role:{role['id']}")] == [
        "role.created"
    ]
    assert admin.patch("/api/v1/roles/role-000000000000", json={"name": "x"}).status_code == 404
    assert admin.delete("/api/v1/roles/role-000000000000").status_code == 404


def test_a_user_is_made_with_grants_and_their_grants_replaced(
    admin: httpx.Client, new_workspace: Any, make_client: ClientFactory
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    grants = {workspace.id: [{"role": "translator", "locales": ["de"]}, {"role": "viewer"}]}
    user = _new_user(admin, grants)
    assert user["role"] == "editor"
    assert user["active"] is True
    assert user["grants"] == {
        workspace.id: [
            {"role": "translator", "locales": ["de"]},
            {"role": "viewer", "locales": None},
        ]
    }
    assert user in _ok(admin.get("/api/v1/users"))["items"]
    assert _me(_signed_in(make_client, user))["email"] == user["email"]

    path = f"/api/v1/users/{user['id']}/grants/{workspace.id}"
    replaced = _ok(admin.put(path, json={"grants": [{"role": "author"}]}))
    assert replaced["grants"] == {workspace.id: [{"role": "author", "locales": None}]}
    elsewhere = f"/api/v1/users/{user['id']}/grants/no-such-workspace"
    assert admin.put(elsewhere, json={"grants": [{"role": "viewer"}]}).status_code == 404
    assert (
        admin.put(f"/api/v1/users/{uuid.uuid4()}/grants/*", json={"grants": []}).status_code == 404
    )
    emptied = _ok(admin.put(path, json={"grants": []}))
    assert emptied["grants"].get(workspace.id, []) == []

    target = f"user:{user['id']}"
    assert _one_record(admin, target, "user.created")["actor"] == _actor(admin)
    changed = [r for r in _service_log(admin, target=target) if r["action"] != "signIn.succeeded"]
    assert [r["action"] for r in changed] == [
        "user.grants_changed",
        "user.grants_changed",
        "user.created",
    ]
    assert all(r["actor"] == _actor(admin) for r in changed)


def test_a_deactivated_user_is_signed_out_and_cannot_sign_in(
    admin: httpx.Client, make_client: ClientFactory
) -> None:
    user = _new_user(admin, {"*": [{"role": "editor"}]})
    session = _signed_in(make_client, user)
    assert session.get("/api/v1/me").status_code == 200

    deactivated = _ok(admin.post(f"/api/v1/users/{user['id']}/deactivate"))
    assert deactivated["active"] is False
    assert session.get("/api/v1/me").status_code == 401
    refused = make_client().post(
        "/login", data={"email": user["email"], "password": PASSWORD}, follow_redirects=False
    )
    assert refused.status_code == 401
    listed = {u["id"]: u for u in _ok(admin.get("/api/v1/users"))["items"]}
    assert listed[user["id"]]["active"] is False
    record = _one_record(admin, f"user:{user['id']}", "user.deactivated")
    assert record["actor"] == _actor(admin)


def test_an_administrator_keeps_their_own_administrator_role(
    admin: httpx.Client, make_client: ClientFactory
) -> None:
    made = _new_user(admin, {"*": [{"role": "administrator"}]})
    assert made["role"] == "admin"
    itself = _signed_in(make_client, made)
    for path, body in (
        (f"/api/v1/users/{made['id']}/deactivate", None),
        (f"/api/v1/users/{made['id']}/grants/*", {"grants": [{"role": "editor"}]}),
    ):
        refused = itself.request("POST" if body is None else "PUT", path, json=body)
        assert refused.status_code == 409, refused.text
    assert _me(itself)["role"] == "admin"
    assert [r["action"] for r in _service_log(admin, target=f"user:{made['id']}")] == [
        "signIn.succeeded",
        "user.created",
    ]


ROUTES = [
    ("GET", "/api/v1/roles", None),
    ("POST", "/api/v1/roles", {"name": "Nope", "rules": [RULE]}),
    ("PATCH", "/api/v1/roles/editor", {"name": "Nope"}),
    ("DELETE", "/api/v1/roles/viewer", None),
    ("GET", "/api/v1/users", None),
    ("POST", "/api/v1/users", {"email": "x@example.com", "password": PASSWORD, "grants": {}}),
    ("PUT", "/api/v1/users/{me}/grants/*", {"grants": [{"role": "administrator"}]}),
    ("POST", "/api/v1/users/{me}/deactivate", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_only_administrators_manage_users_and_roles(
    admin: httpx.Client,
    new_workspace: Any,
    make_client: ClientFactory,
    method: str,
    path: str,
    body: Any,
) -> None:
    editor = _new_user(admin, {"*": [{"role": "editor"}]})
    session = _signed_in(make_client, editor)
    workspace: WorkspaceAccess = new_workspace()
    url = path.format(me=editor["id"])
    for caller, status in ((session, 403), (workspace.full, 403), (make_client(), 401)):
        response = caller.request(method, url, json=body)
        assert response.status_code == status, response.text
    assert _me(session)["role"] == "editor"
    assert [r["action"] for r in _service_log(admin, target=f"user:{editor['id']}")] == [
        "signIn.succeeded",
        "user.created",
    ]


MALFORMED = [
    ("POST", "/api/v1/roles", {"name": "x", "rules": [{"actions": ["fly"]}]}),
    ("POST", "/api/v1/roles", {"name": "x", "rules": [{**RULE, "colour": "red"}]}),
    ("POST", "/api/v1/roles", {"name": "x", "rules": [{**RULE, "locales": []}]}),
    ("POST", "/api/v1/roles", {"name": "", "rules": [RULE]}),
    ("POST", "/api/v1/roles", {"rules": [RULE]}),
    ("PATCH", "/api/v1/roles/{role}", {"rules": [{"actions": []}]}),
    ("PATCH", "/api/v1/roles/{role}", {"name": None}),
    ("POST", "/api/v1/users", {"grants": {"*": [{"role": "nope"}]}}),
    ("POST", "/api/v1/users", {"grants": {"no-such-workspace": [{"role": "viewer"}]}}),
    ("POST", "/api/v1/users", {"grants": {"{workspace}": [{"role": "administrator"}]}}),
    ("POST", "/api/v1/users", {"grants": {"*": [{"role": "translator", "locales": []}]}}),
    ("POST", "/api/v1/users", {"grants": {"*": [{"role": "translator", "locales": [""]}]}}),
    ("PUT", "/api/v1/users/{user}/grants/{workspace}", {"grants": [{"role": "administrator"}]}),
    ("PUT", "/api/v1/users/{user}/grants/*", {"grants": [{"role": "nope"}]}),
    ("PUT", "/api/v1/users/{user}/grants/*", {"grants": [{"role": "viewer", "x": 1}]}),
]


@pytest.mark.parametrize(("method", "path", "body"), MALFORMED)
def test_malformed_bodies_are_refused_and_write_nothing(
    admin: httpx.Client, new_workspace: Any, method: str, path: str, body: dict[str, Any]
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    role = _new_role(admin)
    user = _new_user(admin, {"*": [{"role": "viewer"}]})
    if path == "/api/v1/users":
        body = {"email": _email(), "password": PASSWORD, **body}
    text = json.dumps(body).replace("{workspace}", workspace.id)
    url = path.format(role=role["id"], user=user["id"], workspace=workspace.id)
    roles_before = _ok(admin.get("/api/v1/roles"))
    users_before = _ok(admin.get("/api/v1/users"))
    newest = _service_log(admin, limit="1")

    refused = admin.request(method, url, content=text, headers={"Content-Type": "application/json"})
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["message"]
    assert _ok(admin.get("/api/v1/roles")) == roles_before
    assert _ok(admin.get("/api/v1/users")) == users_before
    assert _service_log(admin, limit="1") == newest


def test_a_token_is_given_a_role_and_shows_it(admin: httpx.Client, new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    body = {"name": "automation", "workspaceId": workspace.id, "access": "full"}
    made = _ok(admin.post("/api/v1/tokens", json={**body, "role": {"role": "author"}}), 201)
    assert made["role"] == {"role": "author", "locales": None}
    listed = {t["id"]: t for t in _ok(admin.get("/api/v1/tokens"))["items"]}
    assert listed[made["id"]]["role"] == {"role": "author", "locales": None}
    plain = _ok(admin.post("/api/v1/tokens", json=body), 201)
    assert plain["role"] is None
    for role in ({"role": "administrator"}, {"role": "nope"}, {"role": "author", "x": 1}):
        refused = admin.post("/api/v1/tokens", json={**body, "role": role})
        assert refused.status_code == 422, refused.text


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = run_cli(*argv)
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


def test_the_cli_creates_users_with_any_role_and_grants_more(
    capsys: pytest.CaptureFixture[str], admin: httpx.Client, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    role = _new_role(admin)
    email = _email()
    code, user, err = _cli(
        capsys, "user", "create", "--email", email, "--role", "translator", "--locale", "de",
        "--workspace", workspace.slug, "--password", PASSWORD,
    )  # fmt: skip
    assert code == 0, err
    assert user["role"] == "editor"
    assert user["grants"] == {workspace.id: [{"role": "translator", "locales": ["de"]}]}

    code, granted, err = _cli(
        capsys, "user", "grant", "--email", email, "--role", role["id"],
        "--workspace", workspace.id,
    )  # fmt: skip
    assert code == 0, err
    assert granted["grants"] == {
        workspace.id: [
            {"role": "translator", "locales": ["de"]},
            {"role": role["id"], "locales": None},
        ]
    }

    code, legacy, err = _cli(
        capsys, "user", "create", "--email", _email(), "--role", "admin", "--password", PASSWORD
    )
    assert code == 0, err
    assert legacy["role"] == "admin"
    assert legacy["grants"] == {"*": [{"role": "administrator", "locales": None}]}
    code, editor, err = _cli(capsys, "user", "create", "--email", _email(), "--password", PASSWORD)
    assert code == 0, err
    assert editor["grants"] == {"*": [{"role": "editor", "locales": None}]}

    code, token, err = _cli(
        capsys, "token", "create", "--name", "cli author", "--workspace", workspace.slug,
        "--access", "full", "--role", "translator", "--locale", "de",
    )  # fmt: skip
    assert code == 0, err
    assert token["role"] == {"role": "translator", "locales": ["de"]}

    for refused in (
        ("--role", "administrator", "--workspace", workspace.slug),
        ("--role", "nope"),
    ):
        code, _, err = _cli(
            capsys, "user", "create", "--email", _email(), "--password", PASSWORD, *refused
        )
        assert code == 1
        assert err.startswith("content-service: ")
