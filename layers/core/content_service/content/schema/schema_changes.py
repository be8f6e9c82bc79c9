"""Changes of content types: create, replace, delete; each one TransactWriteItems with the
schema version it validated against (the layout and its conditions: `schema.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from content_service.audit.records import Actor, Target, record_put
from content_service.audit.type_changes import type_changes
from content_service.clock import Clock, SystemClock, iso_utc
from content_service.content.schema.model import (
    MAX_TYPES_PER_WORKSPACE,
    ContentType,
    FieldDef,
    ListLayout,
    TypeDefinition,
)
from content_service.content.schema.names import BUILTIN_TYPE_NAMES
from content_service.content.schema.schema import (
    SCHEMA_SK,
    TYPE_SK_PREFIX,
    get_schema,
    list_job_key,
    require_type_change,
    type_from_item,
    type_key,
    workspace_pk,
)
from content_service.content.schema.schema_validation import validated_fields
from content_service.content.store import store
from content_service.errors import Conflict, Forbidden, NotFound, ValidationFailed
from content_service.identity.principal import Caller
from content_service.storage import dynamo
from content_service.storage.edge_events import type_changed_put

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef


_ATTEMPTS = 5


def _version_update(workspace_id: str, read_version: int) -> TransactWriteItemTypeDef:
    return {
        "Update": {
            "TableName": store().table_name("schema"),
            "Key": dynamo.key(workspace_pk(workspace_id), SCHEMA_SK),
            "UpdateExpression": "SET version = if_not_exists(version, :zero) + :one",
            "ConditionExpression": "attribute_not_exists(pk) OR version = :read",
            "ExpressionAttributeValues": {
                ":zero": {"N": "0"},
                ":one": {"N": "1"},
                ":read": {"N": str(read_version)},
            },
        }
    }


def _definition_attributes(
    definition: TypeDefinition, fields: tuple[FieldDef, ...], title_field: str | None
) -> dict[str, Any]:
    return {
        "name": definition.name,
        "typeKind": definition.kind,
        "localized": definition.localized,
        "audienceGated": definition.audience_gated,
        "titleField": title_field,
        "fields": [f.to_storage() for f in fields],
        "listShards": definition.list_shards,
    }


def _requested_layout(definition: TypeDefinition, fields: tuple[FieldDef, ...]) -> ListLayout:
    return ListLayout(
        shards=definition.list_shards, sortable=tuple(sorted(f.key for f in fields if f.sortable))
    )


def _type_record(
    caller: Caller,
    change: str,
    subject: ContentType,
    after: ContentType | None,
    now: float,
) -> TransactWriteItemTypeDef:
    """The audit record of a change of `subject` (None `after`: deleted), in the change's
    transaction."""
    before = subject if subject is not after else None
    return record_put(
        subject.workspace_id,
        f"contentType.{change}",
        Actor.of(caller),
        Target("content_type", subject.name),
        now,
        type_changes(before, after) if after is not None else None,
    )


def _retrying(operation: Any) -> Any:
    """Runs a read-validate-write operation again when its transaction lost a race."""
    for _ in range(_ATTEMPTS):
        try:
            return operation()
        except dynamo.TransactionCancelled:
            continue
    raise Conflict("the content types changed concurrently; try again")


def create_type(
    caller: Caller, workspace_id: str, definition: TypeDefinition, clock: Clock | None = None
) -> ContentType:
    require_type_change(caller)
    if not caller.grants(definition.name):
        raise Forbidden(f"this token's grant set does not include {definition.name!r}")
    if definition.name in BUILTIN_TYPE_NAMES:
        raise Conflict(
            f"content type {definition.name!r} is built in (assets, under /api/v1/assets); "
            "choose another name"
        )
    moment = (clock or SystemClock()).now()
    now = iso_utc(moment)

    def attempt() -> ContentType:
        schema = get_schema(workspace_id)
        if definition.name in schema.types:
            raise Conflict(f"content type {definition.name!r} already exists")
        if len(schema.types) >= MAX_TYPES_PER_WORKSPACE:
            raise Conflict(f"a workspace holds at most {MAX_TYPES_PER_WORKSPACE} content types")
        fields, field_seq, title_field = validated_fields(definition, None, schema, caller)
        item = {
            "pk": workspace_pk(workspace_id),
            "sk": f"{TYPE_SK_PREFIX}{definition.name}",
            "entity": "content_type",
            **_definition_attributes(definition, fields, title_field),
            "revision": 1,
            "fieldSeq": field_seq,
            "entryCount": 0,
            "listLayout": _requested_layout(definition, fields).to_storage(),
            "listGen": 1,
            "createdAt": now,
            "updatedAt": now,
        }
        created = type_from_item(workspace_id, item)
        store().transact(
            [
                _version_update(workspace_id, schema.version),
                {
                    "Put": {
                        "TableName": store().table_name("schema"),
                        "Item": dynamo.encode(item),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
                _type_record(caller, "created", created, created, moment),
            ]
        )
        return created

    result: ContentType = _retrying(attempt)
    return result


@dataclass(frozen=True)
class _LayoutChange:
    """What a type change does to the list layout: attributes to set and remove, an extra
    condition, and the background job item to write (if any)."""

    sets: dict[str, Any]
    removes: tuple[str, ...]
    condition: str
    job: TransactWriteItemTypeDef | None
    layout: ListLayout
    next: ListLayout | None
    gen: int


def _layout_change(
    existing: ContentType, requested: ListLayout, workspace_id: str, now: str
) -> _LayoutChange:
    """At once on a type without entries; otherwise `listNext` and a job for the background
    (`content.lists.list_jobs`). Asking for the layout already being built changes nothing."""
    unchanged = _LayoutChange({}, (), "", None, existing.list_layout, existing.list_next, 0)
    if existing.list_next is None and requested == existing.list_layout:
        return unchanged
    if existing.list_next is not None and requested == existing.list_next:
        return unchanged
    gen = existing.list_gen + 1
    if existing.entry_count == 0:
        drop_job: TransactWriteItemTypeDef = {
            "Delete": {
                "TableName": store().table_name("schema"),
                "Key": list_job_key(workspace_id, existing.name),
            }
        }
        return _LayoutChange(
            {"listLayout": requested.to_storage(), "listGen": gen},
            ("listNext",),
            " AND entryCount = :zero",
            drop_job,
            requested,
            None,
            gen,
        )
    job = {
        **list_job_key(workspace_id, existing.name),
        **dynamo.encode(
            {"workspaceId": workspace_id, "typeName": existing.name, "gen": gen, "since": now}
        ),
    }
    return _LayoutChange(
        {"listNext": requested.to_storage(), "listGen": gen},
        (),
        "",
        {"Put": {"TableName": store().table_name("schema"), "Item": job}},
        existing.list_layout,
        requested,
        gen,
    )


def _type_update(
    workspace_id: str,
    existing: ContentType,
    attributes: Mapping[str, Any],
    change: _LayoutChange,
    shape_changed: bool,
) -> TransactWriteItemTypeDef:
    attributes = {**attributes, **change.sets}
    names = {f"#a{i}": attribute for i, attribute in enumerate(attributes)}
    values = {f":a{i}": dynamo.encode_value(v) for i, v in enumerate(attributes.values())}
    expression = (
        "SET "
        + ", ".join(f"#a{i} = :a{i}" for i in range(len(attributes)))
        + ", revision = revision + :one"
    )
    if change.removes:
        removed = {f"#r{i}": attribute for i, attribute in enumerate(change.removes)}
        names.update(removed)
        expression += " REMOVE " + ", ".join(removed)
    condition = "revision = :revision" + change.condition
    values.update({":revision": {"N": str(existing.revision)}, ":one": {"N": "1"}})
    if shape_changed and not change.condition:
        condition += " AND entryCount = :zero"
    if ":zero" in condition:
        values[":zero"] = {"N": "0"}
    return {
        "Update": {
            "TableName": store().table_name("schema"),
            "Key": type_key(workspace_id, existing.name),
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
    }


def _shape_change(definition: TypeDefinition, existing: ContentType) -> bool:
    """Whether the PUT changes `kind`, `localized` or `audienceGated`: a 409 while the type has
    entries, since its stored entries were written for the old shape."""
    changed = (
        definition.kind != existing.kind
        or definition.localized != existing.localized
        or definition.audience_gated != existing.audience_gated
    )
    if changed and existing.entry_count > 0:
        raise Conflict(
            "kind, localized and audienceGated cannot change while the type has entries "
            f"({existing.entry_count}, trashed included)"
        )
    return changed


def _replaced(
    existing: ContentType,
    definition: TypeDefinition,
    fields: tuple[FieldDef, ...],
    field_seq: int,
    title_field: str | None,
    now: str,
    change: _LayoutChange,
) -> ContentType:
    """The type as the PUT just stored it."""
    return replace(
        existing,
        kind="single" if definition.kind == "single" else "collection",
        localized=definition.localized,
        audience_gated=definition.audience_gated,
        title_field=title_field,
        fields=fields,
        revision=existing.revision + 1,
        field_seq=field_seq,
        updated_at=now,
        list_shards=definition.list_shards,
        list_layout=change.layout,
        list_next=change.next,
        list_gen=change.gen or existing.list_gen,
        _by_name={},
        _by_key={},
    )


def replace_type(
    caller: Caller,
    workspace_id: str,
    name: str,
    definition: TypeDefinition,
    clock: Clock | None = None,
) -> ContentType:
    """PUT: add and remove fields, change required, enum values, titleField, sortable flags
    and listShards.

    Changing an existing field's type, target or cardinality is a 409, and so is changing
    `kind`, `localized` or `audienceGated` while the type has entries. A new list layout
    (sortable flags, shards) applies at once to a type without entries; otherwise existing
    entries are indexed in the background and lists switch when that is done.
    """
    require_type_change(caller)
    if definition.name != name:
        raise ValidationFailed(
            "renaming a content type is not supported",
            details=[{"location": "name", "problem": f"must be {name!r}"}],
        )
    moment = (clock or SystemClock()).now()
    now = iso_utc(moment)

    def attempt() -> ContentType:
        schema = get_schema(workspace_id)
        existing = schema.types.get(name) if caller.grants(name) else None
        if existing is None:
            raise NotFound(f"content type {name!r} not found")
        fields, field_seq, title_field = validated_fields(definition, existing, schema, caller)
        shape_changed = _shape_change(definition, existing)
        attributes = {
            **_definition_attributes(definition, fields, title_field),
            "fieldSeq": field_seq,
            "updatedAt": now,
        }
        change = _layout_change(existing, _requested_layout(definition, fields), workspace_id, now)
        replaced = _replaced(existing, definition, fields, field_seq, title_field, now, change)
        items: list[TransactWriteItemTypeDef] = [
            _version_update(workspace_id, schema.version),
            _type_update(workspace_id, existing, attributes, change, shape_changed),
            type_changed_put(workspace_id, name, moment),
            _type_record(caller, "replaced", existing, replaced, moment),
        ]
        if change.job is not None:
            items.append(change.job)
        store().transact(items)
        return replaced

    result: ContentType = _retrying(attempt)
    return result


def delete_type(caller: Caller, workspace_id: str, name: str, clock: Clock | None = None) -> None:
    """Refused (409) while another type relates to it or it still has entries, trashed too."""
    require_type_change(caller)

    def attempt() -> None:
        schema = get_schema(workspace_id)
        existing = schema.types.get(name) if caller.grants(name) else None
        if existing is None:
            raise NotFound(f"content type {name!r} not found")
        relating = sorted(
            other.name
            for other in schema.types.values()
            if other.name != name and any(f.target == name for f in other.relation_fields)
        )
        if relating:
            shown = [r for r in relating if caller.grants(r)]
            raise Conflict(
                f"content type {name!r} is the target of relations in other content types; "
                "remove those fields first",
                details={"relatedFrom": shown} if shown else None,
            )
        if existing.entry_count > 0:
            raise Conflict(
                f"content type {name!r} still has {existing.entry_count} entries "
                "(trashed included); delete and purge them first"
            )
        moment = (clock or SystemClock()).now()
        store().transact(
            [
                _version_update(workspace_id, schema.version),
                type_changed_put(workspace_id, name, moment),
                _type_record(caller, "deleted", existing, None, moment),
                {
                    "Delete": {
                        "TableName": store().table_name("schema"),
                        "Key": type_key(workspace_id, name),
                        "ConditionExpression": "revision = :revision AND entryCount = :zero",
                        "ExpressionAttributeValues": {
                            ":revision": {"N": str(existing.revision)},
                            ":zero": {"N": "0"},
                        },
                    }
                },
                {
                    "Delete": {
                        "TableName": store().table_name("schema"),
                        "Key": list_job_key(workspace_id, name),
                    }
                },
            ]
        )

    _retrying(attempt)
