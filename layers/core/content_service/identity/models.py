"""PynamoDB models of the identity records, all in the schema table.

Key layout (pk / sk), one item kind per prefix:
- `WORKSPACE#<id>` / `WORKSPACE`; uniqueness item `WORKSPACE_SLUG#<slug>` / `UNIQUE`
- `USER#<id>` / `USER`; uniqueness item `USER_EMAIL#<email>` / `UNIQUE`
- `TOKEN#<sha256 hex>` / `TOKEN`: looked up by digest with a strongly consistent read, so a
  revocation takes effect on the very next request
- `SESSION#<sha256 hex>` / `SESSION` with a TTL
- `ROLE#<id>` / `ROLE`: a custom role (`role-<12 hex>`); the built-in ones live in code
The gsi1 index lists each kind (`gsi1pk` = `WORKSPACES`, `USERS`, `TOKENS`, `ROLES`).

The identity functions import this module (and PynamoDB with it) when first called, not at cold
start; importing it binds the models to the configured tables (`runtime.on_configure`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pynamodb.attributes import (
    BooleanAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from content_service import runtime
from content_service.errors import Conflict
from content_service.settings import Settings
from content_service.storage import dynamo
from content_service.storage.binding import bind_models

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef


class _ByKind(GlobalSecondaryIndex[Any]):  # type: ignore[no-untyped-call]
    class Meta:
        index_name = "gsi1"
        projection = AllProjection()

    gsi1pk = UnicodeAttribute(hash_key=True)
    gsi1sk = UnicodeAttribute(range_key=True)


class WorkspaceRecord(Model):
    class Meta:
        table_name = "SchemaTable"

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True, default="WORKSPACE")
    gsi1pk = UnicodeAttribute(default="WORKSPACES")
    gsi1sk = UnicodeAttribute()
    id = UnicodeAttribute()
    name = UnicodeAttribute()
    slug = UnicodeAttribute()
    createdAt = UnicodeAttribute()
    by_kind = _ByKind()


class UserRecord(Model):
    class Meta:
        table_name = "SchemaTable"

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True, default="USER")
    gsi1pk = UnicodeAttribute(default="USERS")
    gsi1sk = UnicodeAttribute()
    id = UnicodeAttribute()
    email = UnicodeAttribute()
    role = UnicodeAttribute()
    passwordHash = UnicodeAttribute()
    createdAt = UnicodeAttribute()
    grants = UnicodeAttribute(null=True)
    """JSON `{workspace id or "*": [{role, locales}]}`; absent on older users (read from `role`)."""
    active = BooleanAttribute(null=True)
    """False once deactivated; absent: active."""
    by_kind = _ByKind()


class UniqueRecord(Model):
    """Claims a unique value (a slug, an e-mail) inside the transaction that creates its owner."""

    class Meta:
        table_name = "SchemaTable"

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True, default="UNIQUE")
    ownerId = UnicodeAttribute()


class TokenRecord(Model):
    class Meta:
        table_name = "SchemaTable"

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True, default="TOKEN")
    gsi1pk = UnicodeAttribute(default="TOKENS")
    gsi1sk = UnicodeAttribute()
    id = UnicodeAttribute()
    name = UnicodeAttribute()
    workspaceId = UnicodeAttribute()
    access = UnicodeAttribute()
    contentTypes = UnicodeSetAttribute(default=set)
    scopes = UnicodeSetAttribute(default=set)
    audiences = UnicodeSetAttribute(default=set)
    rateLimit = NumberAttribute(null=True)
    persistedOnly = BooleanAttribute(null=True)
    hint = UnicodeAttribute()
    createdAt = UnicodeAttribute()
    revokedAt = UnicodeAttribute(null=True)
    role = UnicodeAttribute(null=True)
    """JSON `{role, locales}` of the role the token acts with; absent: none (its grant only)."""
    by_kind = _ByKind()


class RoleRecord(Model):
    class Meta:
        table_name = "SchemaTable"

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True, default="ROLE")
    gsi1pk = UnicodeAttribute(default="ROLES")
    gsi1sk = UnicodeAttribute()
    id = UnicodeAttribute()
    name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    rules = UnicodeAttribute()
    """JSON list of `Rule.to_json()`."""
    takesLocales = BooleanAttribute(default=False)
    createdAt = UnicodeAttribute()
    updatedAt = UnicodeAttribute()
    by_kind = _ByKind()


class SessionRecord(Model):
    class Meta:
        table_name = "SchemaTable"

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True, default="SESSION")
    userId = UnicodeAttribute()
    expiresAt = NumberAttribute()


IDENTITY_MODELS: tuple[type[Model], ...] = (
    WorkspaceRecord,
    UserRecord,
    UniqueRecord,
    TokenRecord,
    SessionRecord,
    RoleRecord,
)


def save_with_unique_claim(
    record: Model,
    claim_key: str,
    owner_id: str,
    conflict: str,
    also: Sequence[TransactWriteItemTypeDef] = (),
) -> None:
    """Saves `record` and claims `claim_key` for it in one transaction, with the items `also`
    names (an audit record); a taken claim (the e-mail or slug already belongs to someone)
    refuses them all with 409 `conflict`."""
    claim = UniqueRecord(pk=claim_key, ownerId=owner_id)
    claimed: Any = claim.get_save_kwargs_from_instance(condition=UniqueRecord.pk.does_not_exist())
    saved: Any = record.get_save_kwargs_from_instance()
    try:
        dynamo.transact([{"Put": claimed}, {"Put": saved}, *also])
    except dynamo.TransactionCancelled:
        raise Conflict(conflict) from None


def bind(settings: Settings) -> None:
    bind_models(((model, settings.tables.schema) for model in IDENTITY_MODELS), settings)


runtime.on_configure(bind)
