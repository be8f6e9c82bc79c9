"""The keys of list index items and count items: order-preserving sort tokens and partitions.

A list index item is `pk` = a partition (one per workspace, type, locale, view, shard, sort key
and, for an `eq` partition, one value of another sortable field or of the status), `sk` =
`<sort token>\\x01<entry id>`, or just `<entry id>` in the partition of entries whose sort value
is null. DynamoDB orders sort keys by their UTF-8 bytes, which is code point order, so a token
must compare like the value it encodes (as `content.lists.query` compares values in memory):

| kind                                | token                                                  |
|-------------------------------------|--------------------------------------------------------|
| string, enum, id                    | the text, with U+0000..U+0002 escaped (`\\x02` + digit) |
| createdAt, updatedAt, publishedAt,  | the normalised text (fixed width, so text order is     |
| datetime, date                      | time order)                                            |
| integer                             | value + 2^63 as 20 decimal digits                      |
| float                               | the IEEE-754 bits made order-preserving, 16 hex digits |
| boolean                             | `0` or `1`                                             |

No token contains U+0000 or U+0001, so `\\x01` ends a token: a value sorts before every longer
value it prefixes, and `token` < every key of value `token` < `token\\x01~` < every key of a
greater value. Range conditions use exactly those bounds. A string's token keeps its first
`MAX_TOKEN_BYTES` bytes (DynamoDB caps a sort key at 1,024 bytes): values longer than that
which share their first 900 bytes sort among themselves by id.

Count items (schema table, beside the type): `pk` =
`N#<ws>#<type>#<locale>#<view>#<shard>[#=<field>:<bucket>]`, `sk` = `COUNT`, `n` = the
number of entries. Buckets are canonical and type-agnostic (`n3` for 3 and
3.0, `s` + text, `b1`/`b0`), so the list route can name the count items it needs from the
request alone and read them with the content type in one BatchGetItem.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from typing import Any, Literal

TERM = "\x01"
# After every entry id in a key (ids are lower-case hex and dashes).
AFTER_IDS = "~"
MAX_TOKEN_BYTES = 900
COUNT_SHARDS = 4
COUNT_SK = "COUNT"
# View partitions: `A` every entry's latest version (preview), `P` every published version
# (delivery).
Visibility = Literal["A", "P"]
SYSTEM_SORT_KEYS = {"createdAt": "@c", "updatedAt": "@u", "publishedAt": "@p"}
# The `eq` partitions of the status (in `A` only: a published version's status is always
# `published`) use this key in the index and the name `status` in counts.
STATUS_KEY = "@s"
_ESCAPED = {chr(i): "\x02" + str(i) for i in range(3)}
_SIGN = 1 << 63
_ALL_BITS = (1 << 64) - 1


def _escaped(text: str) -> tuple[str, bool]:
    """The escaped text and whether it is whole (not cut at MAX_TOKEN_BYTES)."""
    escaped = "".join(_ESCAPED.get(c, c) for c in text)
    raw = escaped.encode("utf-8")
    if len(raw) <= MAX_TOKEN_BYTES:
        return escaped, True
    return raw[:MAX_TOKEN_BYTES].decode("utf-8", errors="ignore"), False


def _float_token(value: float) -> str:
    if value == 0:
        value = 0.0  # -0.0 compares equal to 0.0 in memory: one token for both
    bits = int.from_bytes(struct.pack(">d", value), "big")
    bits = bits ^ _SIGN if value >= 0 else bits ^ _ALL_BITS
    return f"{bits:016x}"


def token(kind: str, value: Any) -> tuple[str, bool]:
    """The sort token of a non-null value of a field (or system timestamp) of `kind`, and
    whether it is exact (False only for a string cut at MAX_TOKEN_BYTES)."""
    if kind == "boolean":
        return ("1" if value else "0"), True
    if kind == "integer":
        return f"{int(value) + _SIGN:020d}", True
    if kind == "float":
        return _float_token(float(value)), True
    if kind in ("timestamp", "datetime", "date"):
        return str(value), True
    return _escaped(str(value))


def bucket(value: Any) -> str:
    """The canonical name of an `eq` value, the same for a stored value and a filter value."""
    if isinstance(value, bool):
        return "b1" if value else "b0"
    if isinstance(value, Decimal):
        value = int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, int):
        return f"n{value}"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
            return f"n{int(value)}"
        return f"n{value!r}"
    return f"s{value}"


def shard_of(entry_id: str, shards: int) -> int:
    """Index shard of an entry: its id's last 32 bits (ids are random UUIDs)."""
    return int(entry_id.replace("-", "")[-8:], 16) % shards if shards > 1 else 0


def count_shard_of(entry_id: str) -> int:
    """Count shard of an entry (fixed per entry, so its +1 and its later -1 meet)."""
    return int(entry_id.replace("-", "")[:8], 16) % COUNT_SHARDS


def sort_name(field_key: str) -> str:
    """The partition name of a sort key: `@c`/`@u`/`@p` or a field's storage key."""
    return SYSTEM_SORT_KEYS.get(field_key, field_key)


def partition(
    workspace_id: str,
    content_type: str,
    locale: str,
    visibility: Visibility,
    shard: int,
    shards: int,
    sort: str,
    *,
    null: bool = False,
    eq: tuple[str, str] | None = None,
) -> str:
    """The pk of one index partition. `sort` is `@c`/`@u`/`@p` or a field key; `eq` is
    (field key, bucket). The bucket, the only free text, comes last."""
    pk = f"L#{workspace_id}#{content_type}#{locale}#{visibility}#{shard}.{shards}#{sort}"
    if null:
        pk += "!"
    if eq is not None:
        pk += f"#={eq[0]}:{eq[1]}"
    return pk


def index_sk(sort_token: str | None, entry_id: str) -> str:
    return entry_id if sort_token is None else f"{sort_token}{TERM}{entry_id}"


def split_sk(sk: str, null: bool) -> tuple[str | None, str]:
    """(sort token, entry id) of an index sort key."""
    if null:
        return None, sk
    sort_token, _, entry_id = sk.rpartition(TERM)
    return sort_token, entry_id


def count_pk(
    workspace_id: str,
    content_type: str,
    locale: str,
    visibility: Visibility,
    shard: int,
    eq: tuple[str, str] | None = None,
) -> str:
    """The pk of one count shard; `eq` is (field name, bucket) for an `eq` partition's count."""
    pk = f"N#{workspace_id}#{content_type}#{locale}#{visibility}#{shard}"
    if eq is not None:
        pk += f"#={eq[0]}:{eq[1]}"
    return pk


def count_pks(
    workspace_id: str,
    content_type: str,
    locale: str,
    visibility: Visibility,
    eq: tuple[str, str] | None = None,
) -> list[str]:
    """Every shard of one count."""
    return [
        count_pk(workspace_id, content_type, locale, visibility, shard, eq)
        for shard in range(COUNT_SHARDS)
    ]
