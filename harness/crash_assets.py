"""`python -m harness.crash_assets`: the local stack killed with SIGKILL while clients upload
files, complete them and edit and publish the assets; after each restart every acknowledged
asset must read back with its file.

Clients (harness/crash_asset_clients.py) send each file through its presigned POST straight
to the emulator and complete it (`POST /api/v1/assets`), and edit, publish and unpublish their
assets. The stack (API and emulator, real processes, one process group) is killed with SIGKILL
to the whole group, at each of these points in turn, between kills at a random moment
(harness/journal_trigger.py fires on the emulator's journal line of the step, which is durable
before its caller hears of it):

- `afterCopy`: a completion copied the upload to `files/`, and has not written the asset;
- `afterEntryWrite`: it wrote the asset (and its event), and has not deleted the upload;
- `afterUploadDeleted`: it deleted the upload, and has not answered;
- `random`: 1 to 3 s into the cycle.

Every cycle also runs until one of its completions was answered, so each leaves acknowledged
assets to check however slow a busy machine makes the stack.

After each restart (docs/assets.md, "Processing": completing is idempotent per upload):

1. **Retries**: each completion that got no answer is sent again; it must answer 201, never a
   404 for an upload S3 took, nor a 5xx. Where the kill left it (upload, file object, asset
   present or not) is counted, so the report shows the windows were hit.
2. **Assets**: each acknowledged asset reads back with its last acknowledged title, status and
   published title (or the result of an unanswered edit), `ready`, with its file's name, type
   and size, and its preview serves the very bytes sent, with their `Content-Type`.
3. **One asset per upload**: no two assets hold the same upload's file.
4. **No ready asset without its file**: every listed `ready` asset's file object exists, of
   its size and type.
5. **Events** (after the last restart): every acknowledged write has its outbox event.

`--no-journal` runs the stack with `LOCAL_JOURNAL=off`, and the checks fail.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from harness.crash import (
    CrashConfig,
    StackProcess,
    Storage,
    _reader,
    _signed_in,
    _verify,
    announcer,
    keep_when_failed,
    print_report,
    timed,
)
from harness.crash_asset_clients import AssetClient, AssetLedger, Upload
from harness.crash_objects import stack_s3
from harness.journal_trigger import POINTS, JournalTrigger

KILL_POINTS = (*POINTS, "random")


@dataclass(frozen=True)
class AssetCrashConfig:
    kills: int = 6
    # Cycled through: each step of a completion, a random moment between two.
    points: tuple[str, ...] = (
        "afterCopy",
        "random",
        "afterEntryWrite",
        "random",
        "afterUploadDeleted",
        "random",
    )
    clients: int = 3
    seed: int = 20261129
    min_run_s: float = 1.0
    max_run_s: float = 3.0
    armed_limit_s: float = 10.0
    progress_limit_s: float = 30.0
    journal: bool = True


@dataclass
class Session:
    """What the checks need of the running stack."""

    base_url: str
    token: str
    workspace: str
    local_dir: Path


# -- check 1: unanswered completions retried ---------------------------------------------------


def _window(upload: Upload, uploads: set[str], files: set[str], listed: set[str]) -> str:
    """Where a kill left a completion, from what the restarted stack holds."""
    if upload.file_name in listed:
        return "assetWrittenUploadKept" if upload.upload_id in uploads else "uploadDeleted"
    if upload.upload_id not in uploads:
        return "uploadLost"
    return "copiedNotWritten" if upload.file_name in files else "beforeCopy"


def _bucket_keys(session: Session) -> tuple[set[str], set[str]]:
    """(upload ids still in the bucket, file names under `files/`)."""
    s3, bucket = stack_s3(session.local_dir)
    keys: list[str] = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        keys += [str(o["Key"]) for o in page.get("Contents", [])]
    uploads = {k.rsplit("/", 1)[1] for k in keys if k.startswith(f"uploads/{session.workspace}/")}
    files = {k.rsplit("/", 1)[1] for k in keys if k.startswith(f"files/{session.workspace}/")}
    return uploads, files


def retry_completions(
    session: Session, ledger: AssetLedger, clients: Sequence[AssetClient], windows: Counter[str]
) -> None:
    """Sends each unanswered completion again; counts, in `windows`, where the kill left it."""
    unanswered = ledger.unanswered()
    if not unanswered:
        return
    uploads, files = _bucket_keys(session)
    with _reader(session.base_url, session.token) as api:
        listed = {str(a["fileName"]) for a in list_assets(api)}
        for upload in unanswered:
            windows[_window(upload, uploads, files, listed)] += 1
            answer = api.post("/api/v1/assets", json={"uploadId": upload.upload_id})
            ledger.completions_retried += 1
            if answer.status_code != 201:
                ledger.problem(
                    f"completion of {upload.file_name} retried after the restart answered "
                    f"{answer.status_code}: {answer.text[:200]}"
                )
                upload.asset_id = ""  # no asset to follow; reported
                continue
            clients[upload.owner].mine.append(ledger.adopt(upload, answer.json()["id"]))


# -- checks 2 to 4: assets and their files -----------------------------------------------------


def list_assets(api: httpx.Client) -> list[dict[str, Any]]:
    """Every asset of the workspace (the latest view, a full token's)."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params = {"pageSize": "100", **({"cursor": cursor} if cursor else {})}
        page = api.get("/api/v1/assets", params=params)
        page.raise_for_status()
        found += page.json()["items"]
        cursor = page.json().get("nextCursor")
        if not cursor:
            return found


def _file_problems(asset: dict[str, Any], digest: str | None) -> list[str]:
    """The asset's file object must exist with its size and type (and, when known, its bytes)."""
    name = f"asset {asset['id']} ({asset['fileName']})"
    if asset.get("state") != "ready":
        return [f"{name} is {asset.get('state')}: {asset.get('reason')}"]
    got = httpx.get(str(asset["previewUrl"]), timeout=30)
    if got.status_code != 200:
        return [f"{name} is ready, its file object answers {got.status_code}"]
    problems = []
    if len(got.content) != asset["size"] or got.headers.get("content-type") != asset["contentType"]:
        problems.append(
            f"{name}: file of {len(got.content)} bytes, {got.headers.get('content-type')}; "
            f"the asset says {asset['size']}, {asset['contentType']}"
        )
    if digest is not None and hashlib.sha256(got.content).hexdigest() != digest:
        problems.append(f"{name}: its file's bytes are not those uploaded")
    return problems


def _observed(api: httpx.Client, asset_id: str) -> tuple[dict[str, Any] | None, Any]:
    """(the asset's latest view or None, (title, status, published title) or what was wrong)."""
    latest = api.get(f"/api/v1/assets/{asset_id}")
    if latest.status_code != 200:
        return None, f"HTTP {latest.status_code}"
    published = api.get(f"/api/v1/assets/{asset_id}", params={"version": "published"})
    if published.status_code not in (200, 404):
        return None, f"HTTP {published.status_code} (published)"
    live = published.json()["title"] if published.status_code == 200 else None
    body: dict[str, Any] = latest.json()
    return body, (body["title"], body["status"], live)


def verify_assets(session: Session, ledger: AssetLedger) -> None:
    """Checks 2 to 4 on the restarted stack."""
    uploads = {u.asset_id: u for u in ledger.uploads if u.asset_id}
    entries = [e for e in ledger.entries.values() if e.id in uploads]
    with _reader(session.base_url, session.token) as api, ThreadPoolExecutor(4) as pool:
        seen = list(pool.map(lambda e: _observed(api, e.id), entries))
        for entry, (asset, state) in zip(entries, seen, strict=True):
            _verify(entry, state, ledger)
            if asset is not None:
                upload = uploads[entry.id]
                expected = (upload.file_name, upload.content_type, upload.size)
                if (asset["fileName"], asset["contentType"], asset["size"]) != expected:
                    ledger.problem(f"asset {entry.id}: {asset} is not the upload {expected}")
        checked = list(pool.map(lambda a: _file_problems(a, uploads[a["id"]].digest), _found(seen)))
        listed = list_assets(api)
        unknown = [a for a in listed if a["id"] not in uploads]
        checked += list(pool.map(lambda a: _file_problems(a, None), unknown))
    for problems in checked:
        for problem in problems:
            ledger.problem(problem)
    per_upload = Counter(str(a["fileName"]) for a in listed)
    for name, count in sorted(per_upload.items()):
        if count > 1:
            ledger.problem(f"{count} assets for the one upload of {name}")


def _found(seen: list[tuple[dict[str, Any] | None, Any]]) -> list[dict[str, Any]]:
    return [asset for asset, _ in seen if asset is not None]


# -- check 5: events ---------------------------------------------------------------------------


def check_events(storage: Storage, ledger: AssetLedger) -> tuple[list[str], int]:
    """Every acknowledged write of an asset has its outbox event; (problems, events seen)."""
    events = storage.scan("EVENTS_TABLE")
    kinds = Counter((e["data"]["id"], e["kind"]) for e in events if isinstance(e.get("data"), dict))
    problems = [
        f"asset {entry.id}: {count} acknowledged {kind}, {kinds[(entry.id, kind)]} event(s)"
        for entry in ledger.entries.values()
        for kind, count in entry.acked.items()
        if kinds[(entry.id, kind)] < count
    ]
    return problems, len(events)


# -- the run -----------------------------------------------------------------------------------


def _session(stack: StackProcess) -> Session:
    admin, credentials = _signed_in(stack)
    admin.close()
    token = str(credentials["tokens"]["full"])
    return Session(stack.base_url, token, str(credentials["workspaceId"]), stack.local_dir)


def _await_a_completion(ledger: AssetLedger, before: int, limit_s: float) -> None:
    """Until a completion of this cycle was answered (at most `limit_s`): every cycle leaves
    acknowledged assets to check, however slow a busy machine makes the stack."""
    deadline = time.monotonic() + limit_s
    while ledger.completions_acknowledged == before and time.monotonic() < deadline:
        time.sleep(0.05)


def _cycle(
    stack: StackProcess,
    session: Session,
    point: str,
    clients: Sequence[AssetClient],
    config: AssetCrashConfig,
    rng: random.Random,
) -> bool:
    """Runs the clients, then kills the whole group at `point`; whether an armed point fired."""
    stopping = threading.Event()
    acknowledged = clients[0].ledger.completions_acknowledged
    threads = [
        threading.Thread(target=c.run, args=(session.base_url, session.token, stopping))
        for c in clients
    ]
    for thread in threads:
        thread.start()
    # An armed point waits for its step after a shorter run: the kill still lands at a
    # random completion, and the cycle stays as short as a random one.
    share = 0.5 if point in POINTS else 1.0
    time.sleep(share * rng.uniform(config.min_run_s, config.max_run_s))
    _await_a_completion(clients[0].ledger, acknowledged, config.progress_limit_s)
    fired = False
    if point in POINTS:
        trigger = JournalTrigger(stack.local_dir, point)
        trigger.arm()
        fired = trigger.wait(config.armed_limit_s)
    assert stack.process is not None
    os.killpg(stack.process.pid, signal.SIGKILL)
    stack.stop("SIGKILL")
    stopping.set()
    for thread in threads:
        thread.join(15)
    return fired


def run_assets_crash(config: AssetCrashConfig, say: Any = print) -> dict[str, Any]:
    rng = random.Random(config.seed)
    tmp = tempfile.mkdtemp(prefix="crash-assets-")
    stack = StackProcess(Path(tmp) / ".local", CrashConfig(journal=config.journal))
    stack.env["CONTENT_RATE_LIMIT"] = "0"
    ledger = AssetLedger()
    clients = [
        AssetClient(n, ledger, random.Random(config.seed + n)) for n in range(config.clients)
    ]
    windows: dict[str, Counter[str]] = {point: Counter() for point in KILL_POINTS}
    fired: Counter[str] = Counter()
    points = [config.points[n % len(config.points)] for n in range(config.kills)]
    for number, point in enumerate([*points, "final"]):
        stack.start()
        session = _session(stack)
        if number:
            retry_completions(session, ledger, clients, windows[points[number - 1]])
        verify_assets(session, ledger)
        if point == "final":
            break
        if _cycle(stack, session, point, clients, config, rng):
            fired[point] += 1
        say(
            f"kill {number + 1}/{config.kills} ({point}): "
            f"{ledger.completions_acknowledged} completions acknowledged"
        )
    event_problems, events = check_events(stack.storage(), ledger)
    problems = [*ledger.problems, *event_problems, *stack.stop("SIGTERM")]
    keep_when_failed(tmp, problems, say)
    return {
        "kills": config.kills,
        "journal": config.journal,
        "killsAtTheirPoint": dict(fired),
        "uploads": len(ledger.uploads),
        "completionsAcknowledged": ledger.completions_acknowledged,
        "completionsRetried": ledger.completions_retried,
        "retriedWhere": {point: dict(found) for point, found in windows.items()},
        "editsAcknowledged": ledger.edits_acknowledged,
        "assets": len(ledger.entries),
        "events": events,
        "problems": problems,
    }


def main(argv: Sequence[str]) -> int:
    defaults = AssetCrashConfig()
    parser = argparse.ArgumentParser(
        prog="python -m harness.crash_assets", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--kills", type=int, default=defaults.kills)
    parser.add_argument("--clients", type=int, default=defaults.clients)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--no-journal", action="store_true", help="run the stack with LOCAL_JOURNAL=off"
    )
    args = parser.parse_args(argv)
    config = AssetCrashConfig(
        kills=args.kills, clients=args.clients, seed=args.seed, journal=not args.no_journal
    )
    return print_report(timed(lambda: run_assets_crash(config, announcer("crash-assets"))))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
