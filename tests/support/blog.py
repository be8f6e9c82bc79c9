"""The blog the relation tests define over HTTP: authors, tags and posts linking them, with
images and sections where a post links through every cardinality.

Each type's title field is its first string field, the default (docs/content.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from tests.support.content import create, define, publish
from tests.support.field_types import relation

NAME = {"name": "name", "type": "string"}
LABEL = {"name": "label", "type": "string"}
TITLE = {"name": "title", "type": "string"}
AUTHOR = relation("author", "author", "many-to-one")
TAGS = relation("tags", "tag", "many-to-many")
EVERY_CARDINALITY = (
    AUTHOR,
    TAGS,
    relation("cover", "image", "one-to-one"),
    relation("sections", "section", "one-to-many"),
)
"""A post's author (many-to-one), tags (many-to-many), cover (one-to-one), sections
(one-to-many)."""


def define_every_cardinality(
    client: httpx.Client,
    *,
    tag_fields: Sequence[dict[str, Any]] = (LABEL,),
    post_extra: Sequence[dict[str, Any]] = (),
) -> None:
    """author, tag, image, section, and post linking them through EVERY_CARDINALITY."""
    define(client, "author", [NAME])
    define(client, "tag", list(tag_fields))
    define(client, "image", [{"name": "url", "type": "string"}])
    define(client, "section", [{"name": "heading", "type": "string"}])
    define(client, "post", [TITLE, *EVERY_CARDINALITY, *post_extra])


def define_authored_posts(
    client: httpx.Client, author_fields: Sequence[dict[str, Any]] = (NAME,)
) -> dict[str, str]:
    """author, tag (a name) and post (a title, an author, tags); authors `ada` and `grace`
    and tags `t1`, `t2`, `t3` created and published: their ids by name."""
    define(client, "author", list(author_fields))
    define(client, "tag", [NAME])
    define(client, "post", [TITLE, AUTHOR, TAGS])
    ids: dict[str, str] = {}
    for kind, names in (("author", ("ada", "grace")), ("tag", ("t1", "t2", "t3"))):
        for name in names:
            ids[name] = create(client, kind, {"name": name})["id"]
            publish(client, kind, ids[name])
    return ids


def relink(client: httpx.Client, post_id: str, relations: dict[str, Any]) -> None:
    """Links and unlinks a post's targets (`{"tags": {"link": [...], "unlink": [...]}}`)."""
    response = client.patch(f"/api/v1/content/post/{post_id}", json={"relations": relations})
    assert response.status_code == 200, response.text
