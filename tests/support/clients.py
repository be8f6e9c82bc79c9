"""HTTP clients of the running API: the `make_client` fixture's type, a form sign-in, and the
`new_workspace` fixture's workspace with its clients."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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
