"""`python -m harness.crash_audit`: the local stack killed with SIGKILL while writers change
entries, content types, tokens and webhook endpoints, then the audit log compared with what
the changes left.

Each writer (a thread) owns what it makes: notes (a type with one integer field, `stamp`),
content types, read tokens and pull endpoints (whose `contentTypes` carries a stamp); it
creates, changes and deletes them in a seeded random order, every stamp new, and keeps no
answer (the stack dies under some calls). After each kill the stack starts again on the same
`LOCAL_DIR` and the writers go on. At the end the tables are read directly: every note, type,
live token and endpoint stored must be one whose creation (and no deletion) is recorded, every
one recorded so must be stored, each note's and endpoint's stamp must be the newest its records
show, and no stamp may be recorded twice. A change without its record, or a record without
its change, is what writing the record outside the change's transaction would leave.
"""

from __future__ import annotations

import itertools
import random
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
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

NOTE = "note"
LISTENER_URL = "http://127.0.0.1:9/listener"


@dataclass(frozen=True)
class AuditCrashConfig:
    kills: int = 6
    writers: int = 4
    seed: int = 20261129
    min_run_s: float = 1.0
    max_run_s: float = 3.0


@dataclass(frozen=True)
class Access:
    """The bootstrap workspace, its full token, and the admin's session cookies."""

    base_url: str
    workspace_id: str
    token: str
    cookies: httpx.Cookies


def _access(stack: StackProcess, first: bool) -> Access:
    admin, credentials = _signed_in(stack)
    token = str(credentials["tokens"]["full"])
    try:
        if first:
            body = {"name": NOTE, "fields": [{"name": "stamp", "type": "integer"}]}
            made = admin.post(
                "/api/v1/content-types",
                json=body,
                headers={"Authorization": f"Bearer {token}"},
            )
            made.raise_for_status()
        return Access(stack.base_url, str(credentials["workspaceId"]), token, admin.cookies)
    finally:
        admin.close()


class AuditWriter(threading.Thread):
    """Changes of every kind on things of its own until told to stop or the stack dies."""

    def __init__(self, access: Access, name: str, stamps: Iterable[int], rng: random.Random):
        super().__init__(daemon=True)
        self.access, self.label, self.stamps, self.rng = access, name, iter(stamps), rng
        bearer = {"Authorization": f"Bearer {access.token}"}
        self.full = httpx.Client(base_url=access.base_url, headers=bearer, timeout=10)
        self.admin = httpx.Client(
            base_url=access.base_url,
            headers={"Origin": access.base_url},
            cookies=access.cookies,
            timeout=10,
        )
        self.owned: dict[str, list[str]] = {"note": [], "type": [], "token": [], "webhook": []}
        self.stopping = threading.Event()
        self.calls = 0

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                self._step(self.rng.choice(["note", "note", "type", "token", "webhook"]))
                self.calls += 1
        except httpx.HTTPError:
            return  # the stack died under the call
        finally:
            self.full.close()
            self.admin.close()

    def _made(self, kind: str, response: httpx.Response, key: str = "id") -> None:
        if response.status_code == 201:
            self.owned[kind].append(str(response.json()[key]))

    def _step(self, kind: str) -> None:
        owned, stamp = self.owned[kind], next(self.stamps)
        change = bool(owned) and self.rng.random() < 0.7
        if kind == "note":
            if change:
                path = f"/api/v1/content/{NOTE}/{self.rng.choice(owned)}"
                self.full.patch(path, json={"values": {"stamp": stamp}})
            else:
                made = self.full.post(f"/api/v1/content/{NOTE}", json={"values": {"stamp": stamp}})
                self._made(kind, made)
        elif kind == "type":
            self._type(owned, stamp, change)
        elif kind == "token":
            self._token(owned, stamp, change)
        else:
            self._webhook(owned, stamp, change)

    def _type(self, owned: list[str], stamp: int, change: bool) -> None:
        if change:
            name = owned.pop(self.rng.randrange(len(owned)))
            self.full.delete(f"/api/v1/content-types/{name}")
            return
        body = {"name": f"t_{self.label}_{stamp}", "fields": [{"name": "x", "type": "string"}]}
        self._made("type", self.full.post("/api/v1/content-types", json=body), "name")

    def _token(self, owned: list[str], stamp: int, change: bool) -> None:
        if change:
            self.admin.delete(f"/api/v1/tokens/{owned.pop(self.rng.randrange(len(owned)))}")
            return
        body = {"name": f"crash-{stamp}", "workspaceId": self.access.workspace_id, "access": "read"}
        self._made("token", self.admin.post("/api/v1/tokens", json=body))

    def _webhook(self, owned: list[str], stamp: int, change: bool) -> None:
        if change and self.rng.random() < 0.3:
            self.admin.delete(f"/api/webhooks/{owned.pop(self.rng.randrange(len(owned)))}")
        elif change:
            path = f"/api/webhooks/{self.rng.choice(owned)}"
            self.admin.patch(path, json={"contentTypes": [f"s{stamp}"]})
        else:
            body = {
                "url": LISTENER_URL,
                "mode": "pull",
                "allWorkspaces": True,
                "contentTypes": [f"s{stamp}"],
            }
            self._made("webhook", self.admin.post("/api/webhooks", json=body))


# -- the comparison ------------------------------------------------------------------------


def _targets(records: list[dict[str, Any]], kind: str, action: str) -> set[str]:
    return {
        r["target"]["id"] for r in records if r["target"]["kind"] == kind and r["action"] == action
    }


def _newest_stamps(records: list[dict[str, Any]], kind: str, read: Any) -> dict[str, int]:
    """The highest stamp each target's records show (`read` takes it from the changes)."""
    newest: dict[str, int] = {}
    for record in records:
        stamp = read(record.get("changes") or {}) if record["target"]["kind"] == kind else None
        if stamp is not None:
            target = record["target"]["id"]
            newest[target] = max(stamp, newest.get(target, stamp))
    return newest


def _note_stamp(changes: dict[str, Any]) -> int | None:
    stamp = (changes.get("values") or {}).get("stamp")
    return int(stamp) if stamp is not None else None


def _endpoint_stamp(changes: dict[str, Any]) -> int | None:
    names = (changes.get("values") or {}).get("contentTypes")
    return int(str(names[0])[1:]) if names else None


def _compare(what: str, stored: set[str], recorded: set[str]) -> list[str]:
    problems = [f"{what} {i} stored without its record" for i in sorted(stored - recorded)]
    problems += [f"{what} {i} recorded but not stored" for i in sorted(recorded - stored)]
    return problems


_READERS = {"entry": _note_stamp, "webhook": _endpoint_stamp}


def _repeated_stamps(records: list[dict[str, Any]]) -> list[str]:
    """A stamp is written once: two records of it are one change recorded twice."""
    stamps = Counter(
        stamp
        for r in records
        if r["target"]["kind"] in _READERS
        for stamp in (_READERS[r["target"]["kind"]](r.get("changes") or {}),)
        if stamp is not None
    )
    return [f"stamp {stamp} recorded {n} times" for stamp, n in stamps.items() if n > 1]


def _stamps(what: str, stored: dict[str, int], newest: dict[str, int]) -> list[str]:
    return [
        f"{what} {i} holds stamp {stamp}, its newest record says {newest.get(i)}"
        for i, stamp in sorted(stored.items())
        if newest.get(i) != stamp
    ]


@dataclass(frozen=True)
class Stored:
    """What the writers' changes left in the tables."""

    notes: dict[str, int]
    types: set[str]
    tokens: set[str]
    live_tokens: set[str]
    endpoints: dict[str, int]

    @classmethod
    def read(cls, storage: Storage, workspace_id: str) -> Stored:
        notes = {
            str(item["id"]): int(next(iter(item["values"].values())))
            for item in storage.scan("CONTENT_TABLE")
            if item.get("sk") == "ENTRY" and item.get("contentType") == NOTE
        }
        schema = storage.scan("SCHEMA_TABLE")
        types = {
            str(i["name"])
            for i in schema
            if i.get("entity") == "content_type" and i["pk"] == f"WORKSPACE#{workspace_id}"
        }
        tokens = [i for i in schema if i.get("sk") == "TOKEN"]
        endpoints = {
            str(e["id"]): int(str(e["contentTypes"][0])[1:])
            for e in storage.scan("ENDPOINTS_TABLE")
        }
        return cls(
            notes,
            types,
            {str(i["id"]) for i in tokens},
            {str(i["id"]) for i in tokens if not i.get("revokedAt")},
            endpoints,
        )


def audit_problems(storage: Storage, workspace_id: str) -> tuple[list[str], dict[str, int]]:
    """Every difference between the stored changes and the audit records, and the counts."""
    records = [r for r in storage.scan("AUDIT_TABLE") if r["pk"] in (workspace_id, "service")]
    stored = Stored.read(storage, workspace_id)

    def recorded(kind: str, made: str, gone: str = "") -> set[str]:
        return _targets(records, kind, made) - _targets(records, kind, gone)

    problems = _compare("note", set(stored.notes), recorded("entry", "entry.created"))
    types = recorded("content_type", "contentType.created", "contentType.deleted")
    problems += _compare("type", stored.types, types)
    problems += _compare("token", stored.tokens, recorded("token", "token.created"))
    live_tokens = recorded("token", "token.created", "token.revoked")
    problems += _compare("live token", stored.live_tokens, live_tokens)
    endpoints = recorded("webhook", "webhook.created", "webhook.deleted")
    problems += _compare("endpoint", set(stored.endpoints), endpoints)
    problems += _stamps("note", stored.notes, _newest_stamps(records, "entry", _note_stamp))
    newest_endpoints = _newest_stamps(records, "webhook", _endpoint_stamp)
    problems += _stamps("endpoint", stored.endpoints, newest_endpoints)
    problems += _repeated_stamps(records)
    counts = {"records": len(records), "notes": len(stored.notes), "types": len(stored.types)}
    counts |= {"tokens": len(stored.tokens), "endpoints": len(stored.endpoints)}
    return problems, counts


def run_audit_crash(config: AuditCrashConfig, say: Any = print) -> dict[str, Any]:
    stamps = itertools.count()
    accesses: list[Access] = []

    def writers(stack: StackProcess, number: int, rng: random.Random) -> list[AuditWriter]:
        accesses.append(_access(stack, first=not accesses))
        return [
            AuditWriter(accesses[-1], f"w{n}_{number}", stamps, random.Random(rng.random()))
            for n in range(config.writers)
        ]

    def check(storage: Storage) -> tuple[list[str], dict[str, int]]:
        assert accesses
        return audit_problems(storage, accesses[-1].workspace_id)

    return kill_rounds("crash-audit-", config, writers, check, say)


def main(argv: Sequence[str]) -> int:
    return writers_main(argv, "crash_audit", __doc__, AuditCrashConfig, run_audit_crash)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
