"""Identity through real HTTP: tokens, sessions, who-am-I, token management, the origin guard."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import uuid
from typing import Any

import httpx
import pytest

from infra.local_stack import LocalStack
from tests.support.cli import run_cli
from tests.support.clients import ClientFactory, WorkspaceAccess, sign_in


def test_health_answers(make_client: ClientFactory) -> None:
    response = make_client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_me_describes_a_token(new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    response = workspace.read.get("/api/v1/me")
    assert response.status_code == 200
    assert response.json() == {
        "kind": "token",
        "name": "read",
        "workspaceId": workspace.id,
        "access": "read",
        "contentTypes": ["*"],
        "scopes": ["content:read"],
        "audiences": [],
        "role": None,
        "permissions": {
            "administrator": False,
            "roles": ["viewer"],
            "rules": [
                {
                    "actions": ["read"],
                    "contentTypes": ["*"],
                    "locales": None,
                    "fields": None,
                    "ownEntriesOnly": False,
                }
            ],
        },
    }


def test_me_describes_a_signed_in_user(admin: httpx.Client, credentials: dict[str, Any]) -> None:
    body = admin.get("/api/v1/me").json()
    assert body["kind"] == "user"
    assert body["email"] == credentials["admin"]["email"]
    assert body["role"] == "admin"
    assert body["permissions"]["administrator"] is True
    assert body["permissions"]["roles"] == ["administrator"]


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer cs_" + "A" * 43,
        "Bearer cs_short",
        "Bearer " + "x" * 5000,
        "Bearer cs_" + "A" * 42 + "!",
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "cs_" + "A" * 43,
        "Bearer cs_" + "é" * 43,
    ],
)
def test_wrong_and_malformed_tokens_are_401(make_client: ClientFactory, authorization: str) -> None:
    client = make_client()
    response = client.get("/api/v1/me", headers={b"Authorization": authorization.encode()})
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["status"] == 401
    assert error["code"] == "unauthorized"
    assert error["message"]


def test_missing_credentials_are_401(make_client: ClientFactory) -> None:
    response = make_client().get("/api/v1/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_revoked_token_is_401_on_the_next_request(
    admin: httpx.Client, make_client: ClientFactory, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = admin.post(
        "/api/v1/tokens",
        json={"name": "short-lived", "workspaceId": workspace.id, "access": "read"},
    )
    assert created.status_code == 201
    token = created.json()["token"]
    client = make_client(token)
    assert client.get("/api/v1/me").status_code == 200
    assert admin.delete(f"/api/v1/tokens/{created.json()['id']}").status_code == 204
    response = client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "token revoked"


def test_token_is_shown_once_and_listed_without_secret(
    admin: httpx.Client, new_workspace: Any
) -> None:
    workspace: WorkspaceAccess = new_workspace()
    created = admin.post(
        "/api/v1/tokens",
        json={
            "name": "listed",
            "workspaceId": workspace.slug,
            "access": "full",
            "contentTypes": ["blog_post", "author"],
            "audiences": ["members"],
        },
    ).json()
    assert created["token"].startswith("cs_")
    assert created["workspaceId"] == workspace.id
    assert created["scopes"] == ["content:read", "content:write"]
    listing = admin.get("/api/v1/tokens")
    assert listing.status_code == 200
    assert created["token"] not in listing.text
    mine = [t for t in listing.json()["items"] if t["id"] == created["id"]]
    assert mine[0]["contentTypes"] == ["author", "blog_post"]
    assert "token" not in mine[0]
    assert mine[0]["tokenHint"] == created["token"][-4:]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"name": "x", "workspaceId": "default", "access": "admin"}, 422),
        ({"name": "", "workspaceId": "default", "access": "read"}, 422),
        ({"name": "x", "workspaceId": "no-such-workspace", "access": "read"}, 404),
        (
            {"name": "x", "workspaceId": "default", "access": "read", "scopes": ["content:write"]},
            422,
        ),
        ({"name": "x", "workspaceId": "default", "access": "read", "scopes": ["root"]}, 422),
        ({"name": "x", "workspaceId": "default", "access": "read", "contentTypes": []}, 422),
        ({"name": "x", "workspaceId": "default", "access": "read", "contentTypes": ["Bad"]}, 422),
        ({"name": "x", "workspaceId": "default", "access": "read", "extra": 1}, 422),
    ],
)
def test_invalid_token_requests_are_refused_and_write_nothing(
    admin: httpx.Client, body: dict[str, Any], status: int
) -> None:
    before = len(admin.get("/api/v1/tokens").json()["items"])
    response = admin.post("/api/v1/tokens", json=body)
    assert response.status_code == status
    assert response.json()["error"]["status"] == status
    assert len(admin.get("/api/v1/tokens").json()["items"]) == before


def test_token_management_needs_an_admin_session(new_workspace: Any) -> None:
    workspace: WorkspaceAccess = new_workspace()
    assert workspace.full.get("/api/v1/tokens").status_code == 403
    refused = workspace.full.post(
        "/api/v1/tokens", json={"name": "x", "workspaceId": workspace.id, "access": "read"}
    )
    assert refused.status_code == 403


def test_editor_cannot_manage_tokens(make_client: ClientFactory) -> None:
    from content_service import runtime
    from content_service.identity.users import create_user

    email = f"editor-{id(make_client)}@example.com"
    create_user(runtime.settings(), email, "editor", "editor-password-1")
    editor = sign_in(make_client(), email, "editor-password-1")
    assert editor.get("/api/v1/me").json()["role"] == "editor"
    assert editor.get("/api/v1/tokens").status_code == 403


def test_token_of_another_workspace_cannot_act_there(
    new_workspace: Any, make_client: ClientFactory
) -> None:
    first: WorkspaceAccess = new_workspace()
    second: WorkspaceAccess = new_workspace()
    client = make_client(first.full_token, **{"X-Workspace-Id": second.id})
    response = client.get("/api/v1/me")
    assert response.status_code == 200
    assert response.json()["workspaceId"] == first.id


def test_wrong_password_answers_the_form_without_saying_which_half(
    make_client: ClientFactory, credentials: dict[str, Any]
) -> None:
    client = make_client()
    wrong_password = client.post(
        "/login", data={"email": credentials["admin"]["email"], "password": "not-the-password"}
    )
    wrong_email = client.post(
        "/login", data={"email": "nobody@example.com", "password": "not-the-password"}
    )
    for response in (wrong_password, wrong_email):
        assert response.status_code == 401
        assert "Email or password is incorrect." in response.text
        assert "set-cookie" not in response.headers
    assert wrong_password.text == wrong_email.text


def test_session_cookie_flags_and_sign_out(
    make_client: ClientFactory, credentials: dict[str, Any]
) -> None:
    client = make_client()
    response = client.post(
        "/login",
        data={"email": credentials["admin"]["email"], "password": credentials["admin"]["password"]},
        follow_redirects=False,
    )
    assert response.status_code == 303
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=lax" in cookie
    assert client.get("/api/v1/me").status_code == 200
    stolen = dict(client.cookies)
    assert client.post("/logout", follow_redirects=False).status_code == 303
    replay = make_client()
    replay.cookies.update(stolen)
    assert replay.get("/api/v1/me").status_code == 401


def test_sign_in_redirect_stays_on_site(
    make_client: ClientFactory, credentials: dict[str, Any]
) -> None:
    client = make_client()
    for target, expected in [
        ("/webhooks/new", "/webhooks/new"),
        ("//evil.example/", "/webhooks"),
        ("https://evil.example/", "/webhooks"),
    ]:
        response = client.post(
            "/login",
            data={
                "email": credentials["admin"]["email"],
                "password": credentials["admin"]["password"],
                "next": target,
            },
            follow_redirects=False,
        )
        assert response.headers["location"] == expected


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://evil.example"}, {"Referer": "http://evil.example/x"}, {}],
)
def test_cookie_writes_from_another_origin_are_403(
    admin: httpx.Client, headers: dict[str, str]
) -> None:
    request = admin.build_request(
        "POST",
        "/api/v1/tokens",
        json={"name": "csrf", "workspaceId": "default", "access": "read"},
    )
    del request.headers["origin"]
    request.headers.update(headers)
    response = admin.send(request)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden_origin"
    assert all(t["name"] != "csrf" for t in admin.get("/api/v1/tokens").json()["items"])


def test_oversized_body_is_413(admin: httpx.Client) -> None:
    response = admin.post(
        "/api/v1/tokens",
        content=b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


def test_unknown_route_uses_the_error_shape(make_client: ClientFactory) -> None:
    response = make_client().get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json() == {
        "error": {"status": 404, "code": "not_found", "message": "Not Found"}
    }


def test_correlation_id_is_echoed(make_client: ClientFactory) -> None:
    response = make_client().get("/healthz", headers={"X-Correlation-Id": "abc-123"})
    assert response.headers["x-correlation-id"] == "abc-123"
    generated = make_client().get("/healthz").headers["x-correlation-id"]
    assert len(generated) == 36


def test_an_editor_lands_on_the_content_pages_after_sign_in(make_client: ClientFactory) -> None:
    from content_service import runtime
    from content_service.identity.users import create_user

    email = f"landing-{uuid.uuid4().hex[:8]}@example.com"
    create_user(runtime.settings(), email, "editor", "editor-password-1")
    response = make_client().post(
        "/login", data={"email": email, "password": "editor-password-1"}, follow_redirects=False
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/content"
    asked = make_client().post(
        "/login",
        data={"email": email, "password": "editor-password-1", "next": "/api/v1/me"},
        follow_redirects=False,
    )
    assert asked.headers["location"] == "/api/v1/me"


def test_an_older_password_hash_is_replaced_at_the_next_sign_in(
    stack: LocalStack, make_client: ClientFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user stored with a cheaper scrypt N than today's still signs in, and leaves with
    today's (the suite's `PASSWORD_HASH_COST`; the default is held in test_passwords)."""
    email, password = f"rehash-{uuid.uuid4().hex[:8]}@example.com", "older-password-1"
    assert run_cli("user", "create", "--email", email, "--password", password) == 0
    user_id = json.loads(capsys.readouterr().out)["id"]
    assert stack.settings is not None
    table = stack.settings.tables.schema
    dynamodb = stack.emulator.dynamodb()
    key = {"pk": {"S": f"USER#{user_id}"}, "sk": {"S": "USER"}}

    def stored_hash() -> str:
        return dynamodb.get_item(TableName=table, Key=key)["Item"]["passwordHash"]["S"]

    today = 2**stack.settings.password_cost
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=today // 2, r=8, p=1, dklen=32)
    older = "$".join(
        ["scrypt", str(today // 2), "8", "1"]
        + [base64.urlsafe_b64encode(b).decode().rstrip("=") for b in (salt, digest)]
    )
    dynamodb.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET passwordHash = :h",
        ExpressionAttributeValues={":h": {"S": older}},
    )

    sign_in(make_client(), email, password)
    assert stored_hash().startswith(f"scrypt${today}$8$1$")
    sign_in(make_client(), email, password)
