"""`make crash`: the local stack killed with SIGKILL at random moments while writers and
deliveries run, restarted each time, and nothing acknowledged or emitted may be missing.

What runs:

- **The stack**: `python -m infra.local_stack` (what `make run` runs) in a process group of its
  own (as a shell starts a job), on the same free ports and the same temporary `LOCAL_DIR`
  across restarts, receivers on 127.0.0.1 allowed, deliveries polled every 100 ms.
- **Writers**: `--writers` threads making REST calls with the bootstrap full token, each on
  entries it created itself: create, update (a draft of a live entry too), publish (of
  `changed` entries too), unpublish, discard, delete, and a scheduled publish a few seconds
  ahead, in a seeded random order. Every answer is kept in a ledger; a call that got no answer
  (the stack died under it) is uncertain: it may or may not have been applied. An entry with a
  schedule is left alone afterwards, so its state is the schedule's doing.
- **Uploader**: a thread putting objects (1 byte to 256 KB, a `Content-Type` each) into the
  assets bucket straight through the emulator, each answer kept (harness/crash_objects.py).
- **Receivers**: real HTTP receivers on 127.0.0.1 (harness/receiver.py), each behind an
  endpoint: one always 200 (of the default workspace, every kind; its secret rotated with a
  grace hour at the start, so every delivery carries two signatures), one answering 500 to a
  seeded random fifth of its requests (so rows fail and retry; `rateLimit` 20, so rows are
  held and given back), one always 410 (every delivery dead: the endpoint turns failing at 10
  and is disabled at 20), and a watcher (`allWorkspaces`, the operational kinds) that hears
  those notices.
- **Cycles**: `--kills` cycles end in SIGKILL of the stack's supervisor (its children die with
  it) after a random 1 to 4 s of writing; `--graceful` more end in SIGTERM and SIGINT in turn,
  sent to the whole process group as systemd's stop and Ctrl-C send them, in a seeded random
  order. A last start lets the stack settle (every row finished or scheduled, no event left
  unfanned), then stops it with SIGTERM to the group.

Checks (a failed one makes the exit status 1):

1. **Writes**: after every restart, each entry answers with its last acknowledged title and
   status, and its published version with its last acknowledged live title (404 once its
   delete was acknowledged), or with the result of the uncertain call; an entry with a
   schedule, as before the schedule or as it left it.
2. **Events**: every acknowledged write has its outbox event; after the settle every event is
   marked fanned out and has a delivery row for each enabled endpoint it matches that was
   created before it occurred.
3. **Notifications**: no receiver was told about an entry that is absent from the final state,
   unless a delete event of that entry explains it.
4. **Rows**: every delivery is `succeeded` or `dead`, or `failed` with a `nextAttemptAt`.
5. **Repeats**: a (delivery, attempt) a receiver got twice is counted. Across a SIGKILL it is
   allowed and reported; across a SIGTERM or SIGINT, or within one run, it must be 0.
6. **Notices**: the 410 endpoint's transitions each have exactly one operational event (one
   `endpoint.failing` once it counted 10 dead, one `endpoint.disabled` if it is disabled), and
   the watcher received each.
7. **Rotation**: the older secret survives every restart, and every delivery to the rotated
   endpoint verifies with the old secret and with the new one.
8. **Schedules**: after the settle, every acknowledged schedule ran (the stack's scheduler
   runs each minute), and its entry is published with its title.
9. **Objects**: after every restart, each upload S3 acknowledged reads back byte for byte
   with its `Content-Type`; one that got no answer is missing or whole, never truncated.
10. **Clean stops**: each SIGTERM or SIGINT stop exits 0 and logs no traceback and, with the
   journal on, the saved-state line (`saved N item(s) to .../state.json`): the last snapshot.

`run_notice_crash` (`tests/integration/test_crash_quick.py`) kills the stack the moment the 410
endpoint is disabled, before its notice is sent, and checks that the notice arrives after the
restart, once.

`--no-journal` runs the stack with `LOCAL_JOURNAL=off` (nothing kept across restarts): the
protection removed, to see these checks fail.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import boto3
import httpx
from boto3.dynamodb.types import TypeDeserializer

from content_service.clock import iso_utc, parse_iso_utc
from content_service.storage.json_values import NotJson, plain
from content_service.storage.outbox_event import MalformedEvent, OutboxEvent
from content_service.webhooks.deliveries import fanout_delivery_id, matches
from content_service.webhooks.endpoints import OPERATIONAL_KINDS, Endpoint, secret_hint
from content_service.webhooks.sending import SignatureVerificationError, verify_signature
from harness.crash_objects import ObjectLedger, Uploader, verify_objects
from harness.ports import free_port
from harness.receiver import Answer, Received, Receiver
from infra import REPO_ROOT
from infra.emulator import FAKE_CREDENTIALS

TYPE = "note"
BUSY = ("pending", "delivering")
CLAIM_TIMEOUT_S = 30.0  # claimTimeoutMs
SCHEDULE_WAIT_S = 150.0  # the stack's scheduler runs each minute; two runs and a margin
_deserializer = TypeDeserializer()


@dataclass(frozen=True)
class CrashConfig:
    kills: int = 10
    graceful: int = 2
    writers: int = 4
    seed: int = 20261124
    schedules: bool = True
    min_run_s: float = 1.0
    max_run_s: float = 4.0
    settle_stall_s: float = 150.0
    settle_limit_s: float = 900.0
    journal: bool = True


# -- the ledger of what the API acknowledged ---------------------------------------------------


# What each writer operation emits (a discard is an update of the entry).
EVENT_OF = {
    "created": "entry.created",
    "updated": "entry.updated",
    "published": "entry.published",
    "unpublished": "entry.unpublished",
    "discarded": "entry.updated",
    "deleted": "entry.deleted",
}
SCHEDULE_AHEAD_S = (1.0, 3.0)


@dataclass
class Entry:
    id: str
    title: str
    status: str = "draft"  # draft, published or changed
    live: str | None = None  # the published version's title
    deleted: bool = False
    uncertain: tuple[str, str | None] | None = None  # (operation, title) sent without an answer
    acked: Counter[str] = field(default_factory=Counter)  # event kinds acknowledged
    schedule: str | None = None  # a scheduled publish's id ("?" while its POST is uncertain)

    def state(self) -> tuple[str, str, str | None] | str:
        """What a full token reads: (title, status, live title), or absent once deleted."""
        return "absent" if self.deleted else (self.title, self.status, self.live)


@dataclass
class Ledger:
    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    acknowledged: int = 0
    uncertain_creates: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)


class FlakyReceiver(Receiver):
    """Answers 500 to a seeded random fifth of its requests, 200 to the rest."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._random = random.Random(seed)

    def _next_answer(self) -> Answer:
        with self._lock:
            return Answer(500, b"try later") if self._random.random() < 0.2 else Answer(200)


# -- the stack process -------------------------------------------------------------------------


@dataclass
class Cycle:
    started: float
    ended: float = 0.0
    how: str = "running"  # SIGKILL, SIGTERM, SIGINT, final


class StackProcess:
    def __init__(self, local_dir: Path, config: CrashConfig) -> None:
        self.local_dir = local_dir
        self.port, self.moto_port = free_port(), free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "PORT": str(self.port),
            "MOTO_PORT": str(self.moto_port),
            "LOCAL_DIR": str(local_dir),
            "PYTHONUNBUFFERED": "1",
            "LOG_LEVEL": "INFO",
            "WEBHOOKS_DELIVERY_INTERVAL": "100",
            "WEBHOOKS_TIMEOUT": "2000",
            "WEBHOOKS_ALLOW_INSECURE_URLS": "true",
            "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "true",
            "LOCAL_JOURNAL": "on" if config.journal else "off",
        }
        self.journal = config.journal
        self.process: subprocess.Popen[bytes] | None = None
        self.log = local_dir.parent / "stack.log"

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "infra.local_stack"],
                cwd=REPO_ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                process_group=0,
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the stack exited with {self.process.returncode}; see {self.log}"
                )
            if (self.local_dir / "stack.json").exists() and self._healthy():
                return
            time.sleep(0.1)
        raise RuntimeError(f"the stack did not become healthy; see {self.log}")

    def _healthy(self) -> bool:
        try:
            return httpx.get(f"{self.base_url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self, how: str) -> list[str]:
        """SIGKILL to the supervisor (a crash), or SIGTERM or SIGINT to the whole process group
        (systemd's stop, Ctrl-C); returns what a graceful stop got wrong (check 10)."""
        assert self.process is not None
        logged = self.log.stat().st_size
        if how == "SIGKILL":
            self.process.kill()
        else:
            os.killpg(self.process.pid, getattr(signal, how))
        code = self.process.wait(60)
        # A killed stack leaves its stack.json behind; the next start writes a new one.
        (self.local_dir / "stack.json").unlink(missing_ok=True)
        if how == "SIGKILL":
            return []
        if code != 0:
            raise RuntimeError(f"the stack exited with {code} after {how}; see {self.log}")
        with self.log.open("rb") as log:
            log.seek(logged)
            stop_log = log.read().decode("utf-8", "replace")
        return self._stop_problems(how, stop_log)

    def _stop_problems(self, how: str, stop_log: str) -> list[str]:
        saved = f"item(s) to {self.local_dir.resolve() / 'state.json'}"  # as the stack logs it
        problems = [
            f"the stop by {how} logged {sign!r}; see {self.log}"
            for sign in ("Traceback", "Broken pipe")
            if sign in stop_log
        ]
        if self.journal and saved not in stop_log:
            problems.append(f"the stop by {how} saved no last snapshot; see {self.log}")
        return problems

    def storage(self) -> Storage:
        stack = json.loads((self.local_dir / "stack.json").read_text())
        return Storage(stack["awsEndpointUrl"], stack["region"], stack["env"])


class Storage:
    """The stack's tables, read directly (consistent scans), for the final checks."""

    def __init__(self, endpoint_url: str, region: str, env: dict[str, str]) -> None:
        self.client = boto3.client(
            "dynamodb",
            endpoint_url=endpoint_url,
            region_name=region,
            aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
        )
        self.env = env

    def scan(
        self,
        table_variable: str,
        projection: str | None = None,
        names: dict[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        request: dict[str, Any] = {"TableName": self.env[table_variable], "ConsistentRead": True}
        if projection is not None:
            request["ProjectionExpression"] = projection
        if names:
            request["ExpressionAttributeNames"] = names
        pages = self.client.get_paginator("scan").paginate(**request)
        return [
            {k: _deserializer.deserialize(v) for k, v in item.items()}
            for page in pages
            for item in page.get("Items", [])
        ]


# -- writers -----------------------------------------------------------------------------------


class Writer(threading.Thread):
    def __init__(
        self,
        number: int,
        base_url: str,
        token: str,
        ledger: Ledger,
        rng: random.Random,
        schedules: bool = True,
    ) -> None:
        super().__init__(name=f"writer-{number}", daemon=True)
        self.number = number
        self.client = httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
        self.ledger = ledger
        self.rng = rng
        self.stopping = threading.Event()
        self.pause_s = 0.05  # a busy editor, not a load test: the deliveries keep up
        self.mine: list[Entry] = []
        self.serial = 0
        self.schedules = schedules

    def run(self) -> None:
        try:
            while not self.stopping.wait(self.pause_s):
                if not self._step():
                    return
        finally:
            self.client.close()

    def _step(self) -> bool:
        live = [
            e for e in self.mine if not e.deleted and e.uncertain is None and e.schedule is None
        ]
        if len(live) < 3 or self.rng.random() < 0.25:
            return self._create()
        entry = self.rng.choice(live)
        choice = self.rng.random()
        if choice < 0.40:
            self.serial += 1
            title = f"w{self.number} e{entry.id[:8]} v{self.serial}"
            return self._call(
                entry, Change("updated", "PATCH", "", {"values": {"title": title}}, title)
            )
        if choice < 0.62 or (choice < 0.72 and entry.status != "changed"):
            action = "unpublish" if entry.status == "published" else "publish"
            return self._call(entry, Change(f"{action}ed", "POST", f"/{action}"))
        if choice < 0.72:
            return self._call(entry, Change("discarded", "POST", "/discard"))
        if choice < 0.80 and self.schedules and entry.status != "published":
            return self._schedule(entry)
        return self._call(entry, Change("deleted", "DELETE"))

    def _schedule(self, entry: Entry) -> bool:
        at = iso_utc(time.time() + self.rng.uniform(*SCHEDULE_AHEAD_S))
        entry.schedule = "?"
        try:
            response = self.client.post(
                f"/api/v1/content/{TYPE}/{entry.id}/schedules",
                json={"action": "publish", "at": at},
            )
        except httpx.HTTPError:
            return False  # uncertain: the next verification looks for it
        if response.status_code != 201:
            self.ledger.problem(f"schedule answered {response.status_code}: {response.text}")
            return True
        entry.schedule = response.json()["id"]
        with self.ledger.lock:
            self.ledger.acknowledged += 1
        return True

    def _create(self) -> bool:
        self.serial += 1
        title = f"w{self.number} v{self.serial}"
        try:
            response = self.client.post(
                f"/api/v1/content/{TYPE}", json={"values": {"title": title}}
            )
        except httpx.HTTPError:
            with self.ledger.lock:
                self.ledger.uncertain_creates += 1
            return False
        if response.status_code != 201:
            self.ledger.problem(f"create answered {response.status_code}: {response.text[:200]}")
            return True
        entry = Entry(response.json()["id"], title)
        entry.acked[EVENT_OF["created"]] += 1
        with self.ledger.lock:
            self.ledger.entries[entry.id] = entry
            self.ledger.acknowledged += 1
        self.mine.append(entry)
        return True

    def _call(self, entry: Entry, change: Change) -> bool:
        path = f"/api/v1/content/{TYPE}/{entry.id}{change.suffix}"
        try:
            response = uncertain_request(self.client, entry, change, path)
        except httpx.HTTPError:
            return False  # the stack died under the call: uncertain until the restart
        if response.status_code >= 300:
            self.ledger.problem(f"{change.method} {path} answered {response.status_code}")
            return True
        made(entry, change.kind, change.title)
        with self.ledger.lock:
            self.ledger.acknowledged += 1
        return True


@dataclass(frozen=True)
class Change:
    """One operation on an entry: its kind (as `made` applies it), the call that makes it (a
    method and a path suffix after the entry's own, a body) and the title it writes."""

    kind: str
    method: str
    suffix: str = ""
    body: dict[str, Any] | None = None
    title: str | None = None


def uncertain_request(
    client: httpx.Client, entry: Entry, change: Change, path: str
) -> httpx.Response:
    """Makes `change`'s call at `path`; until it answers, `entry.uncertain` names the change (a
    kill leaves it so, for the restart to settle)."""
    entry.uncertain = (change.kind, change.title)
    response = client.request(change.method, path, json=change.body)
    entry.uncertain = None
    return response


def made(entry: Entry, kind: str, title: str | None) -> None:
    """An operation the stack made (acknowledged, or found applied after a kill): applied to the
    entry, and its event owed."""
    _apply(entry, kind, title)
    entry.acked[EVENT_OF[kind]] += 1


def _apply(entry: Entry, kind: str, title: str | None) -> None:
    """What an operation does to the entry (docs/content.md, "States and events")."""
    if kind == "updated" and title is not None:
        entry.title = title
        entry.status = "draft" if entry.live is None else "changed"
    elif kind == "published":
        entry.status, entry.live = "published", entry.title
    elif kind == "unpublished":
        entry.status, entry.live = "draft", None
    elif kind == "discarded" and entry.live is not None:
        entry.status, entry.title = "published", entry.live
    elif kind == "deleted":
        entry.deleted = True


class _PatientTransport(httpx.HTTPTransport):
    """Answers a 429 as a well-behaved client does: waits its `Retry-After` and asks again.

    The checks read every entry with one token from eight threads, faster than the token's
    default rate limit (`CONTENT_RATE_LIMIT`) allows; the limit is the product working."""

    _ATTEMPTS = 20

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        for _ in range(self._ATTEMPTS - 1):
            response = super().handle_request(request)
            if response.status_code != 429:
                return response
            response.read()
            response.close()
            time.sleep(float(response.headers.get("Retry-After", "1")))
        return super().handle_request(request)


def _reader(base_url: str, token: str) -> httpx.Client:
    """The checks' client: the token's reads, 429s waited out."""
    return httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
        transport=_PatientTransport(),
    )


# -- check 1: acknowledged writes are readable -------------------------------------------------


def verify_writes(base_url: str, token: str, ledger: Ledger) -> None:
    """Compares every entry with the ledger; resolves uncertain calls to what was applied."""
    entries = list(ledger.entries.values())
    with _reader(base_url, token) as client, ThreadPoolExecutor(8) as pool:
        answers = pool.map(lambda e: _observed(client, e.id), entries)
        for entry, seen in zip(entries, answers, strict=True):
            if entry.schedule == "?":
                entry.schedule = _schedule_of(client, entry.id)
            _verify(entry, seen, ledger)


def _schedule_of(client: httpx.Client, entry_id: str) -> str | None:
    """The schedule an uncertain POST left (None: it never reached the stack)."""
    found = client.get(f"/api/v1/content/{TYPE}/{entry_id}/schedules")
    items = found.json()["items"] if found.status_code == 200 else []
    return str(items[0]["id"]) if items else None


def _verify(entry: Entry, seen: tuple[str, str, str | None] | str, ledger: Ledger) -> None:
    expected = entry.state()
    if entry.uncertain is None:
        if seen != expected and not _scheduled_publish(entry, seen):
            ledger.problem(f"entry {entry.id}: acknowledged {expected}, found {seen}")
        return
    kind, title = entry.uncertain
    after = Entry(entry.id, entry.title, entry.status, entry.live, entry.deleted)
    _apply(after, kind, title)
    if seen == after.state():
        made(entry, kind, title)
    elif seen != expected:
        ledger.problem(f"entry {entry.id}: neither before nor after {kind}: {seen}")
    entry.uncertain = None


def _scheduled_publish(entry: Entry, seen: tuple[str, str, str | None] | str) -> bool:
    """Whether `seen` is the entry as its scheduled publish leaves it (recorded when so)."""
    if entry.schedule is None or seen != (entry.title, "published", entry.title):
        return False
    entry.status, entry.live = "published", entry.title
    return True


def _observed(client: httpx.Client, entry_id: str) -> tuple[str, str, str | None] | str:
    """(title, status, the published version's title or None) as a full token reads them."""
    latest = client.get(f"/api/v1/content/{TYPE}/{entry_id}")
    if latest.status_code == 404:
        return "absent"
    if latest.status_code != 200:
        return f"HTTP {latest.status_code}"
    published = client.get(f"/api/v1/content/{TYPE}/{entry_id}", params={"version": "published"})
    if published.status_code not in (200, 404):
        return f"HTTP {published.status_code} (published)"
    body = latest.json()
    live = published.json()["values"]["title"] if published.status_code == 200 else None
    return (body["values"]["title"], body["status"], live)


def check_schedules(base_url: str, token: str, ledger: Ledger, limit_s: float) -> list[str]:
    """Every acknowledged schedule ran (waiting for the stack's minute scheduler, up to
    `limit_s`) and left its entry published with its title."""
    scheduled = [e for e in ledger.entries.values() if e.schedule not in (None, "?")]
    problems: list[str] = []
    deadline = time.monotonic() + limit_s
    with _reader(base_url, token) as client:
        for entry in scheduled:
            path = f"/api/v1/content/{TYPE}/{entry.id}/schedules"
            status = "scheduled"
            while status == "scheduled" and time.monotonic() < deadline:
                items = client.get(path).json()["items"]
                status = next((s["status"] for s in items if s["id"] == entry.schedule), "lost")
                if status == "scheduled":
                    time.sleep(1)
            seen = _observed(client, entry.id)
            if status != "done":
                problems.append(f"schedule {entry.schedule} of entry {entry.id} is {status}")
            elif seen != (entry.title, "published", entry.title):
                problems.append(f"entry {entry.id}: scheduled publish ran, found {seen}")
    return problems


# -- checks 2 to 5 after the settle ------------------------------------------------------------


@dataclass
class Final:
    events: list[dict[str, Any]]
    endpoints: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    read_at: float


def settle(storage: Storage, stall_s: float, limit_s: float) -> tuple[Final, bool]:
    """Waits until no row is pending or delivering and no event is still marked.

    The backlog a run leaves depends on the machine, so the wait is bounded by progress: it
    fails when nothing moved for `stall_s` (longer than a claim's expiry plus the minute
    sweep), or after `limit_s` in all. The polls read only what they need, every few seconds:
    scanning every row's body each second would starve the stack it waits for.
    """
    started = last_progress = time.monotonic()
    best: tuple[int, int] | None = None
    while True:
        rows = storage.scan("DELIVERIES_TABLE", "id, #s, endpointId", {"#s": "status"})
        events = storage.scan("EVENTS_TABLE", "id, fanoutShard")
        busy = sum(1 for r in rows if "endpointId" in r and r["status"] in BUSY)
        marked = sum(1 for e in events if "fanoutShard" in e)
        if not busy and not marked:
            break
        now = time.monotonic()
        if best is None or (busy, marked) < best:
            best, last_progress = (busy, marked), now
        if now - last_progress > stall_s or now - started > limit_s:
            return _final(storage), False
        time.sleep(5.0)
    return _final(storage), True


def _final(storage: Storage) -> Final:
    read_at = time.time()
    rows = [r for r in storage.scan("DELIVERIES_TABLE") if "endpointId" in r]
    return Final(storage.scan("EVENTS_TABLE"), storage.scan("ENDPOINTS_TABLE"), rows, read_at)


def check_events(final: Final, ledger: Ledger) -> list[str]:
    problems: list[str] = []
    kinds: Counter[tuple[str, str]] = Counter(
        (e["data"]["id"], e["kind"]) for e in final.events if isinstance(e.get("data"), dict)
    )
    for entry in ledger.entries.values():
        for kind, count in entry.acked.items():
            if kinds[(entry.id, kind)] < count:
                problems.append(
                    f"entry {entry.id}: {count} acknowledged {kind}, "
                    f"{kinds[(entry.id, kind)]} event(s)"
                )
    row_ids = {r["id"] for r in final.rows}
    # An endpoint disabled during the run (the 410 one) takes no rows from then on, and which
    # events the fan-out saw before that is not known afterwards: only enabled ones are held
    # to every event they match.
    endpoints = [Endpoint.from_values(plain(e)) for e in final.endpoints]
    for event in final.events:
        if "fanoutShard" in event:
            problems.append(f"event {event['id']} still marked: its fan-out never completed")
        try:
            outbox = OutboxEvent.from_item(plain(event))
        except (MalformedEvent, NotJson) as error:
            problems.append(f"event {event['id']} is not an outbox event: {error}")
            continue
        for endpoint in endpoints:
            if endpoint.created_at > outbox.occurred_at or not matches(endpoint, outbox):
                continue
            if fanout_delivery_id(endpoint.id, outbox.id) not in row_ids:
                problems.append(f"event {outbox.id} has no row for endpoint {endpoint.id}")
    return problems


def check_notices(
    final: Final, heard: Sequence[Received], subject_id: str
) -> tuple[list[str], dict[str, int]]:
    """The subject's transitions each have one notice event, and the watcher heard each."""
    notices = [
        e for e in final.events if e["kind"] in OPERATIONAL_KINDS and e["data"]["id"] == subject_id
    ]
    counts = Counter(e["kind"] for e in notices)
    found = [e for e in final.endpoints if e["id"] == subject_id]
    if not found:
        return [f"endpoint {subject_id} is gone"], dict(counts)
    subject = found[0]
    expected = {
        "endpoint.failing": 1 if int(subject.get("consecutiveDead", 0)) >= 10 else 0,
        "endpoint.disabled": 0 if subject["enabled"] else 1,
        "endpoint.recovered": 0,
    }
    problems = [
        f"endpoint {subject_id}: {counts[kind]} {kind} event(s), expected {number}"
        for kind, number in expected.items()
        if counts[kind] != number
    ]
    got = {json.loads(r.body).get("eventId") for r in heard}
    problems += [
        f"the watcher never heard {e['kind']} {e['id']}" for e in notices if e["id"] not in got
    ]
    return problems, {kind: counts[kind] for kind in expected}


def check_rotation(received: Sequence[Received], secrets: Sequence[str]) -> list[str]:
    """Every delivery to the rotated endpoint verifies with each of its secrets."""
    problems = []
    for request in received:
        header = request.header("X-Service-Signature") or ""
        for secret in secrets:
            try:
                verify_signature(request.body, header, secret, tolerance=10**9)
            except SignatureVerificationError as error:
                problems.append(
                    f"delivery {request.header('X-Service-Delivery')} does not verify with the "
                    f"secret ending {secret[-4:]}: {error}"
                )
    return problems


def cut_short(request: Received) -> bool:
    """The request's body is shorter than its Content-Length said (its sender died)."""
    declared = request.header("Content-Length")
    return declared is not None and declared.isdigit() and len(request.body) < int(declared)


def check_notifications(
    final: Final, received: Sequence[Received], base_url: str, token: str
) -> list[str]:
    deleted = {e["data"]["id"] for e in final.events if e["kind"] == "entry.deleted"}
    problems: list[str] = []
    notified: set[str] = set()
    for request in received:
        try:
            notified.add(json.loads(request.body)["data"]["id"])
        except (ValueError, KeyError, TypeError):
            problems.append(
                f"a receiver got a notification it cannot read: {request.method} {request.path}, "
                f"webhook-id {request.header('webhook-id')}, {len(request.body)} bytes "
                f"{request.body[:60]!r}"
            )
    notified = {n for n in notified if n not in endpoint_ids(final)}
    with _reader(base_url, token) as client:
        for entry_id in sorted(notified - deleted):
            if client.get(f"/api/v1/content/{TYPE}/{entry_id}").status_code != 200:
                problems.append(f"a receiver was told of entry {entry_id}, absent and not deleted")
    return problems


def endpoint_ids(final: Final) -> set[str]:
    """What an operational notice names (`data.id`): an endpoint, not an entry."""
    return {str(e["id"]) for e in final.endpoints}


def check_rows(final: Final) -> tuple[list[str], Counter[str]]:
    """Every row finished, scheduled by the ladder, or in flight (a live claim).

    A failed row's retry can come due after the settle, so a row may be `delivering` when the
    final scan reads it: allowed while its claim is younger than `claimTimeoutMs` (30 s).
    """
    problems = []
    states: Counter[str] = Counter()
    for row in final.rows:
        states[row["status"]] += 1
        scheduled = row["status"] == "failed" and row.get("nextAttemptAt")
        claimed = row.get("claimedAt")
        in_flight = (
            row["status"] == "delivering"
            and isinstance(claimed, str)
            and final.read_at - parse_iso_utc(claimed) < CLAIM_TIMEOUT_S
        )
        if row["status"] not in ("succeeded", "dead") and not scheduled and not in_flight:
            problems.append(f"row {row['id']} is {row['status']}, neither finished nor scheduled")
    return problems, states


def count_repeats(received: Sequence[Received], cycles: Sequence[Cycle]) -> dict[str, int]:
    """Repeated (delivery, attempt) sends, by what lay between the two copies."""

    def cycle_of(at: float) -> int:
        for index, cycle in enumerate(cycles):
            if at <= (cycle.ended or float("inf")):
                return index
        return len(cycles) - 1

    first_seen: dict[tuple[str, str], int] = {}
    repeats = {"afterKill": 0, "afterGracefulStop": 0, "withinOneRun": 0}
    for request in sorted(received, key=lambda r: r.at):
        key = (
            request.header("X-Service-Delivery") or "",
            request.header("X-Service-Attempt") or "",
        )
        cycle = cycle_of(request.at)
        if key not in first_seen:
            first_seen[key] = cycle
            continue
        between = [c.how for c in cycles[first_seen[key] : cycle]]
        if "SIGKILL" in between:
            repeats["afterKill"] += 1
        elif between:
            repeats["afterGracefulStop"] += 1
        else:
            repeats["withinOneRun"] += 1
    return repeats


# -- the run -----------------------------------------------------------------------------------


def _signed_in(stack: StackProcess) -> tuple[httpx.Client, dict[str, Any]]:
    """A client signed in as the bootstrap administrator, and the bootstrap credentials."""
    credentials = json.loads((stack.local_dir / "bootstrap.json").read_text())
    admin = httpx.Client(base_url=stack.base_url, headers={"Origin": stack.base_url}, timeout=30)
    response = admin.post(
        "/login",
        data={"email": credentials["admin"]["email"], "password": credentials["admin"]["password"]},
    )
    if response.status_code != 303:
        raise RuntimeError(f"sign-in answered {response.status_code}")
    return admin, credentials


def _admin(stack: StackProcess) -> tuple[httpx.Client, dict[str, Any]]:
    """A signed-in administrator, and the bootstrap credentials, with the crash's type made."""
    admin, credentials = _signed_in(stack)
    created = admin.post(
        "/api/v1/content-types",
        json={"name": TYPE, "fields": [{"name": "title", "type": "string"}]},
    )
    if created.status_code != 201:
        raise RuntimeError(f"content type: {created.status_code} {created.text}")
    return admin, credentials


def _endpoint(admin: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    hook = admin.post("/api/webhooks", json=body)
    if hook.status_code != 201:
        raise RuntimeError(f"endpoint: {hook.status_code} {hook.text}")
    made: dict[str, Any] = hook.json()
    return made


def _watch(admin: httpx.Client, watcher: Receiver) -> dict[str, Any]:
    """The watcher: every workspace, the operational kinds only."""
    body = {"url": watcher.url(), "allWorkspaces": True, "events": list(OPERATIONAL_KINDS)}
    return _endpoint(admin, body)


@dataclass(frozen=True)
class Receivers:
    healthy: Receiver
    flaky: Receiver
    gone: Receiver
    watcher: Receiver


def _admin_setup(stack: StackProcess, receivers: Receivers) -> dict[str, Any]:
    """The endpoints, and the healthy one's secret rotated with a grace hour."""
    admin, credentials = _admin(stack)
    try:
        workspace = [credentials["workspaceId"]]
        healthy = _endpoint(admin, {"url": receivers.healthy.url(), "workspaces": workspace})
        _endpoint(admin, {"url": receivers.flaky.url(), "workspaces": workspace, "rateLimit": 20})
        gone = _endpoint(admin, {"url": receivers.gone.url(), "workspaces": workspace})
        _watch(admin, receivers.watcher)
        rotated = admin.post(
            f"/api/webhooks/{healthy['id']}/rotate-secret", json={"graceSeconds": 3600}
        )
        if rotated.status_code != 200:
            raise RuntimeError(f"rotate: {rotated.status_code} {rotated.text}")
    finally:
        admin.close()
    return {
        "token": credentials["tokens"]["full"],
        "healthy": healthy["id"],
        "secrets": (rotated.json()["secret"], healthy["secret"]),
        "gone": gone["id"],
    }


def check_older_secret(stack: StackProcess, endpoint_id: str, old: str) -> list[str]:
    """The rotated endpoint still holds its older secret (as the journal kept it): the API,
    which opens the sealed secrets, shows its hint among the older ones (check 7 then proves
    every delivery verifies with it)."""
    admin, _ = _signed_in(stack)
    try:
        shown = admin.get(f"/api/webhooks/{endpoint_id}").json().get("olderSecrets") or []
    finally:
        admin.close()
    hints = [o.get("secretHint") for o in shown]
    if secret_hint(old) in hints:
        return []
    return [f"endpoint {endpoint_id} lost its older secret: older secrets shown {hints}"]


def _run_writers(
    stack: StackProcess, token: str, ledger: Ledger, writers: list[Writer]
) -> list[Writer]:
    """The writers again, on the restarted stack, each keeping its entries and its randomness."""
    fresh = []
    for old in writers:
        writer = Writer(old.number, stack.base_url, token, ledger, old.rng, old.schedules)
        writer.mine, writer.serial = old.mine, old.serial
        fresh.append(writer)
    for writer in fresh:
        writer.start()
    return fresh


def _receivers(exits: contextlib.ExitStack, seed: int) -> Receivers:
    healthy = exits.enter_context(Receiver())
    flaky = FlakyReceiver(seed)
    flaky.start()
    exits.callback(flaky.stop)
    gone = exits.enter_context(Receiver())
    gone.always(Answer(410, b"gone"))
    return Receivers(healthy, flaky, gone, exits.enter_context(Receiver()))


def run_crash(config: CrashConfig, say: Any = print) -> dict[str, Any]:
    rng = random.Random(config.seed)
    endings = ["SIGKILL"] * config.kills + ["SIGTERM", "SIGINT"] * (config.graceful // 2)
    endings += ["SIGTERM"] * (config.graceful % 2)
    rng.shuffle(endings)
    ledger, objects = Ledger(), ObjectLedger()
    cycles: list[Cycle] = []
    tmp = tempfile.mkdtemp(prefix="crash-")
    with contextlib.ExitStack() as exits:
        receivers = _receivers(exits, config.seed)
        stack = StackProcess(Path(tmp) / ".local", config)
        setup: dict[str, Any] = {}
        writers = [
            Writer(n, "", "", ledger, random.Random(config.seed + n), config.schedules)
            for n in range(config.writers)
        ]
        for number, how in enumerate([*endings, "final"]):
            cycles.append(Cycle(time.time()))
            stack.start()
            setup = setup or _admin_setup(stack, receivers)
            verify_writes(stack.base_url, setup["token"], ledger)
            for problem in [
                *check_older_secret(stack, setup["healthy"], setup["secrets"][1]),
                *verify_objects(stack.local_dir, objects),
            ]:
                ledger.problem(f"after start {number + 1}: {problem}")
            if how == "final":
                break
            writers = _run_writers(stack, setup["token"], ledger, writers)
            uploader = Uploader(
                stack.local_dir, objects, random.Random(config.seed + 1000 + number)
            )
            uploader.start()
            time.sleep(rng.uniform(config.min_run_s, config.max_run_s))
            for problem in stack.stop(how):
                ledger.problem(f"cycle {number + 1}: {problem}")
            for writer in writers:
                writer.stopping.set()
                writer.join(15)
            uploader.stopping.set()
            uploader.join(15)
            cycles[-1].ended, cycles[-1].how = time.time(), how
            acknowledged = ledger.acknowledged
            say(f"cycle {number + 1}/{len(endings)}: {how}, {acknowledged} writes acknowledged")
        final, settled = settle(stack.storage(), config.settle_stall_s, config.settle_limit_s)
        by_receiver = {
            name: list(getattr(receivers, name).requests)
            for name in ("healthy", "flaky", "gone", "watcher")
        }
        received = [r for requests in by_receiver.values() for r in requests]
        # A sender killed between a request's headers and its body leaves the receiver a
        # body shorter than its Content-Length: no notification, and sent again later.
        complete = {name: [r for r in got if not cut_short(r)] for name, got in by_receiver.items()}
        problems = list(ledger.problems)
        if not settled:
            problems.append("did not settle: no progress for a while, or too long in all")
        found, states, notices = _final_checks(final, ledger, complete, stack.base_url, setup)
        problems += found
        problems += stack.stop("SIGTERM")
        cycles[-1].ended, cycles[-1].how = time.time(), "SIGTERM"
        repeats = count_repeats(received, cycles)
        if repeats["afterGracefulStop"] or repeats["withinOneRun"]:
            problems.append(f"repeated (delivery, attempt) sends: {repeats}")
    keep_when_failed(tmp, problems, say)
    return {
        "kills": config.kills,
        "gracefulStops": config.graceful,
        "journal": config.journal,
        "writesAcknowledged": ledger.acknowledged,
        "objectsAcknowledged": objects.acknowledged,
        "entries": len(ledger.entries),
        "schedules": sum(1 for e in ledger.entries.values() if e.schedule not in (None, "?")),
        "uncertainCreates": ledger.uncertain_creates,
        "events": len(final.events),
        "rows": dict(states),
        "requestsReceived": len(received),
        "requestsCutShortByAKill": len(received) - sum(len(got) for got in complete.values()),
        "notices": notices,
        "rotatedDeliveriesVerified": len(complete["healthy"]),
        "repeatedSends": repeats,
        "problems": problems,
    }


def _final_checks(
    final: Final,
    ledger: Ledger,
    complete: dict[str, list[Received]],
    base_url: str,
    setup: dict[str, Any],
) -> tuple[list[str], Counter[str], dict[str, int]]:
    """Checks 2, 3, 4, 6, 7 and 8 on the settled state; (problems, row states, notices)."""
    problems = check_events(final, ledger)
    everything = [r for got in complete.values() for r in got]
    problems += check_notifications(final, everything, base_url, setup["token"])
    problems += check_schedules(base_url, setup["token"], ledger, SCHEDULE_WAIT_S)
    row_problems, states = check_rows(final)
    problems += row_problems
    notice_problems, notices = check_notices(final, complete["watcher"], setup["gone"])
    problems += notice_problems
    problems += check_rotation(complete["healthy"], setup["secrets"])
    return problems, states, notices


def run_notice_crash(config: CrashConfig, say: Any = print) -> dict[str, Any]:
    """Kills the stack the moment an endpoint is disabled (the transition committed), before
    its notice is sent, and checks that the notice arrives after the restart, once.

    Deliveries are polled every second here, so a notice waits about that long for its send
    after the fan-out: the kill, made within a few tens of milliseconds of the transition,
    lands before it."""
    tmp = tempfile.mkdtemp(prefix="crash-notice-")
    problems: list[str] = []
    with Receiver() as gone, Receiver() as watcher:
        gone.always(Answer(410, b"gone"))
        stack = StackProcess(Path(tmp) / ".local", config)
        stack.env["WEBHOOKS_DELIVERY_INTERVAL"] = "1000"
        stack.start()
        admin, credentials = _admin(stack)
        try:
            workspace = [credentials["workspaceId"]]
            subject = _endpoint(admin, {"url": gone.url(), "workspaces": workspace})["id"]
            _watch(admin, watcher)
        finally:
            admin.close()
        with httpx.Client(
            base_url=stack.base_url,
            headers={"Authorization": f"Bearer {credentials['tokens']['full']}"},
            timeout=30,
        ) as writer:
            for index in range(20):  # autoDisableAfter: the twentieth dead disables it
                writer.post(f"/api/v1/content/{TYPE}", json={"values": {"title": f"#{index}"}})
        storage = stack.storage()
        deadline = time.monotonic() + 120
        while _enabled(storage, subject) and time.monotonic() < deadline:
            time.sleep(0.01)
        heard_before = _heard(watcher, "endpoint.disabled")
        stack.stop("SIGKILL")
        say(f"killed {'before' if not heard_before else 'after'} the notice was sent")
        stack.start()
        final, settled = settle(stack.storage(), config.settle_stall_s, config.settle_limit_s)
        problems += stack.stop("SIGTERM")
        if not settled:
            problems.append("did not settle after the restart")
        if _enabled_in(final, subject) or not any(e["id"] == subject for e in final.endpoints):
            problems.append("the endpoint is not disabled")
        notice_problems, notices = check_notices(final, watcher.requests, subject)
        problems += notice_problems
        heard_after = _heard(watcher, "endpoint.disabled")
    keep_when_failed(tmp, problems, say)
    return {
        "killedBeforeTheNotice": not heard_before,
        "notices": notices,
        "disabledNoticesHeard": heard_after,
        "problems": problems,
    }


def _enabled(storage: Storage, endpoint_id: str) -> bool:
    item = storage.client.get_item(
        TableName=storage.env["ENDPOINTS_TABLE"],
        Key={"id": {"S": endpoint_id}},
        ConsistentRead=True,
    )["Item"]
    return bool(item["enabled"]["BOOL"])


def _enabled_in(final: Final, endpoint_id: str) -> bool:
    return any(e["id"] == endpoint_id and e["enabled"] for e in final.endpoints)


def _heard(receiver: Receiver, kind: str) -> int:
    return sum(
        1 for r in receiver.requests if not cut_short(r) and json.loads(r.body)["event"] == kind
    )


def announcer(name: str) -> Callable[[str], None]:
    """A harness's progress lines on stderr, `[name HH:MM:SS] message`."""

    def say(message: str) -> None:
        print(f"[{name} {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    return say


def keep_when_failed(tmp: str, problems: Sequence[str], say: Callable[[str], None]) -> None:
    """Keeps a run's folder (the stack's files and log) for a look when a check failed;
    removes it otherwise."""
    if problems:
        say(f"kept the stack's folder and log for a look: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


class CrashWriter(Protocol):
    """A thread writing through the API until `stopping` is set or the stack dies."""

    stopping: threading.Event
    calls: int

    def start(self) -> None: ...

    def join(self, timeout: float | None = None) -> None: ...


def kill_under_writers(
    stack: StackProcess,
    writers: Sequence[CrashWriter],
    rng: random.Random,
    run_s: tuple[float, float],
) -> int:
    """Starts `writers`, kills the stack (SIGKILL) after a random time within `run_s`, stops
    them; answers the calls they made."""
    for writer in writers:
        writer.start()
    time.sleep(rng.uniform(*run_s))
    stack.stop("SIGKILL")
    for writer in writers:
        writer.stopping.set()
        writer.join(15)
    return sum(w.calls for w in writers)


class RoundsConfig(Protocol):
    """What `kill_rounds` reads of a harness's configuration."""

    @property
    def kills(self) -> int: ...

    @property
    def seed(self) -> int: ...

    @property
    def min_run_s(self) -> float: ...

    @property
    def max_run_s(self) -> float: ...


def kill_rounds(
    prefix: str,
    config: RoundsConfig,
    writers_for: Callable[[StackProcess, int, random.Random], Sequence[CrashWriter]],
    check: Callable[[Storage], tuple[list[str], dict[str, int]]],
    say: Callable[[str], None],
) -> dict[str, Any]:
    """A stack of its own (in a new folder named `prefix`..., rate limit off) killed
    `config.kills` times, each time under the writers `writers_for(stack, round, rng)` makes,
    then started once more and `check`ed (its problems and counts) before a SIGTERM stop;
    answers the report."""
    rng = random.Random(config.seed)
    tmp = tempfile.mkdtemp(prefix=prefix)
    stack = StackProcess(Path(tmp) / ".local", CrashConfig())
    stack.env["CONTENT_RATE_LIMIT"] = "0"
    calls = 0
    for number in range(config.kills):
        stack.start()
        writers = writers_for(stack, number, rng)
        calls += kill_under_writers(stack, writers, rng, (config.min_run_s, config.max_run_s))
        say(f"kill {number + 1}/{config.kills}: {calls} calls made so far")
    stack.start()
    try:
        problems, counts = check(stack.storage())
    finally:
        problems_at_stop = stack.stop("SIGTERM")
    problems += problems_at_stop
    keep_when_failed(tmp, problems, say)
    return {"kills": config.kills, "calls": calls, **counts, "problems": problems}


def timed(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`run`'s report with the seconds it took."""
    started = time.monotonic()
    report = run()
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


class WritersConfig(Protocol):
    """What a harness that kills the stack under writers is given on its command line."""

    @property
    def kills(self) -> int: ...

    @property
    def writers(self) -> int: ...

    @property
    def seed(self) -> int: ...


Config = TypeVar("Config", bound=WritersConfig)


def writers_main(
    argv: Sequence[str],
    module: str,
    description: str | None,
    config_type: Callable[..., Config],
    run: Callable[[Config, Callable[[str], None]], dict[str, Any]],
) -> int:
    """The command line of a harness that kills the stack under writers (`python -m
    harness.MODULE --kills N --writers N --seed N`): runs it and prints its report."""
    defaults = config_type()
    parser = argparse.ArgumentParser(prog=f"python -m harness.{module}", description=description)
    for option in ("kills", "writers", "seed"):
        parser.add_argument(f"--{option}", type=int, default=getattr(defaults, option))
    args = parser.parse_args(argv)
    config = config_type(kills=args.kills, writers=args.writers, seed=args.seed)
    return print_report(run(config, announcer(module.replace("_", "-"))))


def print_report(report: dict[str, Any]) -> int:
    """Prints a harness's report (its figures as JSON, then each failed check) and answers the
    exit code: 0 when every check passed."""
    problems = report.pop("problems")
    print(json.dumps(report, indent=2))
    for problem in problems[:50]:
        print(f"FAILED: {problem}")
    if len(problems) > 50:
        print(f"... and {len(problems) - 50} more")
    print("all checks passed" if not problems else f"{len(problems)} check(s) failed")
    return 0 if not problems else 1


def main(argv: Sequence[str]) -> int:
    defaults = CrashConfig()
    parser = argparse.ArgumentParser(
        prog="python -m harness.crash", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--kills", type=int, default=defaults.kills)
    parser.add_argument("--graceful", type=int, default=defaults.graceful)
    parser.add_argument("--writers", type=int, default=defaults.writers)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--no-journal",
        action="store_true",
        help="run the stack with nothing kept (LOCAL_JOURNAL=off)",
    )
    args = parser.parse_args(argv)
    config = CrashConfig(
        kills=args.kills,
        graceful=args.graceful,
        writers=args.writers,
        seed=args.seed,
        journal=not args.no_journal,
    )
    return print_report(timed(lambda: run_crash(config, announcer("crash"))))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
