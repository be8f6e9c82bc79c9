"""docs/decisions.md opens with an index: every entry once, by number and title, with a status
that is "in force" or "replaced by" a later entry that exists."""

from __future__ import annotations

import re

from infra import REPO_ROOT

DECISIONS = (REPO_ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
ENTRY = re.compile(r"^### (D[\w-]+)\. (.+)$", re.MULTILINE)
INDEX_ROW = re.compile(
    r"^\| (D[\w-]+) \| (.+) \| (in force|replaced by (D[\w-]+)) \|$", re.MULTILINE
)


def _index() -> str:
    head, _, _ = DECISIONS.partition("\n## Entries\n")
    assert "\n## Index\n" in head, "decisions.md has no index before its entries"
    return head


def test_the_index_lists_every_entry_exactly_once_with_its_title() -> None:
    entries = ENTRY.findall(DECISIONS)
    listed = [
        (number, title.replace("\\|", "|")) for number, title, _, _ in INDEX_ROW.findall(_index())
    ]
    assert len(entries) > 90
    assert listed == entries


def test_every_status_is_in_force_or_names_a_later_entry() -> None:
    numbers = [number for number, _ in ENTRY.findall(DECISIONS)]
    rows = [line for line in _index().splitlines() if line.startswith("| D")]
    assert len(rows) == len(numbers), "an index row has a status that is neither form"
    for number, _, _, successor in INDEX_ROW.findall(_index()):
        if successor:
            assert successor in numbers, (number, successor)
            assert numbers.index(successor) > numbers.index(number), (number, successor)


def test_an_entry_that_says_it_is_superseded_is_marked_replaced() -> None:
    statuses = {number: status for number, _, status, _ in INDEX_ROW.findall(_index())}
    for number, title in ENTRY.findall(DECISIONS):
        said = re.search(r"superseded by (D[\w-]+)", title)
        if said:
            assert statuses[number] == f"replaced by {said.group(1)}", number
