"""Reading the audit log over HTTP (docs/api.md, "Audit log")."""

from __future__ import annotations

from typing import Any

import httpx


def every_record(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    """Every record `GET /api/v1/audit` returns for `params`, newest first, following the
    cursor to the last page."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        query = {**params, **({"cursor": cursor} if cursor else {})}
        response = client.get("/api/v1/audit", params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        found.extend(body["items"])
        cursor = body["nextCursor"]
        if cursor is None:
            return found
