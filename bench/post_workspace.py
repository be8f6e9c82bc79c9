"""A workspace of published posts read by several read tokens, as the edge suites read it.

`edge_cache` (a shared cache in front of the service) and `edge` (purge on publish through
Varnish) both read lists and entries of a `post` type through many tokens; they build the
same world here.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from content_service import runtime
from content_service.content.schema import FieldSpec, TypeDefinition, create_type
from content_service.identity.tokens import TokenSpec, authenticate_token, create_token
from content_service.identity.workspaces import create_workspace
from harness.seeding import seed_published

POSTS = 30
GRAPHQL_POSTS = "/api/v1/graphql?query=" + "%7B+posts+%7B+total+items+%7B+title+%7D+%7D+%7D"
"""The posts' titles and total over GraphQL's GET, as a cache keys it."""


@dataclass(frozen=True)
class PostWorkspace:
    workspace_id: str
    writer: str
    ids: list[str]
    """The published posts' ids, in the order they were seeded."""
    readers: list[str]


def writer_workspace(prefix: str, writer_name: str, type_name: str) -> tuple[str, str]:
    """A new workspace named `prefix-<random>` with a full-access token named `writer_name` and
    a `type_name` type (title, body); answers the workspace's id and the token."""
    slug = f"{prefix}-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    writer, _ = create_token(TokenSpec(name=writer_name, workspace_id=workspace.id, access="full"))
    fields = (FieldSpec("title", "string"), FieldSpec("body", "text"))
    create_type(authenticate_token(writer), workspace.id, TypeDefinition(type_name, fields=fields))
    return workspace.id, writer


def post_workspace(prefix: str, readers: int) -> PostWorkspace:
    """A new workspace named `prefix-<random>`: a full-access writer token, a `post` type
    (title, body), `POSTS` published posts and `readers` read tokens."""
    workspace_id, writer = writer_workspace(prefix, "writer", "post")
    ids = seed_published(
        workspace_id,
        "post",
        [({"title": f"Post {i}", "body": "x" * 500}, {}) for i in range(POSTS)],
    )
    tokens = [
        create_token(TokenSpec(name=f"reader {i}", workspace_id=workspace_id, access="read"))[0]
        for i in range(readers)
    ]
    return PostWorkspace(workspace_id, writer, ids, tokens)
