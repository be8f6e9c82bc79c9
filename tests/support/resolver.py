"""`FakeResolver`: injected DNS for the webhook tests (the sender, the URL policy, the workers
and the API's URL checks take a resolver; `webhooks.wiring.overridden(resolver=...)` swaps
it in for the enclosed code). No test reaches real DNS."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from content_service.webhooks.endpoints import UnresolvableHost

_ANY_HOST = ""


class FakeResolver:
    """Answers the names it was given (a name given several answers gets them in turn, the
    last one repeating) and records every lookup in `calls`. Any other name is unresolvable,
    or, `strict`, fails the test as a lookup it should not have made."""

    def __init__(
        self, answers: Mapping[str, Sequence[str]] | None = None, *, strict: bool = False
    ) -> None:
        self._turns = {host: [list(found)] for host, found in (answers or {}).items()}
        self.strict = strict
        self.calls: list[tuple[str, int]] = []

    @classmethod
    def in_turn(cls, *answers: Sequence[str]) -> FakeResolver:
        """Every name resolves to `answers[0]`, then `answers[1]`... (the last one repeats):
        what a rebinding name does between a check and a send."""
        resolver = cls()
        resolver._turns[_ANY_HOST] = [list(found) for found in answers]
        return resolver

    def answer(self, host: str, addresses: Sequence[str]) -> None:
        """From now on `host` resolves to `addresses` (a name rebound after a check)."""
        self._turns[host] = [list(addresses)]

    def resolve(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        turns = self._turns.get(host, self._turns.get(_ANY_HOST))
        if turns is None:
            if self.strict:
                raise AssertionError(f"unexpected DNS lookup of {host!r}")
            raise UnresolvableHost(f"{host} could not be resolved (test resolver)")
        return list(turns.pop(0) if len(turns) > 1 else turns[0])
