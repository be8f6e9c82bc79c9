"""Content-type definitions: the fields of a type and what each field type allows.

A `ContentType` is what the service (and the GraphQL adapter) reads; `TypeDefinition` is what a
caller asks for when creating or replacing one. Every field has an internal storage `key`
(`f1`, `f2`, ...) assigned when the field is created and never reused, so a field removed and
later re-added under the same name starts empty instead of resurrecting old values, links or
uniqueness claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Literal, get_args

from content_service.content.schema.names import GraphQLNames, graphql_names

FieldType = Literal[
    "string",
    "text",
    "richtext",
    "integer",
    "float",
    "boolean",
    "datetime",
    "date",
    "enum",
    "json",
    "relation",
    "asset",
]
FIELD_TYPES: tuple[str, ...] = get_args(FieldType)
# Field types whose values go into an entry's summary (filterable and sortable in lists).
SCALAR_TYPES = frozenset({"string", "integer", "float", "boolean", "datetime", "date", "enum"})
Cardinality = Literal["one-to-one", "many-to-one", "one-to-many", "many-to-many"]
CARDINALITIES: tuple[str, ...] = get_args(Cardinality)
# A target may be linked from at most one source through the field.
EXCLUSIVE_CARDINALITIES = frozenset({"one-to-one", "one-to-many"})
# The source holds at most one target through the field.
TO_ONE_CARDINALITIES = frozenset({"one-to-one", "many-to-one"})
Kind = Literal["collection", "single"]
# An `asset` field links assets (entries of the built-in type `asset`) as a relation does; its
# cardinality says one or many, and is kept internally as the relation's.
ASSET_TARGET = "asset"
ASSET_CARDINALITIES: dict[str, Cardinality] = {"one": "many-to-one", "many": "many-to-many"}
MAX_ACCEPT_PATTERNS = 20

MAX_FIELDS_PER_TYPE = 100
MAX_TYPES_PER_WORKSPACE = 200
MAX_ENUM_VALUES = 100
# Sortable fields per type: each adds index items to every write (docs/content.md, "Lists").
MAX_SORTABLE_FIELDS = 3
MAX_LIST_SHARDS = 8


@dataclass(frozen=True)
class FieldSpec:
    """A field as a caller defines it."""

    name: str
    type: str
    required: bool = False
    values: tuple[str, ...] = ()
    target: str | None = None
    cardinality: str | None = None
    sortable: bool = False
    accept: tuple[str, ...] = ()


@dataclass(frozen=True)
class TypeDefinition:
    """A content type as a caller defines it (POST and PUT bodies)."""

    name: str
    kind: str = "collection"
    localized: bool = False
    audience_gated: bool = False
    title_field: str | None = None
    fields: tuple[FieldSpec, ...] = ()
    list_shards: int = 1


@dataclass(frozen=True)
class ListLayout:
    """What a type's list index holds: the sortable fields (by storage key) and the number of
    shards each partition is split into. `docs/content.md` ("Lists") describes the items."""

    shards: int = 1
    sortable: tuple[str, ...] = ()

    def to_storage(self) -> dict[str, Any]:
        return {"shards": self.shards, "sortable": list(self.sortable)}

    @classmethod
    def from_storage(cls, stored: Mapping[str, Any] | None) -> ListLayout:
        if not stored:
            return cls()
        return cls(
            shards=int(stored.get("shards", 1)),
            sortable=tuple(sorted(str(k) for k in stored.get("sortable") or ())),
        )


@dataclass(frozen=True)
class FieldDef:
    name: str
    type: FieldType
    key: str
    required: bool = False
    values: tuple[str, ...] = ()
    target: str | None = None
    cardinality: Cardinality | None = None
    sortable: bool = False
    accept: tuple[str, ...] = ()
    """An asset field's media types (`image/*`, `application/pdf`); empty: any."""

    @property
    def is_relation(self) -> bool:
        """Relations and asset fields: both hold links, read and written the same way."""
        return self.type in ("relation", "asset")

    @property
    def is_asset(self) -> bool:
        return self.type == "asset"

    def accepts(self, content_type: str) -> bool:
        """Whether an asset of `content_type` may be linked through this field."""
        kind = content_type.lower()
        return not self.accept or any(
            kind == pattern or (pattern.endswith("/*") and kind.startswith(pattern[:-1]))
            for pattern in self.accept
        )

    @property
    def is_scalar(self) -> bool:
        return self.type in SCALAR_TYPES

    @property
    def to_one(self) -> bool:
        return self.cardinality in TO_ONE_CARDINALITIES

    @property
    def exclusive(self) -> bool:
        return self.cardinality in EXCLUSIVE_CARDINALITIES

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.name, "type": self.type, "required": self.required}
        if self.type == "enum":
            body["values"] = list(self.values)
        if self.is_asset:
            body["cardinality"] = "one" if self.to_one else "many"
            if self.accept:
                body["accept"] = list(self.accept)
        elif self.is_relation:
            body["target"] = self.target
            body["cardinality"] = self.cardinality
        if self.sortable:
            body["sortable"] = True
        return body

    def to_storage(self) -> dict[str, Any]:
        return {**self.to_json(), "key": self.key}

    @classmethod
    def from_storage(cls, stored: Mapping[str, Any]) -> FieldDef:
        asset = stored["type"] == "asset"
        return cls(
            name=str(stored["name"]),
            type=stored["type"],
            key=str(stored["key"]),
            required=bool(stored.get("required", False)),
            values=tuple(stored.get("values") or ()),
            target=ASSET_TARGET if asset else stored.get("target"),
            cardinality=(
                ASSET_CARDINALITIES.get(str(stored.get("cardinality")))
                if asset
                else stored.get("cardinality")
            ),
            sortable=bool(stored.get("sortable", False)),
            accept=tuple(stored.get("accept") or ()),
        )


@dataclass(frozen=True)
class ContentType:
    """A stored content type of one workspace."""

    workspace_id: str
    name: str
    kind: Kind
    localized: bool
    audience_gated: bool
    title_field: str | None
    fields: tuple[FieldDef, ...]
    revision: int
    field_seq: int
    created_at: str
    updated_at: str
    entry_count: int = 0
    list_shards: int = 1
    """The shards asked for; `list_layout` is what the index holds now."""
    list_layout: ListLayout = ListLayout()
    list_next: ListLayout | None = None
    """The layout being built in the background (writers keep both), or None."""
    list_gen: int = 0
    """Bumped by every change of the requested layout; the background job works for one."""
    locales: frozenset[str] = frozenset()
    """Every locale an entry of the type was ever created in (the background job walks them)."""
    _by_name: dict[str, FieldDef] = dataclass_field(default_factory=dict, compare=False, repr=False)
    _by_key: dict[str, FieldDef] = dataclass_field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({f.name: f for f in self.fields})
        self._by_key.update({f.key: f for f in self.fields})

    @classmethod
    def defined(
        cls, workspace_id: str, name: str, fields: tuple[FieldDef, ...], title_field: str
    ) -> ContentType:
        """A collection type as its definition says, never stored: no stamps, no list index
        (the built-in asset type as GraphQL sees it, without reading storage)."""
        return cls(
            workspace_id=workspace_id,
            name=name,
            kind="collection",
            localized=False,
            audience_gated=False,
            title_field=title_field,
            fields=fields,
            revision=1,
            field_seq=len(fields),
            created_at="",
            updated_at="",
        )

    @property
    def graphql(self) -> GraphQLNames:
        return graphql_names(self.name)

    @property
    def is_single(self) -> bool:
        return self.kind == "single"

    def field(self, name: str) -> FieldDef | None:
        return self._by_name.get(name)

    def field_by_key(self, key: str) -> FieldDef | None:
        return self._by_key.get(key)

    @property
    def requested_layout(self) -> ListLayout:
        """The layout the definition asks for: its sortable fields and shards."""
        return ListLayout(
            shards=self.list_shards,
            sortable=tuple(sorted(f.key for f in self.fields if f.sortable)),
        )

    @property
    def write_layouts(self) -> tuple[ListLayout, ...]:
        """The layouts every write keeps: the one lists read, and the one being built."""
        if self.list_next is None or self.list_next == self.list_layout:
            return (self.list_layout,)
        return (self.list_layout, self.list_next)

    def list_ready(self, definition: FieldDef) -> bool:
        """Whether lists may sort and filter on `definition` through the index."""
        return definition.key in self.list_layout.sortable and definition.is_scalar

    @property
    def value_fields(self) -> tuple[FieldDef, ...]:
        """Fields whose values appear in an entry's `values` (every type but relations)."""
        return tuple(f for f in self.fields if not f.is_relation)

    @property
    def relation_fields(self) -> tuple[FieldDef, ...]:
        return tuple(f for f in self.fields if f.is_relation)

    @property
    def scalar_fields(self) -> tuple[FieldDef, ...]:
        return tuple(f for f in self.fields if f.is_scalar)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "localized": self.localized,
            "audienceGated": self.audience_gated,
            "titleField": self.title_field,
            "fields": [f.to_json() for f in self.fields],
            "listIndex": {
                "shards": self.list_layout.shards,
                "sortable": [f.name for f in self.fields if f.key in self.list_layout.sortable],
                "state": "ready" if self.list_next is None else "building",
            },
            "listShards": self.list_shards,
            "graphql": self.graphql.to_json(),
            "version": self.revision,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
        }


@dataclass(frozen=True)
class WorkspaceSchema:
    """Every content type of a workspace and the workspace's schema version.

    `version` changes whenever any type of the workspace is created, changed or deleted: a
    GraphQL schema cache keyed by (workspace, grant set, version) never serves a stale shape.
    """

    workspace_id: str
    version: int
    types: Mapping[str, ContentType]
