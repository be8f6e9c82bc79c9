"""Field values: what each field type accepts, how it is stored, how it reads back.

| type     | accepts                                   | stored as                     |
|----------|-------------------------------------------|-------------------------------|
| string   | a string of at most 256 characters        | S                             |
| text     | a string of at most 50,000 characters     | S                             |
| richtext | HTML of at most 200,000 characters        | S, sanitised (`rich_text`)    |
| integer  | an integer in the signed 64-bit range     | N (read back as int)          |
| float    | a finite number DynamoDB can hold         | N (read back as float)        |
| boolean  | true or false                             | BOOL                          |
| datetime | ISO 8601 with a timezone                  | S, UTC, `YYYY-MM-DDTHH:MM:SS.sssZ` |
| date     | `YYYY-MM-DD`                              | S                             |
| enum     | one of the field's values                 | S                             |
| json     | any JSON, at most 100 KB serialized       | S (the compact serialization) |

Strings must be valid Unicode (no lone surrogates), since DynamoDB stores UTF-8. Datetimes are
normalised to UTC with millisecond precision, the same shape as the system timestamps, so they
compare and sort correctly as strings.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from content_service.content import rich_text
from content_service.content.schema import FieldDef
from content_service.storage.dynamo import is_storable_number
from content_service.strict_json import is_unicode

STRING_MAX = 256
TEXT_MAX = 50_000
RICHTEXT_MAX = 200_000
JSON_MAX_BYTES = 100 * 1024
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MAX_LENGTHS = {"string": STRING_MAX, "text": TEXT_MAX}


class InvalidValue(ValueError):
    """A value the field refuses; the message says why, for the 422's details."""


def normalise_datetime(raw: Any) -> str:
    if not isinstance(raw, str) or len(raw) > 64:
        raise InvalidValue("must be an ISO 8601 date-time string with a timezone")
    try:
        moment = datetime.fromisoformat(raw.replace("z", "Z"))
    except ValueError:
        raise InvalidValue("must be an ISO 8601 date-time string with a timezone") from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidValue("must carry a timezone (for example Z or +02:00)")
    try:
        utc = moment.astimezone(UTC)
    except (OverflowError, ValueError):
        raise InvalidValue("is out of range") from None
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond // 1000:03d}Z"
    )


def normalise_date(raw: Any) -> str:
    if not isinstance(raw, str) or not _DATE.match(raw):
        raise InvalidValue("must be a date as YYYY-MM-DD")
    try:
        date.fromisoformat(raw)
    except ValueError:
        raise InvalidValue("is not a valid calendar date") from None
    return raw


def check_integer(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise InvalidValue("must be an integer")
    if not INT_MIN <= raw <= INT_MAX:
        raise InvalidValue("must fit in a signed 64-bit integer")
    return raw


def check_float(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise InvalidValue("must be a number")
    try:
        value = float(raw)
    except OverflowError:
        raise InvalidValue("is out of range") from None
    if not is_storable_number(value):
        raise InvalidValue("must be finite and within 1e-130 to 1e125 in magnitude")
    return value


def check_string(raw: Any, max_length: int) -> str:
    if not isinstance(raw, str):
        raise InvalidValue("must be a string")
    if len(raw) > max_length:
        raise InvalidValue(f"must be at most {max_length:,} characters")
    if not is_unicode(raw):
        raise InvalidValue("must be valid Unicode text")
    return raw


def check_rich_text(raw: Any) -> str:
    """The allow-listed HTML of a rich text value (`content.rich_text`): what every write
    stores, REST and GraphQL alike. Its length is checked before (the work) and after (the
    stored size: escaping a bare `<` makes it four characters)."""
    sanitised = rich_text.sanitise(check_string(raw, RICHTEXT_MAX))
    if len(sanitised) > RICHTEXT_MAX:
        raise InvalidValue(f"must be at most {RICHTEXT_MAX:,} characters once sanitised")
    return sanitised


def check_json(raw: Any) -> str:
    """The compact serialization of a JSON value."""
    try:
        serialized = json.dumps(raw, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        size = len(serialized.encode("utf-8"))
    except (ValueError, TypeError, UnicodeEncodeError, RecursionError):
        raise InvalidValue("must be JSON (finite numbers, valid Unicode)") from None
    if size > JSON_MAX_BYTES:
        raise InvalidValue(f"must be at most {JSON_MAX_BYTES:,} bytes serialized")
    return serialized


def to_storage(field: FieldDef, raw: Any) -> Any:
    """The stored form of `raw` for `field` (never None: a null clears the field instead)."""
    kind = field.type
    if kind == "richtext":
        return check_rich_text(raw)
    if kind in _MAX_LENGTHS:
        return check_string(raw, _MAX_LENGTHS[kind])
    if kind == "integer":
        return check_integer(raw)
    if kind == "float":
        return check_float(raw)
    if kind == "boolean":
        if not isinstance(raw, bool):
            raise InvalidValue("must be true or false")
        return raw
    if kind == "datetime":
        return normalise_datetime(raw)
    if kind == "date":
        return normalise_date(raw)
    if kind == "enum":
        if not isinstance(raw, str) or raw not in field.values:
            raise InvalidValue(f"must be one of {', '.join(field.values)}")
        return raw
    if kind == "json":
        return check_json(raw)
    raise InvalidValue(f"a {kind} field holds no value")


def from_storage(field: FieldDef, stored: Any) -> Any:
    """The JSON-ready value of a stored one (Decimal -> int or float, json parsed)."""
    if stored is None:
        return None
    kind = field.type
    if kind == "integer" and isinstance(stored, Decimal | int | float):
        return int(stored)
    if kind == "float" and isinstance(stored, Decimal | int | float):
        return float(stored)
    if kind == "json" and isinstance(stored, str):
        try:
            return json.loads(stored)
        except ValueError:
            return None
    return stored
