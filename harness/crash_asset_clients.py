"""`make crash`'s asset clients: upload files as a browser does and complete them, then edit,
publish and unpublish the assets, each answer kept in a ledger (harness/crash_assets.py).

An upload is sent through its presigned POST straight to the emulator; its completion
(`POST /api/v1/assets`) is then recorded before it is sent, so a completion the stack died
under stays known, to be retried after the restart. Edits use the entries' ledger
(`harness.crash.Entry`): an edit without an answer is uncertain until the restart shows
whether it was applied.
"""

from __future__ import annotations

import hashlib
import io
import random
import threading
from dataclasses import dataclass, field

import httpx
from PIL import Image

from harness.crash import EVENT_OF, Change, Entry, Ledger, made, uncertain_request

CREATED = EVENT_OF["created"]


@dataclass
class Upload:
    """One file sent to the bucket, and the asset its completion made once one answered."""

    upload_id: str
    file_name: str
    content_type: str
    size: int
    digest: str
    owner: int
    asset_id: str | None = None


@dataclass
class AssetLedger(Ledger):
    uploads: list[Upload] = field(default_factory=list)
    completions_acknowledged: int = 0
    completions_retried: int = 0
    edits_acknowledged: int = 0

    def unanswered(self) -> list[Upload]:
        """Uploads whose completion was sent and never answered."""
        with self.lock:
            return [u for u in self.uploads if u.asset_id is None]

    def adopt(self, upload: Upload, asset_id: str) -> Entry:
        """The asset a completion answered, as a draft named after its file."""
        upload.asset_id = asset_id
        entry = Entry(asset_id, upload.file_name)
        entry.acked[CREATED] = 1
        with self.lock:
            self.entries[asset_id] = entry
        return entry


def a_file(rng: random.Random, name: str) -> tuple[str, str, bytes]:
    """(file name, type, bytes): a PNG of random pixels or a page of plain text."""
    if rng.random() < 0.5:
        width, height = rng.randint(8, 96), rng.randint(8, 96)
        image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        return f"{name}.png", "image/png", buffer.getvalue()
    words = " ".join(rng.choice(("tide", "salt", "gull", "reef")) for _ in range(10))
    return f"{name}.txt", "text/plain", (words + "\n").encode() * rng.randint(1, 2000)


class AssetClient:
    """One editor's uploads and edits; `run` makes calls until told to stop or the stack dies."""

    def __init__(self, number: int, ledger: AssetLedger, rng: random.Random) -> None:
        self.number, self.ledger, self.rng = number, ledger, rng
        self.mine: list[Entry] = []
        self.serial = 0
        self.calls = 0

    def run(self, base_url: str, token: str, stopping: threading.Event) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base_url, headers=headers, timeout=10) as api:
            try:
                while not stopping.wait(0.02) and self._step(api):
                    self.calls += 1
            except httpx.HTTPError:
                return  # the stack died under the call

    def _step(self, api: httpx.Client) -> bool:
        ready = [e for e in self.mine if e.uncertain is None]
        if len(ready) < 2 or self.rng.random() < 0.4:
            return self._upload(api)
        entry = self.rng.choice(ready)
        if self.rng.random() < 0.5:
            self.serial += 1
            title = f"c{self.number} {entry.id[:8]} v{self.serial}"
            return self._edit(api, entry, Change("updated", "PATCH", "", {"title": title}, title))
        action = "unpublish" if entry.status == "published" else "publish"
        return self._edit(api, entry, Change(f"{action}ed", "POST", f"/{action}"))

    def _upload(self, api: httpx.Client) -> bool:
        self.serial += 1
        file_name, content_type, body = a_file(self.rng, f"c{self.number}-{self.serial}")
        started = api.post(
            "/api/v1/assets/uploads",
            json={"fileName": file_name, "contentType": content_type, "size": len(body)},
        )
        if started.status_code != 201:
            self.ledger.problem(f"upload answered {started.status_code}: {started.text[:200]}")
            return True
        form = started.json()
        sent = httpx.post(
            form["url"],
            data=form["fields"],
            files={"file": ("upload", body, content_type)},
            timeout=10,
        )
        if sent.status_code != 204:
            self.ledger.problem(f"S3 answered the POST {sent.status_code}: {sent.text[:200]}")
            return True
        digest = hashlib.sha256(body).hexdigest()
        upload = Upload(form["uploadId"], file_name, content_type, len(body), digest, self.number)
        with self.ledger.lock:
            self.ledger.uploads.append(upload)
        return self._complete(api, upload)

    def _complete(self, api: httpx.Client, upload: Upload) -> bool:
        answer = api.post("/api/v1/assets", json={"uploadId": upload.upload_id})
        if answer.status_code != 201:
            self.ledger.problem(f"completion answered {answer.status_code}: {answer.text[:200]}")
            return True
        self.mine.append(self.ledger.adopt(upload, answer.json()["id"]))
        with self.ledger.lock:
            self.ledger.completions_acknowledged += 1
        return True

    def _edit(self, api: httpx.Client, entry: Entry, change: Change) -> bool:
        path = f"/api/v1/assets/{entry.id}{change.suffix}"
        answer = uncertain_request(api, entry, change, path)
        if answer.status_code != 200:
            self.ledger.problem(
                f"{change.method} {path} answered {answer.status_code}: {answer.text}"
            )
            return True
        made(entry, change.kind, change.title)
        with self.ledger.lock:
            self.ledger.edits_acknowledged += 1
        return True
