"""`python -m harness.crash_links`: the local stack killed with SIGKILL while writers make
link-heavy writes, then every entry's links compared with the reverse-link index.

Writers (threads, the bootstrap full token) keep posts of their own linking shared authors and
tags: create with several links, link and unlink, publish, unpublish, discard, trash, restore
and purge, in a seeded random order; answers are not kept (the stack dies under some calls).
After each kill the stack is started again on the same `LOCAL_DIR` (the journal keeps every
acknowledged write) and the writers go on. At the end, with the stack stopped by SIGTERM, the
content table is read directly: the reverse-link items must be exactly the links held by the
draft or the published version of every stored entry (docs/content.md, "What links here").
A missing one is a link without its reverse item, which only a write that put it outside its
transaction could leave; a stale one, which these small writes always have room to delete.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from harness.crash import (
    StackProcess,
    Storage,
    _signed_in,
    kill_rounds,
    writers_main,
)

Ref = tuple[str, str, str]  # (target id, source id, field key)


@dataclass(frozen=True)
class LinkCrashConfig:
    kills: int = 6
    writers: int = 6
    seed: int = 20261128
    min_run_s: float = 1.0
    max_run_s: float = 3.0


def _relation(name: str, target: str, cardinality: str) -> dict[str, Any]:
    return {"name": name, "type": "relation", "target": target, "cardinality": cardinality}


def _setup(stack: StackProcess) -> tuple[str, dict[str, list[str]]]:
    """The types and published targets the writers link; returns the full token and the
    target ids by field."""
    admin, credentials = _signed_in(stack)
    token = str(credentials["tokens"]["full"])
    client = httpx.Client(
        base_url=stack.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    try:
        for name in ("author", "tag"):
            body = {"name": name, "fields": [{"name": "name", "type": "string"}]}
            admin.post("/api/v1/content-types", json=body).raise_for_status()
        fields = [
            {"name": "title", "type": "string"},
            _relation("author", "author", "many-to-one"),
            _relation("tags", "tag", "many-to-many"),
        ]
        admin.post("/api/v1/content-types", json={"name": "post", "fields": fields})
        targets: dict[str, list[str]] = {}
        for field, type_name, count in (("author", "author", 4), ("tags", "tag", 12)):
            targets[field] = []
            for _ in range(count):
                made = client.post(f"/api/v1/content/{type_name}", json={"values": {}})
                made.raise_for_status()
                entry_id = made.json()["id"]
                client.post(f"/api/v1/content/{type_name}/{entry_id}/publish").raise_for_status()
                targets[field].append(entry_id)
    finally:
        admin.close()
        client.close()
    return token, targets


class LinkWriter(threading.Thread):
    """Link-heavy writes on posts of its own until told to stop or the stack dies."""

    def __init__(
        self, base_url: str, token: str, targets: dict[str, list[str]], rng: random.Random
    ) -> None:
        super().__init__(daemon=True)
        self.client = httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
        self.targets, self.rng = targets, rng
        self.posts: list[str] = []
        self.stopping = threading.Event()
        self.calls = 0

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                self._step()
                self.calls += 1
        except httpx.HTTPError:
            return  # the stack died under the call
        finally:
            self.client.close()

    def _relations(self) -> dict[str, Any]:
        tags = self.rng.sample(self.targets["tags"], self.rng.randint(0, 4))
        unlink = self.rng.sample([t for t in self.targets["tags"] if t not in tags], 2)
        author = self.rng.choice(self.targets["author"])
        return {"author": {"link": [author]}, "tags": {"link": tags, "unlink": unlink}}

    def _step(self) -> None:
        if len(self.posts) < 3 or self.rng.random() < 0.1:
            tags = self.rng.sample(self.targets["tags"], self.rng.randint(1, 6))
            body = {"values": {"title": "p"}, "relations": {"tags": {"link": tags}}}
            made = self.client.post("/api/v1/content/post", json=body)
            if made.status_code == 201:
                self.posts.append(made.json()["id"])
            return
        post = self.rng.choice(self.posts)
        path = f"/api/v1/content/post/{post}"
        action = self.rng.choice(
            ["patch", "patch", "patch", "publish", "publish", "unpublish", "discard", "trash"]
        )
        if action == "patch":
            self.client.patch(path, json={"relations": self._relations()})
        elif action == "trash":
            self.client.delete(path)
            follow = self.rng.choice(["restore", "purge"])
            if follow == "restore":
                self.client.post(f"{path}/restore")
            elif self.client.delete(f"{path}/purge").status_code == 204:
                self.posts.remove(post)
        else:
            self.client.post(f"{path}/{action}")


def index_problems(storage: Storage) -> tuple[list[str], int, int]:
    """Compares the reverse-link items with every stored entry's links; returns the problems,
    how many links and how many reverse items were seen."""
    items = storage.scan("CONTENT_TABLE")
    held: set[Ref] = {
        (target, str(item["id"]), str(field_key))
        for item in items
        if item.get("sk") in ("ENTRY", "PUBLISHED")
        for field_key, targets in (item.get("links") or {}).items()
        for target in targets
    }
    refs: set[Ref] = {
        (str(item["pk"]).rsplit("#", 1)[-1], str(item["sourceId"]), str(item["fieldKey"]))
        for item in items
        if item.get("entity") == "link_ref"
    }
    problems = [f"a link without its reverse item: {ref}" for ref in sorted(held - refs)]
    problems += [f"a stale reverse item: {ref}" for ref in sorted(refs - held)]
    return problems, len(held), len(refs)


def run_links_crash(config: LinkCrashConfig, say: Any = print) -> dict[str, Any]:
    setup: list[tuple[str, dict[str, list[str]]]] = []

    def writers(stack: StackProcess, _: int, rng: random.Random) -> list[LinkWriter]:
        if not setup:
            setup.append(_setup(stack))
        token, targets = setup[0]
        return [
            LinkWriter(stack.base_url, token, targets, random.Random(rng.random()))
            for _ in range(config.writers)
        ]

    def check(storage: Storage) -> tuple[list[str], dict[str, int]]:
        problems, links, refs = index_problems(storage)
        return problems, {"links": links, "refs": refs}

    return kill_rounds("crash-links-", config, writers, check, say)


def main(argv: Sequence[str]) -> int:
    return writers_main(argv, "crash_links", __doc__, LinkCrashConfig, run_links_crash)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
