"""Content types of a workspace: validation, storage in the schema table, the schema version.

Layout (schema table, next to the workspace's own record):
- `WORKSPACE#<ws>` / `TYPE#<name>`: one content type, with its fields (each with a storage key),
  `revision` (bumped by every change of the definition), `fieldSeq` (the last field key issued)
  and `entryCount` (entries of the type, trashed included; kept by the entry transactions).
- `WORKSPACE#<ws>` / `SCHEMA`: `version`, bumped in the same transaction as every type change.
- `LISTJOBS` / `<ws>#<name>`: a list index being built in the background (`content.list_jobs`),
  written in the transaction of the type change that asks for it.

A type's list layout (its sortable fields and shards, `content.list_index`) changes with its
definition: at once when the type has no entries, otherwise as `listNext`, which writers keep
beside the current layout while the background job indexes the existing entries; lists keep
reading the current layout until the job switches them over.

Every type change is one TransactWriteItems: the type item and the version item, conditioned on
the version read before validating. Two concurrent changes cannot both pass a check that spans
types (a derived GraphQL name collision, a relation to a type being deleted): the second one's
condition fails, and it is validated again against the new state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from content_service.clock import Clock, SystemClock, iso_utc
from content_service.content.model import (
    CARDINALITIES,
    FIELD_TYPES,
    MAX_ENUM_VALUES,
    MAX_FIELDS_PER_TYPE,
    MAX_LIST_SHARDS,
    MAX_SORTABLE_FIELDS,
    MAX_TYPES_PER_WORKSPACE,
    SCALAR_TYPES,
    ContentType,
    FieldDef,
    FieldSpec,
    ListLayout,
    TypeDefinition,
    WorkspaceSchema,
)
from content_service.content.names import (
    MAX_NAME_LENGTH,
    NAME_PATTERN,
    RESERVED_GRAPHQL_TYPE_NAMES,
    field_name_problem,
    graphql_collision,
    graphql_names,
    is_valid_name,
)
from content_service.errors import Conflict, Forbidden, NotFound, ValidationFailed
from content_service.identity.principal import Caller
from content_service.storage import dynamo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

ENUM_VALUE_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"
_ENUM_VALUE = re.compile(ENUM_VALUE_PATTERN)
_ATTEMPTS = 5
SCHEMA_SK = "SCHEMA"
TYPE_SK_PREFIX = "TYPE#"
LIST_JOBS_PK = "LISTJOBS"


def workspace_pk(workspace_id: str) -> str:
    return f"WORKSPACE#{workspace_id}"


def type_key(workspace_id: str, name: str) -> dict[str, Any]:
    return dynamo.key(workspace_pk(workspace_id), f"{TYPE_SK_PREFIX}{name}")


def list_job_key(workspace_id: str, name: str) -> dict[str, Any]:
    return dynamo.key(LIST_JOBS_PK, f"{workspace_id}#{name}")


# ---------------------------------------------------------------------------------------------
# Reading


def _from_item(workspace_id: str, item: Mapping[str, Any]) -> ContentType:
    return ContentType(
        workspace_id=workspace_id,
        name=str(item["name"]),
        kind="single" if item.get("typeKind") == "single" else "collection",
        localized=bool(item.get("localized")),
        audience_gated=bool(item.get("audienceGated")),
        title_field=item.get("titleField"),
        fields=tuple(FieldDef.from_storage(f) for f in item.get("fields") or ()),
        revision=int(item.get("revision", 1)),
        field_seq=int(item.get("fieldSeq", 0)),
        created_at=str(item.get("createdAt", "")),
        updated_at=str(item.get("updatedAt", "")),
        entry_count=int(item.get("entryCount", 0)),
        list_shards=int(item.get("listShards", 1)),
        list_layout=ListLayout.from_storage(item.get("listLayout")),
        list_next=ListLayout.from_storage(item["listNext"]) if item.get("listNext") else None,
        list_gen=int(item.get("listGen", 0)),
        locales=frozenset(str(locale) for locale in item.get("locales") or ()),
    )


def type_from_item(workspace_id: str, item: Mapping[str, Any]) -> ContentType:
    """A decoded type item (for readers that fetch it beside other items)."""
    return _from_item(workspace_id, item)


def get_type(workspace_id: str, name: str) -> ContentType | None:
    """One content type, strongly consistent; None when the workspace has no such type."""
    if not is_valid_name(name):
        return None
    item = dynamo.get_item(dynamo.tables().schema, type_key(workspace_id, name))
    return _from_item(workspace_id, item) if item else None


def get_types(workspace_id: str, names: Iterable[str]) -> dict[str, ContentType]:
    """Several types at once (one BatchGetItem); unknown names are absent."""
    wanted = sorted({n for n in names if is_valid_name(n)})
    if not wanted:
        return {}
    items = dynamo.batch_get(dynamo.tables().schema, [type_key(workspace_id, n) for n in wanted])
    found = (_from_item(workspace_id, item) for item in items)
    return {t.name: t for t in found}


def get_schema(workspace_id: str) -> WorkspaceSchema:
    """Every type of the workspace and its schema version, in one strongly consistent Query."""
    types: dict[str, ContentType] = {}
    version = 0
    for page in dynamo.query_pages(
        {
            "TableName": dynamo.tables().schema,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": workspace_pk(workspace_id)}},
            "ConsistentRead": True,
        }
    ):
        for raw in page:
            item = dynamo.decode(raw)
            sk = str(item["sk"])
            if sk == SCHEMA_SK:
                version = int(item.get("version", 0))
            elif sk.startswith(TYPE_SK_PREFIX):
                content_type = _from_item(workspace_id, item)
                types[content_type.name] = content_type
    return WorkspaceSchema(workspace_id=workspace_id, version=version, types=types)


def schema_version(workspace_id: str) -> int:
    """The workspace's schema version alone (one GetItem): cheap enough to check per request."""
    item = dynamo.get_item(
        dynamo.tables().schema,
        dynamo.key(workspace_pk(workspace_id), SCHEMA_SK),
        dynamo.Projection.of([["version"]]),
    )
    return int(item["version"]) if item else 0


def _require_read(caller: Caller) -> None:
    if not caller.can_read:
        raise Forbidden("this token lacks the content:read scope")


def _require_type_change(caller: Caller) -> None:
    if not caller.can_change_types:
        raise Forbidden(
            "changing content types needs a full token with content:write, or the admin role"
        )


def require_type(caller: Caller, workspace_id: str, name: str) -> ContentType:
    """The type as `caller` may see it: unknown and ungranted types are the same 404."""
    _require_read(caller)
    content_type = get_type(workspace_id, name) if caller.grants(name) else None
    if content_type is None:
        raise NotFound(f"content type {name!r} not found")
    return content_type


def require_type_with(
    caller: Caller, workspace_id: str, name: str, keys: Iterable[dict[str, Any]]
) -> tuple[ContentType, list[dict[str, Any]]]:
    """`require_type`, reading `keys` of the schema table in the same BatchGetItem (a list
    reads its type and its count items in one request); the other items found come back
    decoded, in no particular order."""
    _require_read(caller)
    if not caller.grants(name) or not is_valid_name(name):
        raise NotFound(f"content type {name!r} not found")
    wanted = type_key(workspace_id, name)
    found = dynamo.batch_get(dynamo.tables().schema, [wanted, *keys])
    sk = wanted["sk"]["S"]
    types = [item for item in found if item.get("sk") == sk]
    if not types:
        raise NotFound(f"content type {name!r} not found")
    return _from_item(workspace_id, types[0]), [item for item in found if item.get("sk") != sk]


def visible_schema(caller: Caller, workspace_id: str) -> WorkspaceSchema:
    """The workspace schema narrowed to the caller's grant set (what GraphQL should build)."""
    _require_read(caller)
    schema = get_schema(workspace_id)
    return WorkspaceSchema(
        workspace_id=workspace_id,
        version=schema.version,
        types={n: t for n, t in schema.types.items() if caller.grants(n)},
    )


def list_types(caller: Caller, workspace_id: str) -> list[ContentType]:
    return sorted(visible_schema(caller, workspace_id).types.values(), key=lambda t: t.name)


# ---------------------------------------------------------------------------------------------
# Validation


def _problem(problems: list[dict[str, str]], location: str, problem: str) -> None:
    problems.append({"location": location, "problem": problem})


def _validate_field(
    index: int,
    spec: FieldSpec,
    type_name: str,
    schema: WorkspaceSchema,
    caller: Caller,
    problems: list[dict[str, str]],
) -> None:
    where = f"fields[{index}]"
    name_problem = field_name_problem(spec.name)
    if name_problem:
        _problem(problems, f"{where}.name", f"{spec.name!r} {name_problem}")
    if spec.type not in FIELD_TYPES:
        _problem(problems, f"{where}.type", f"must be one of {', '.join(FIELD_TYPES)}")
        return
    if spec.type == "enum":
        _enum_problems(where, spec.values, problems)
    elif spec.values:
        _problem(problems, f"{where}.values", "only an enum field takes values")
    if spec.type == "relation":
        _relation_problems(where, spec, type_name, schema, caller, problems)
    else:
        if spec.target is not None:
            _problem(problems, f"{where}.target", "only a relation field takes a target")
        if spec.cardinality is not None:
            _problem(problems, f"{where}.cardinality", "only a relation field has a cardinality")


def _enum_problems(where: str, values: Sequence[str], problems: list[dict[str, str]]) -> None:
    if not values:
        _problem(problems, f"{where}.values", "an enum field needs at least one value")
    if len(values) > MAX_ENUM_VALUES:
        _problem(problems, f"{where}.values", f"at most {MAX_ENUM_VALUES} values")
    if any(not isinstance(v, str) or not _ENUM_VALUE.match(v) for v in values):
        _problem(problems, f"{where}.values", f"values must match {ENUM_VALUE_PATTERN}")
    if len(set(values)) != len(values):
        _problem(problems, f"{where}.values", "values must be unique")


def _relation_problems(
    where: str,
    spec: FieldSpec,
    type_name: str,
    schema: WorkspaceSchema,
    caller: Caller,
    problems: list[dict[str, str]],
) -> None:
    """The cardinality, and a target the caller may see (or the type itself)."""
    if spec.cardinality not in CARDINALITIES:
        _problem(problems, f"{where}.cardinality", f"must be one of {', '.join(CARDINALITIES)}")
    target = spec.target
    if not target:
        _problem(problems, f"{where}.target", "a relation needs a target content type")
    elif target != type_name and (target not in schema.types or not caller.grants(target)):
        _problem(problems, f"{where}.target", f"content type {target!r} not found")


def _list_problems(definition: TypeDefinition, problems: list[dict[str, str]]) -> None:
    """Sortable flags (scalar fields, a few per type) and listShards."""
    for index, spec in enumerate(definition.fields):
        if spec.sortable and spec.type not in SCALAR_TYPES:
            _problem(
                problems,
                f"fields[{index}].sortable",
                "only string, integer, float, boolean, datetime, date and enum fields are sortable",
            )
    if sum(1 for spec in definition.fields if spec.sortable) > MAX_SORTABLE_FIELDS:
        _problem(
            problems,
            "fields",
            f"at most {MAX_SORTABLE_FIELDS} fields of a type are sortable (each one adds list "
            "index items to every write)",
        )
    shards = definition.list_shards
    if (
        isinstance(shards, bool)
        or not isinstance(shards, int)
        or not 1 <= shards <= MAX_LIST_SHARDS
    ):
        _problem(problems, "listShards", f"must be an integer from 1 to {MAX_LIST_SHARDS}")


def _name_problems(name: str, schema: WorkspaceSchema, problems: list[dict[str, str]]) -> None:
    """A snake_case name whose GraphQL names are neither reserved nor another type's."""
    if not is_valid_name(name):
        _problem(
            problems,
            "name",
            f"must be snake_case ({NAME_PATTERN}) and at most {MAX_NAME_LENGTH} characters",
        )
    elif graphql_names(name).type_name in RESERVED_GRAPHQL_TYPE_NAMES:
        _problem(
            problems,
            "name",
            f"derives the reserved GraphQL type name {graphql_names(name).type_name!r}",
        )
    else:
        other = graphql_collision(name, [t for t in schema.types if t != name])
        if other is not None:
            mine, theirs = graphql_names(name), graphql_names(other)
            _problem(
                problems,
                "name",
                f"its GraphQL names ({mine.type_name}, {mine.single_field}, {mine.list_field}) "
                f"collide with those of content type {other!r} ({theirs.type_name}, "
                f"{theirs.single_field}, {theirs.list_field})",
            )


def _changed_fields(definition: TypeDefinition, existing: ContentType) -> list[dict[str, str]]:
    """Existing fields whose type, target or cardinality the definition would change."""
    conflicts: list[dict[str, str]] = []
    for index, spec in enumerate(definition.fields):
        before = existing.field(spec.name)
        for attribute in ("type", "target", "cardinality") if before is not None else ():
            if getattr(before, attribute) != getattr(spec, attribute):
                conflicts.append(
                    {
                        "location": f"fields[{index}].{attribute}",
                        "problem": f"field {spec.name!r} exists with {attribute} "
                        f"{getattr(before, attribute)!r}; changing it is not supported "
                        "(add a new field instead)",
                    }
                )
    return conflicts


def _validated_fields(
    definition: TypeDefinition,
    existing: ContentType | None,
    schema: WorkspaceSchema,
    caller: Caller,
) -> tuple[tuple[FieldDef, ...], int, str | None]:
    """The stored fields (keys kept for existing names, fresh ones for new), fieldSeq, title."""
    problems: list[dict[str, str]] = []
    name = definition.name
    _name_problems(name, schema, problems)
    if definition.kind not in ("collection", "single"):
        _problem(problems, "kind", "must be 'collection' or 'single'")
    if len(definition.fields) > MAX_FIELDS_PER_TYPE:
        _problem(problems, "fields", f"a content type has at most {MAX_FIELDS_PER_TYPE} fields")
    _list_problems(definition, problems)
    seen: set[str] = set()
    for index, spec in enumerate(definition.fields):
        _validate_field(index, spec, name, schema, caller, problems)
        if spec.name in seen:
            _problem(problems, f"fields[{index}].name", f"duplicate field name {spec.name!r}")
        seen.add(spec.name)
    string_fields = [f.name for f in definition.fields if f.type == "string"]
    title_field = definition.title_field
    if title_field is None:
        title_field = string_fields[0] if string_fields else None
    elif title_field not in string_fields:
        _problem(problems, "titleField", "must name a string field of the type")
    if problems:
        raise ValidationFailed("the content type definition is invalid", details=problems)
    conflicts = _changed_fields(definition, existing) if existing is not None else []
    if conflicts:
        raise Conflict("the change would alter existing fields", details=conflicts)

    field_seq = existing.field_seq if existing is not None else 0
    fields: list[FieldDef] = []
    for spec in definition.fields:
        before = existing.field(spec.name) if existing is not None else None
        if before is not None:
            storage_key = before.key
        else:
            field_seq += 1
            storage_key = f"f{field_seq}"
        fields.append(
            FieldDef(
                name=spec.name,
                type=spec.type,  # type: ignore[arg-type]
                key=storage_key,
                required=spec.required,
                values=tuple(spec.values),
                target=spec.target,
                cardinality=spec.cardinality,  # type: ignore[arg-type]
                sortable=spec.sortable,
            )
        )
    return tuple(fields), field_seq, title_field


# ---------------------------------------------------------------------------------------------
# Writing


def _version_update(workspace_id: str, read_version: int) -> TransactWriteItemTypeDef:
    return {
        "Update": {
            "TableName": dynamo.tables().schema,
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
    _require_type_change(caller)
    if not caller.grants(definition.name):
        raise Forbidden(f"this token's grant set does not include {definition.name!r}")
    now = iso_utc((clock or SystemClock()).now())

    def attempt() -> ContentType:
        schema = get_schema(workspace_id)
        if definition.name in schema.types:
            raise Conflict(f"content type {definition.name!r} already exists")
        if len(schema.types) >= MAX_TYPES_PER_WORKSPACE:
            raise Conflict(f"a workspace holds at most {MAX_TYPES_PER_WORKSPACE} content types")
        fields, field_seq, title_field = _validated_fields(definition, None, schema, caller)
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
        dynamo.transact(
            [
                _version_update(workspace_id, schema.version),
                {
                    "Put": {
                        "TableName": dynamo.tables().schema,
                        "Item": dynamo.encode(item),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )
        return _from_item(workspace_id, item)

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
    (`content.list_jobs`). Asking for the layout already being built changes nothing."""
    unchanged = _LayoutChange({}, (), "", None, existing.list_layout, existing.list_next, 0)
    if existing.list_next is None and requested == existing.list_layout:
        return unchanged
    if existing.list_next is not None and requested == existing.list_next:
        return unchanged
    gen = existing.list_gen + 1
    if existing.entry_count == 0:
        drop_job: TransactWriteItemTypeDef = {
            "Delete": {
                "TableName": dynamo.tables().schema,
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
        {"Put": {"TableName": dynamo.tables().schema, "Item": job}},
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
            "TableName": dynamo.tables().schema,
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
    _require_type_change(caller)
    if definition.name != name:
        raise ValidationFailed(
            "renaming a content type is not supported",
            details=[{"location": "name", "problem": f"must be {name!r}"}],
        )
    now = iso_utc((clock or SystemClock()).now())

    def attempt() -> ContentType:
        schema = get_schema(workspace_id)
        existing = schema.types.get(name) if caller.grants(name) else None
        if existing is None:
            raise NotFound(f"content type {name!r} not found")
        fields, field_seq, title_field = _validated_fields(definition, existing, schema, caller)
        shape_changed = _shape_change(definition, existing)
        attributes = {
            **_definition_attributes(definition, fields, title_field),
            "fieldSeq": field_seq,
            "updatedAt": now,
        }
        change = _layout_change(existing, _requested_layout(definition, fields), workspace_id, now)
        items: list[TransactWriteItemTypeDef] = [
            _version_update(workspace_id, schema.version),
            _type_update(workspace_id, existing, attributes, change, shape_changed),
        ]
        if change.job is not None:
            items.append(change.job)
        dynamo.transact(items)
        return _replaced(existing, definition, fields, field_seq, title_field, now, change)

    result: ContentType = _retrying(attempt)
    return result


def delete_type(caller: Caller, workspace_id: str, name: str) -> None:
    """Refused (409) while another type relates to it or it still has entries, trashed too."""
    _require_type_change(caller)

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
        dynamo.transact(
            [
                _version_update(workspace_id, schema.version),
                {
                    "Delete": {
                        "TableName": dynamo.tables().schema,
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
                        "TableName": dynamo.tables().schema,
                        "Key": list_job_key(workspace_id, name),
                    }
                },
            ]
        )

    _retrying(attempt)
