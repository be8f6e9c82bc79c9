"""HTTP clients of the running API: the `make_client` fixture's type, a form sign-in, the
`new_workspace` fixture's workspace with its clients, and a read token made through the API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

ClientFactory = Callable[..., httpx.Client]


def sign_in(client: httpx.Client, email: str, password: str) -> httpx.Client:
    response = client.post(
        "/login", data={"email": email, "password": password}, follow_redirects=False
    )
    assert response.status_code == 303, response.text
    return client


@dataclass
class WorkspaceAccess:
    """A fresh workspace with a full and a read token, and clients for each."""

    id: str
    slug: str
    full_token: str
    read_token: str
    full: httpx.Client
    read: httpx.Client


def new_read_token(
    admin: httpx.Client, make_client: ClientFactory, site: WorkspaceAccess, **spec: Any
) -> tuple[dict[str, Any], httpx.Client]:
    """A read token of `site` made by the admin through `/api/v1/tokens` (`spec` adds to its
    body), and a client that sends it."""
    body = {"name": "t", "workspaceId": site.id, "access": "read", **spec}
    made = admin.post("/api/v1/tokens", json=body)
    assert made.status_code == 201, made.text
    return made.json(), make_client(made.json()["token"])
