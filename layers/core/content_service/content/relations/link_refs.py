"""The reverse-link index: one item per (target, source, field) a source's versions link.

A relation is stored on its source (`links` of the entry item and of the published item), so
"what links here" needs the other direction. Each link held by a source's draft or published
version has a reverse item, keyed so one Query reads a target's linking entries by type and
field, newest first:

    pk = `REF#<ws>#<target id>`
    sk = `<source type>#<field key>#<source createdAt>#<source id>`
    entity = "link_ref", sourceId, sourceType, fieldKey, createdAt

The field key (`f3`) is stable, so renaming a field changes nothing; `createdAt` never changes,
so a reverse item's key is fixed for as long as its link exists.

The invariant a crash must never break: every link held by the draft or the published version
of a source that is not purged (trashed ones included: restore brings their links back) has
its reverse item. The write that makes a link puts its reverse item in the same transaction
(`changes`). A reverse item no version links any more is stale: the write that makes it so
deletes it in its transaction when there is room (`Transaction.add_stale`), else it stays until
`content-service links reindex`; every read verifies each candidate against its source, so a
stale one is never shown (`content.relations.linkers`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content_service.content.entries import StoredEntry
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

REF_ENTITY = "link_ref"
REF_PK_PREFIX = "REF#"

Link = tuple[str, str]
"""(field key, target id): one link of a source."""


def ref_pk(workspace_id: str, target_id: str) -> str:
    return f"{REF_PK_PREFIX}{workspace_id}#{target_id}"


def ref_sk(source_type: str, field_key: str, created_at: str, source_id: str) -> str:
    return f"{source_type}#{field_key}#{created_at}#{source_id}"


def field_prefix(source_type: str, field_key: str) -> str:
    """The sort key prefix of every reverse item of one (source type, field)."""
    return f"{source_type}#{field_key}#"


@dataclass(frozen=True)
class Source:
    """What a reverse item's key takes from its source: fixed for the source's lifetime."""

    workspace_id: str
    id: str
    content_type: str
    created_at: str

    @classmethod
    def of(cls, entry: StoredEntry) -> Source:
        return cls(entry.workspace_id, entry.id, entry.content_type, entry.created_at)

    def key(self, link: Link) -> dict[str, Any]:
        field_key, target_id = link
        return dynamo.key(
            ref_pk(self.workspace_id, target_id),
            ref_sk(self.content_type, field_key, self.created_at, self.id),
        )

    def item(self, link: Link) -> dict[str, Any]:
        """The reverse item of `link`, wire-ready."""
        return {
            **self.key(link),
            **dynamo.encode(
                {
                    "entity": REF_ENTITY,
                    "sourceId": self.id,
                    "sourceType": self.content_type,
                    "fieldKey": link[0],
                    "createdAt": self.created_at,
                }
            ),
        }


def links_of(links: Mapping[str, Iterable[str]] | None) -> set[Link]:
    """Every (field key, target id) of one version's `links`."""
    if not links:
        return set()
    return {(field_key, target) for field_key, targets in links.items() for target in targets}


def held(latest: StoredEntry | None, published: StoredEntry | None) -> set[Link]:
    """The links a source's reverse items must cover: its draft's and its published version's."""
    return links_of(latest.links if latest else None) | links_of(
        published.links if published else None
    )


@dataclass(frozen=True)
class RefChanges:
    """The reverse items a write puts (links it makes) and deletes (links it leaves stale)."""

    puts: list[TransactWriteItemTypeDef]
    deletes: list[TransactWriteItemTypeDef]


def changes(source: Source, before: set[Link], after: set[Link], table: str) -> RefChanges:
    """From the links a source held to the ones it holds: a Put per new link (the invariant
    needs every one in the transaction), a Delete per link no version holds any more."""
    puts: list[TransactWriteItemTypeDef] = [
        {"Put": {"TableName": table, "Item": source.item(link)}} for link in sorted(after - before)
    ]
    deletes: list[TransactWriteItemTypeDef] = [
        {"Delete": {"TableName": table, "Key": source.key(link)}} for link in sorted(before - after)
    ]
    return RefChanges(puts, deletes)
