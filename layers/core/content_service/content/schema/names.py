"""Content-type and field names, and the GraphQL names derived from a type's name.

`blog_post` -> object type `BlogPost`, single-entry field `blogPost`, list field `blogPosts`
(docs/api.md). The plural is simple English: consonant + `y` -> `ies`, `s x z ch sh` -> `es`,
otherwise `s`. Field names keep their spelling in GraphQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from content_service import camel

NAME_PATTERN = r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
MAX_NAME_LENGTH = 64
_NAME = re.compile(NAME_PATTERN)

# The system fields of the entry JSON (docs/api.md, "Entries"), in the order entries show them.
ENTRY_SYSTEM_FIELDS: tuple[str, ...] = (
    "id",
    "contentType",
    "status",
    "locale",
    "localeGroupId",
    "createdAt",
    "updatedAt",
    "publishedAt",
    "audiences",
)
# System fields of an entry (and the envelope's own keys) cannot be content fields. `title` is
# deliberately NOT reserved: the API's own example (docs/api.md) defines a `title` field (and
# the event's `data.title` is a snapshot of the titleField, not an entry field), so reserving it
# would refuse that example body.
RESERVED_FIELD_NAMES = frozenset({*ENTRY_SYSTEM_FIELDS, "values", "relations", "deleted"})
# Object type names GraphQL or the adapter already owns; a content type deriving one of these
# would shadow it.
RESERVED_GRAPHQL_TYPE_NAMES = frozenset(
    {"Query", "Mutation", "Subscription", "String", "Int", "Float", "Boolean", "ID", "JSON"}
)

# Content types the service defines itself (`assets.builtin_type`): no user type takes these
# names, and none of them is listed, changed or reached through `/api/v1/content`.
ASSET_TYPE = "asset"
BUILTIN_TYPE_NAMES = frozenset({ASSET_TYPE})
# The asset type's fixed storage keys other code reads (`assets.builtin_type` defines them all).
ASSET_FILE_KEY = "f4"
ASSET_CONTENT_TYPE_KEY = "f6"
ASSET_STATE_KEY = "f7"


def is_valid_name(name: str) -> bool:
    return len(name) <= MAX_NAME_LENGTH and _NAME.match(name) is not None


def field_name_problem(name: str) -> str | None:
    """Why `name` cannot name a field, or None."""
    if not isinstance(name, str) or not is_valid_name(name):
        return f"must be snake_case ({NAME_PATTERN}) and at most {MAX_NAME_LENGTH} characters"
    if name in RESERVED_FIELD_NAMES or name.startswith("_"):
        return "is reserved for a system field"
    return None


def plural(word: str) -> str:
    if len(word) >= 2 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


@dataclass(frozen=True)
class GraphQLNames:
    """The names a content type takes in the GraphQL schema."""

    type_name: str
    single_field: str
    list_field: str

    def to_json(self) -> dict[str, str]:
        return camel.dump(self, camel.field_names(GraphQLNames))


def graphql_names(name: str) -> GraphQLNames:
    parts = name.split("_")
    pascal = "".join(part[:1].upper() + part[1:] for part in parts)
    camel = parts[0] + "".join(part[:1].upper() + part[1:] for part in parts[1:])
    return GraphQLNames(type_name=pascal, single_field=camel, list_field=plural(camel))


def graphql_collision(name: str, others: list[str]) -> str | None:
    """Which existing type `name`'s derived names collide with, or None.

    Object type names and root field names are separate GraphQL namespaces; within each, two
    types must differ (`post`'s list field `posts` collides with `posts`'s single field).
    """
    mine = graphql_names(name)
    my_fields = {mine.single_field, mine.list_field}
    for other in others:
        if other == name:
            continue
        theirs = graphql_names(other)
        if theirs.type_name == mine.type_name or my_fields & {
            theirs.single_field,
            theirs.list_field,
        }:
            return other
    return None
