"""Validation of a content type's definition against its workspace's schema (a create or a
replace): field names and types, enum values, relations, list layout, and the type changes
refused while entries exist. Problems are gathered, so one 422 names them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from content_service.content.schema.model import (
    ASSET_CARDINALITIES,
    ASSET_TARGET,
    CARDINALITIES,
    FIELD_TYPES,
    MAX_ACCEPT_PATTERNS,
    MAX_ENUM_VALUES,
    MAX_FIELDS_PER_TYPE,
    MAX_LIST_SHARDS,
    MAX_SORTABLE_FIELDS,
    SCALAR_TYPES,
    ContentType,
    FieldDef,
    FieldSpec,
    TypeDefinition,
    WorkspaceSchema,
)
from content_service.content.schema.names import (
    MAX_NAME_LENGTH,
    NAME_PATTERN,
    RESERVED_GRAPHQL_TYPE_NAMES,
    field_name_problem,
    graphql_collision,
    graphql_names,
    is_valid_name,
)
from content_service.errors import Conflict, ValidationFailed
from content_service.identity.principal import Caller

if TYPE_CHECKING:
    pass


ENUM_VALUE_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"
_ENUM_VALUE = re.compile(ENUM_VALUE_PATTERN)
ACCEPT_PATTERN = r"^[a-z]+/(\*|[a-z0-9][a-z0-9.+-]*)$"
_ACCEPT = re.compile(ACCEPT_PATTERN)


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
    if spec.type != "asset" and spec.accept:
        _problem(problems, f"{where}.accept", "only an asset field takes accept")
    if spec.type == "relation":
        _relation_problems(where, spec, type_name, schema, caller, problems)
    elif spec.type == "asset":
        _asset_problems(where, spec, problems)
    else:
        if spec.target is not None:
            _problem(problems, f"{where}.target", "only a relation field takes a target")
        if spec.cardinality is not None:
            _problem(problems, f"{where}.cardinality", "only a relation field has a cardinality")


def _asset_problems(where: str, spec: FieldSpec, problems: list[dict[str, str]]) -> None:
    """An asset field: `one` or `many`, no target (assets are the built-in type), and media
    type patterns such as `image/*`."""
    if spec.cardinality is not None and spec.cardinality not in ASSET_CARDINALITIES:
        _problem(problems, f"{where}.cardinality", "an asset field's is one or many")
    if spec.target is not None:
        _problem(problems, f"{where}.target", "an asset field links assets: it takes no target")
    if len(spec.accept) > MAX_ACCEPT_PATTERNS:
        _problem(problems, f"{where}.accept", f"at most {MAX_ACCEPT_PATTERNS} media types")
    if any(not isinstance(a, str) or not _ACCEPT.match(a) for a in spec.accept):
        _problem(
            problems,
            f"{where}.accept",
            "each must be a media type in lower case (`image/png`) or a family (`image/*`)",
        )


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
        shown = before.to_json() if before is not None else {}
        for attribute in ("type", "target", "cardinality") if before is not None else ():
            if shown.get(attribute) != _as_asked(spec, attribute):
                conflicts.append(
                    {
                        "location": f"fields[{index}].{attribute}",
                        "problem": f"field {spec.name!r} exists with {attribute} "
                        f"{shown.get(attribute)!r}; changing it is not supported "
                        "(add a new field instead)",
                    }
                )
    return conflicts


def _as_asked(spec: FieldSpec, attribute: str) -> object:
    """The attribute as the stored field shows it (an asset field is `one` unless asked)."""
    value = getattr(spec, attribute)
    if spec.type == "asset" and attribute == "cardinality":
        return value or "one"
    return value


def validated_fields(
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
        fields.append(_field_def(spec, storage_key))
    return tuple(fields), field_seq, title_field


def _field_def(spec: FieldSpec, storage_key: str) -> FieldDef:
    asset = spec.type == "asset"
    return FieldDef(
        name=spec.name,
        type=spec.type,  # type: ignore[arg-type]
        key=storage_key,
        required=spec.required,
        values=tuple(spec.values),
        target=ASSET_TARGET if asset else spec.target,
        cardinality=(
            ASSET_CARDINALITIES[spec.cardinality or "one"] if asset else spec.cardinality  # type: ignore[arg-type]
        ),
        sortable=spec.sortable,
        accept=tuple(dict.fromkeys(spec.accept)),
    )
