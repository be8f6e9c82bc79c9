"""Content types: what a type is (`model`), its names and the GraphQL names derived from them
(`names`), how the schema table stores types and reading them (`schema`), validating a definition
(`schema_validation`) and changing types (`schema_changes`).

Every other sub-package reads types from here; this one imports none of them. Other packages
import only the names below; each loads its module on first use (`content_service.lazy_exports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from content_service.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .model import (
        CARDINALITIES,
        FIELD_TYPES,
        MAX_LIST_SHARDS,
        MAX_SORTABLE_FIELDS,
        Cardinality,
        ContentType,
        FieldDef,
        FieldSpec,
        FieldType,
        ListLayout,
        TypeDefinition,
    )
    from .names import (
        ASSET_CONTENT_TYPE_KEY,
        ASSET_FILE_KEY,
        ASSET_STATE_KEY,
        ASSET_TYPE,
        BUILTIN_TYPE_NAMES,
        ENTRY_SYSTEM_FIELDS,
        graphql_collision,
        graphql_names,
        plural,
    )
    from .schema import (
        LIST_JOBS_PK,
        TYPE_SK_PREFIX,
        get_schema,
        get_type,
        get_types,
        list_job_key,
        list_types,
        require_read,
        require_type,
        require_type_with,
        schema_version,
        schema_version_key,
        type_key,
        types_relating_to,
        version_of,
        visible_schema,
        workspace_pk,
    )
    from .schema_changes import create_type, delete_type, replace_type

__all__ = [
    "ASSET_CONTENT_TYPE_KEY",
    "ASSET_FILE_KEY",
    "ASSET_STATE_KEY",
    "ASSET_TYPE",
    "BUILTIN_TYPE_NAMES",
    "CARDINALITIES",
    "ENTRY_SYSTEM_FIELDS",
    "FIELD_TYPES",
    "LIST_JOBS_PK",
    "MAX_LIST_SHARDS",
    "MAX_SORTABLE_FIELDS",
    "TYPE_SK_PREFIX",
    "Cardinality",
    "ContentType",
    "FieldDef",
    "FieldSpec",
    "FieldType",
    "ListLayout",
    "TypeDefinition",
    "create_type",
    "delete_type",
    "get_schema",
    "get_type",
    "get_types",
    "graphql_collision",
    "graphql_names",
    "list_job_key",
    "list_types",
    "plural",
    "replace_type",
    "require_read",
    "require_type",
    "require_type_with",
    "schema_version",
    "schema_version_key",
    "type_key",
    "types_relating_to",
    "version_of",
    "visible_schema",
    "workspace_pk",
]

_MODULES = {
    "ASSET_CONTENT_TYPE_KEY": "names",
    "ASSET_FILE_KEY": "names",
    "ASSET_STATE_KEY": "names",
    "ASSET_TYPE": "names",
    "BUILTIN_TYPE_NAMES": "names",
    "CARDINALITIES": "model",
    "Cardinality": "model",
    "ContentType": "model",
    "ENTRY_SYSTEM_FIELDS": "names",
    "FIELD_TYPES": "model",
    "FieldDef": "model",
    "FieldSpec": "model",
    "FieldType": "model",
    "LIST_JOBS_PK": "schema",
    "ListLayout": "model",
    "MAX_LIST_SHARDS": "model",
    "MAX_SORTABLE_FIELDS": "model",
    "TYPE_SK_PREFIX": "schema",
    "TypeDefinition": "model",
    "create_type": "schema_changes",
    "delete_type": "schema_changes",
    "get_schema": "schema",
    "get_type": "schema",
    "get_types": "schema",
    "graphql_collision": "names",
    "graphql_names": "names",
    "list_job_key": "schema",
    "list_types": "schema",
    "plural": "names",
    "replace_type": "schema_changes",
    "require_read": "schema",
    "require_type": "schema",
    "require_type_with": "schema",
    "schema_version": "schema",
    "schema_version_key": "schema",
    "type_key": "schema",
    "types_relating_to": "schema",
    "version_of": "schema",
    "visible_schema": "schema",
    "workspace_pk": "schema",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, _MODULES)
