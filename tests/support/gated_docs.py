"""Audience-gated docs and read tokens that each see another set of them: what the edge tests
read through a shared cache, to show that no answer reaches a token it was not made for.

Doc k is for audience `d<k>`; reader i holds the audiences of the bits of i + 1, so
2**docs - 1 readers see as many different sets."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from content_service.identity.tokens import TokenSpec, create_token
from tests.support.content import create, publish


def _bits(i: int, docs: int) -> list[int]:
    return [k for k in range(docs) if (i + 1) >> k & 1]


@contextmanager
def gated_writer(base_url: str, workspace_id: str, docs: int) -> Iterator[httpx.Client]:
    """A client of a full token holding every doc's audience (writes must see their links)."""
    audiences = tuple(f"d{k}" for k in range(docs))
    token, _ = create_token(
        TokenSpec(name="writer", workspace_id=workspace_id, access="full", audiences=audiences)
    )
    headers = {"Origin": base_url, "Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as writer:
        yield writer


def publish_docs(writer: httpx.Client, docs: int) -> list[str]:
    """Doc k (`doc-<k>`, for audience `d<k>`) created and published, for k below `docs`."""
    ids = []
    for k in range(docs):
        doc = create(writer, "doc", {"title": f"doc-{k}"}, audiences=[f"d{k}"])
        publish(writer, "doc", doc["id"])
        ids.append(doc["id"])
    return ids


def readers(workspace_id: str, docs: int, count: int) -> list[str]:
    """`count` read tokens, reader i holding the audiences of the bits of i + 1."""
    return [
        create_token(
            TokenSpec(
                name=f"reader {i}",
                workspace_id=workspace_id,
                access="read",
                audiences=tuple(f"d{k}" for k in _bits(i, docs)),
            )
        )[0]
        for i in range(count)
    ]


def titles_seen(reader: int, docs: int) -> set[str]:
    """The doc titles reader `reader` may see."""
    return {f"doc-{k}" for k in _bits(reader, docs)}
