"""The `## Roles and actions` table of docs/authorization.md, parsed: the one statement of what
each built-in role may do, acted out by the REST/GraphQL matrix and the pages' matrix.
`doc_table` reads any table of that page (the matrix's routes and root fields too)."""

from __future__ import annotations

from pathlib import Path

from content_service.identity.roles import ACTIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "authorization.md"
ROLE_COLUMNS = ("administrator", "editor", "author", "translator", "viewer")
CELLS = frozenset({"yes", "no", "own", "locales"})
GRANTED_LOCALE, OTHER_LOCALE = "de", "en"
"""The Translator of the matrices is granted `de`; `en` is a locale it was not granted."""


def doc_table(section: str, columns: tuple[str, ...]) -> dict[str, list[str]]:
    """The table under `## <section>` of docs/authorization.md, once its header is checked to
    name `columns` after the key column: row key (first cell, backticks removed) -> its cells."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in body.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert tuple(header[1:]) == columns, header
    rows: dict[str, list[str]] = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        key = cells[0].strip("`")
        assert key not in rows, f"two rows for {key}"
        assert len(cells) == len(columns) + 1, line
        rows[key] = cells[1:]
    return rows


def roles_table() -> dict[str, dict[str, str]]:
    """action -> role -> yes | no | own | locales."""
    rows: dict[str, dict[str, str]] = {}
    for action, cells in doc_table("Roles and actions", ROLE_COLUMNS).items():
        assert set(cells) <= CELLS, f"{action}: {cells}"
        rows[action] = dict(zip(ROLE_COLUMNS, cells, strict=True))
    assert tuple(rows) == ACTIONS, "one row per action, in the order of identity.roles.ACTIONS"
    return rows


def allowed(cell: str, *, own: bool, locale: str) -> bool:
    """What a cell says of an entry the user did (`own`) or did not create, in `locale`."""
    return (
        cell == "yes" or (cell == "own" and own) or (cell == "locales" and locale == GRANTED_LOCALE)
    )
