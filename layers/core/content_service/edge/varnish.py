"""Purging a Varnish edge with the xkey vmod: one `PURGE` naming the tags to drop.

The edge (harness/varnish_edge.py builds one in front of the local stack) tags each answer
with its `Surrogate-Key` and, on `PURGE` with an `xkey-purge` header listing tags separated
by spaces, drops every answer tagged with any of them. A refusal, an error status or a timeout
raises, so the stream record that asked for the purge is retried rather than forgotten.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import requests

from content_service.edge.changes import EdgeChange, PurgeFailed, tags_of

PURGE_HEADER = "xkey-purge"
MAX_HEADER_BYTES = 4000
"""Tags per request: well within Varnish's 8 KB limit on one request header line."""
TIMEOUT_SECONDS = 5.0


def tag_groups(tags: Sequence[str], max_bytes: int = MAX_HEADER_BYTES) -> Iterator[str]:
    """The tags as `xkey-purge` values of at most `max_bytes` each, every tag in one of them."""
    group: list[str] = []
    size = 0
    for tag in tags:
        if group and size + 1 + len(tag) > max_bytes:
            yield " ".join(group)
            group, size = [], 0
        size += len(tag) + (1 if group else 0)
        group.append(tag)
    if group:
        yield " ".join(group)


class VarnishPurger:
    """Sends the changes' tags to `url` (the edge's purge address, `EDGE_PURGE_URL`)."""

    def __init__(
        self,
        url: str,
        *,
        timeout: float = TIMEOUT_SECONDS,
        session: requests.Session | None = None,
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.session = session or requests.Session()

    def purge(self, changes: Sequence[EdgeChange]) -> None:
        for value in tag_groups(tags_of(changes)):
            try:
                answer = self.session.request(
                    "PURGE", self.url, headers={PURGE_HEADER: value}, timeout=self.timeout
                )
            except requests.RequestException as error:
                raise PurgeFailed(f"the edge at {self.url} did not answer: {error}") from error
            if answer.status_code != 200:
                raise PurgeFailed(f"the edge at {self.url} answered {answer.status_code}")
