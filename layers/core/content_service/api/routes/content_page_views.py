"""What the content pages show, prepared in Python so the templates stay plain.

Pure functions of the content service's records (no storage access): an entry's state as a
badge, a list row, one form control per field with its value as the control holds it, and the
data block the editor's script starts from.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from content_service.api.routes.admin_views import when
from content_service.assets.objects import preview_url
from content_service.content import values as value_rules
from content_service.content.entries import Entry, file_of
from content_service.content.schema import ASSET_TYPE, ContentType, FieldDef

STATE_LABELS = {"draft": "Draft", "published": "Published", "changed": "Changed"}
STATE_TONES = {"draft": "neutral", "published": "ok", "changed": "warn"}
STATES = ("draft", "changed", "published")
STATE_FILTERS: tuple[tuple[str, str], ...] = (
    ("", "Any state"),
    ("draft", "Draft"),
    ("changed", "Changed"),
    ("published", "Published"),
)
RELATION_HELP = {
    "one-to-one": "Links one {target} entry, which no other entry may link through this field.",
    "many-to-one": "Links one {target} entry.",
    "one-to-many": (
        "Links any number of {target} entries, in order; an entry linked here cannot be linked "
        "from another entry through this field."
    ),
    "many-to-many": "Links any number of {target} entries, in order.",
}
_HELP = {
    "string": f"Up to {value_rules.STRING_MAX} characters.",
    "text": f"Up to {value_rules.TEXT_MAX:,} characters.",
    "richtext": (
        "Formatted text. Headings, bold, italic, underline, strike, lists, quotes, code and "
        "links are kept; anything else is removed when it is saved."
    ),
    "integer": "A whole number.",
    "float": "A number; use a dot for decimals (1.5, -2, 3e8).",
    "boolean": "",
    "datetime": "Date and time in UTC.",
    "date": "",
    "json": "Any JSON value: an object, a list, a string in quotes, a number, true, false.",
}


def humanize(name: str) -> str:
    """`published_on` -> `Published on`: field names are snake_case API names."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def state_label(status: str) -> str:
    return STATE_LABELS.get(status, status.capitalize())


def state_tone(status: str) -> str:
    return STATE_TONES.get(status, "neutral")


def entry_title(content_type: ContentType, entry_values: Mapping[str, Any]) -> str:
    """The entry's title field's value, or "" (no title field, or none set)."""
    if not content_type.title_field:
        return ""
    value = entry_values.get(content_type.title_field)
    return value if isinstance(value, str) else ""


def input_datetime(stored: str | None) -> str:
    """A stored UTC time (`2026-01-02T03:04:05.678Z`) as a `datetime-local` field holds it:
    to the second, with the milliseconds only when there are some."""
    if not stored:
        return ""
    seconds, _, fraction = stored.rstrip("Z").partition(".")
    return seconds if fraction.strip("0") == "" else f"{seconds}.{fraction}"


def control_text(definition: FieldDef, value: Any) -> str:
    """The value as its form control holds it ("" when unset)."""
    if value is None:
        return ""
    kind = definition.type
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "datetime":
        return input_datetime(value)
    if kind == "json":
        return json.dumps(value, indent=2, ensure_ascii=False)
    if kind == "float":
        return repr(float(value))
    return str(value)


@dataclass(frozen=True)
class Linked:
    """A linked entry as the relation picker lists it."""

    id: str
    title: str
    status: str
    thumb: str | None = None
    """A linked image asset's preview (a presigned GET of its file), shown as a thumbnail."""

    def to_json(self) -> dict[str, str | None]:
        return {"id": self.id, "title": self.title, "status": self.status, "thumb": self.thumb}


@dataclass(frozen=True)
class Control:
    """One field of the entry editor."""

    definition: FieldDef
    label: str
    help: str
    text: str
    linked: tuple[Linked, ...] = ()
    target_label: str = ""

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def type(self) -> str:
        return self.definition.type

    @property
    def input_id(self) -> str:
        return f"field-{self.definition.name}"


def _help(definition: FieldDef, target_label: str) -> str:
    if definition.type == "enum":
        return f"One of: {', '.join(definition.values)}."
    if definition.is_asset:
        kinds = f" ({', '.join(definition.accept)})" if definition.accept else ""
        return ("Links one asset" if definition.to_one else "Links assets, in order") + kinds + "."
    if definition.is_relation:
        text = RELATION_HELP.get(definition.cardinality or "", "Links {target} entries.")
        return text.format(target=target_label)
    return _HELP.get(definition.type, "")


def linked_entries(targets: Sequence[Entry], target_type: ContentType | None) -> tuple[Linked, ...]:
    return tuple(
        Linked(
            t.id,
            entry_title(target_type, t.values) if target_type is not None else "",
            t.status,
            _thumb(t),
        )
        for t in targets
    )


def _thumb(target: Entry) -> str | None:
    """An image asset's preview URL (presigned locally, no request); None for anything else."""
    file = file_of(target) if target.content_type == ASSET_TYPE else {}
    if file.get("state") != "ready" or not str(file.get("contentType", "")).startswith("image/"):
        return None
    return preview_url(str(file["key"]))


def controls(
    content_type: ContentType,
    entry_values: Mapping[str, Any],
    relations: Mapping[str, Sequence[Entry]],
    types: Mapping[str, ContentType],
) -> list[Control]:
    """The editor's controls, in the type's field order."""
    found = []
    for definition in content_type.fields:
        target = types.get(definition.target or "") if definition.is_relation else None
        target_label = (definition.target or "").replace("_", " ")
        found.append(
            Control(
                definition=definition,
                label=humanize(definition.name),
                help=_help(definition, target_label),
                text=(
                    ""
                    if definition.is_relation
                    else control_text(definition, entry_values.get(definition.name))
                ),
                linked=(
                    linked_entries(relations.get(definition.name, ()), target)
                    if definition.is_relation
                    else ()
                ),
                target_label=target_label,
            )
        )
    return found


@dataclass(frozen=True)
class EntryRow:
    """One row of an entry list."""

    id: str
    title: str
    status: str
    label: str
    tone: str
    locale: str
    updated: str
    created: str


def entry_row(content_type: ContentType, entry: Entry) -> EntryRow:
    return EntryRow(
        id=entry.id,
        title=entry_title(content_type, entry.values),
        status=entry.status,
        label=state_label(entry.status),
        tone=state_tone(entry.status),
        locale=entry.locale,
        updated=when(entry.updated_at),
        created=when(entry.created_at),
    )


@dataclass(frozen=True)
class Changed:
    """Who changed an entry last and when, in words."""

    at: str
    by: str


NO_PERSON = "an API token"
"""Who wrote a version when `updatedBy` is null: a token has no person to name."""


def changed(entry_json: Mapping[str, Any]) -> Changed:
    by = entry_json.get("updatedBy")
    email = by.get("email") if isinstance(by, Mapping) else None
    return Changed(
        at=when(entry_json.get("updatedAt")), by=email if isinstance(email, str) else NO_PERSON
    )


@dataclass
class EditorData:
    """What the editor's script starts from (`<script type="application/json">`)."""

    workspace_id: str
    workspace_query: str
    content_type: ContentType
    entry: dict[str, Any] | None
    new: dict[str, Any] = field(default_factory=dict)
    rich_text: dict[str, str | None] = field(default_factory=dict)
    relations: dict[str, list[dict[str, str | None]]] = field(default_factory=dict)
    targets: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        meta = None
        if self.entry is not None:
            meta = {k: v for k, v in self.entry.items() if k not in ("values", "relations")}
        return {
            "workspaceId": self.workspace_id,
            "workspaceQuery": self.workspace_query,
            "type": {
                "name": self.content_type.name,
                "titleField": self.content_type.title_field,
                "localized": self.content_type.localized,
                "kind": self.content_type.kind,
                "fields": [
                    {
                        "name": f.name,
                        "type": f.type,
                        "required": f.required,
                        "label": humanize(f.name),
                        "toOne": f.to_one,
                    }
                    for f in self.content_type.fields
                ],
            },
            "entry": meta,
            "new": self.new,
            "richText": self.rich_text,
            "relations": self.relations,
            "targets": self.targets,
        }


def editor_data(
    *,
    workspace_id: str,
    workspace_query: str,
    content_type: ContentType,
    entry_json: dict[str, Any] | None,
    entry_values: Mapping[str, Any],
    page_controls: Sequence[Control],
    types: Mapping[str, ContentType],
    new: dict[str, Any] | None = None,
) -> EditorData:
    data = EditorData(workspace_id, workspace_query, content_type, entry_json, new or {})
    for control in page_controls:
        definition = control.definition
        if definition.type == "richtext":
            value = entry_values.get(definition.name)
            data.rich_text[definition.name] = value if isinstance(value, str) else None
        if definition.is_relation:
            data.relations[definition.name] = [linked.to_json() for linked in control.linked]
            target = types.get(definition.target or "")
            data.targets[definition.name] = {
                "type": definition.target,
                "titleField": target.title_field if target else None,
                "localized": target.localized if target else False,
                "toOne": definition.to_one,
            }
    return data
