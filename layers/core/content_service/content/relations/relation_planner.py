"""The first N visible targets of a relation, planned without reading.

REST's `expand` and both GraphQL paths (the read-ahead and the DataLoader) show a to-many
relation's first `pageSize` visible targets in link order and a to-one relation's first visible
target. A target may be invisible (trashed, a draft for a read token, another audience) or gone,
so the planner asks for the first N ids, then, only while fewer than N were visible, for as many
more as are still missing, until N are found or the links run out. It never reads: its callers
fetch the ids it asks for, for many rows at once, and hand back what each turned out to be.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class Targets(Generic[T]):
    """One row's relation: its linked ids, how far they were asked, the visible targets found."""

    __slots__ = ("found", "ids", "offset", "wanted")

    def __init__(self, ids: Sequence[str], wanted: int) -> None:
        self.ids = ids
        self.wanted = wanted
        self.offset = 0
        self.found: list[T] = []

    def ask(self) -> list[str]:
        """The ids to fetch next (as many as targets are still missing); empty when done."""
        need = self.wanted - len(self.found)
        if need <= 0 or self.offset >= len(self.ids):
            return []
        chunk = list(self.ids[self.offset : self.offset + need])
        self.offset += len(chunk)
        return chunk

    def take(self, results: Iterable[T | None]) -> None:
        """What the last asked ids turned out to be, in their order (None: not visible)."""
        self.found.extend(r for r in results if r is not None)


def from_known(known: Mapping[str, T | None], ids: Sequence[str], wanted: int) -> list[T] | None:
    """The first `wanted` visible targets of `ids` when every id the planner asks is in `known`
    (None there: not visible); None when one is not known yet."""
    targets: Targets[T] = Targets(ids, wanted)
    while chunk := targets.ask():
        if any(i not in known for i in chunk):
            return None
        targets.take(known[i] for i in chunk)
    return targets.found
