"""Imports from a URL (`POST /api/v1/assets/uploads {url}`) go through the webhooks' URL policy
and its pinned sender: loopback and private addresses are refused unless the policy allows
them, as the webhook tests allow a receiver on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.receiver import Answer, Receiver
from tests.support.assets import png
from tests.support.clients import WorkspaceAccess
from tests.support.content import assert_error
from tests.support.settings import settings_changed


@pytest.fixture
def ws(new_workspace: Callable[..., WorkspaceAccess]) -> WorkspaceAccess:
    return new_workspace()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/a.png",
        "https://10.0.0.7/a.png",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/a.png",
    ],
)
def test_an_import_from_a_private_address_is_refused_by_the_url_policy(
    ws: WorkspaceAccess, url: str
) -> None:
    refused = ws.full.post("/api/v1/assets/uploads", json={"url": url})
    assert "refused by the URL policy" in assert_error(refused, 400)["message"]


def test_an_import_from_a_receiver_the_policy_allows_becomes_an_asset(
    ws: WorkspaceAccess, receiver: Receiver, local_receivers_allowed: None
) -> None:
    body = png(12, 8)
    receiver.always(Answer(200, body, (("Content-Type", "image/png"),)))
    imported = ws.full.post("/api/v1/assets/uploads", json={"url": receiver.url("/pics/dot.png")})
    assert imported.status_code == 201, imported.text
    answer = imported.json()
    assert (answer["fileName"], answer["contentType"], answer["size"]) == (
        "dot.png",
        "image/png",
        len(body),
    )
    asset = ws.full.post("/api/v1/assets", json={"uploadId": answer["uploadId"]})
    assert asset.status_code == 201, asset.text
    assert (asset.json()["state"], asset.json()["width"]) == ("ready", 12)
    assert [r.method for r in receiver.requests] == ["GET"]


def test_an_import_over_the_cap_or_not_found_is_refused(
    ws: WorkspaceAccess, receiver: Receiver, local_receivers_allowed: None
) -> None:
    receiver.respond(
        Answer(200, b"p" * 500, (("Content-Type", "image/png"),)),
        Answer(404, b"gone"),
        Answer(302, b"", (("Location", "http://127.0.0.1:9/"),)),
    )
    with settings_changed(lambda s: dataclasses.replace(s, assets_max_bytes=100)):
        too_big = ws.full.post("/api/v1/assets/uploads", json={"url": receiver.url("/a.png")})
    assert_error(too_big, 413)
    missing = ws.full.post("/api/v1/assets/uploads", json={"url": receiver.url("/b.png")})
    assert "answered 404" in assert_error(missing, 400)["message"]
    moved = ws.full.post("/api/v1/assets/uploads", json={"url": receiver.url("/c.png")})
    assert "redirects are not followed" in assert_error(moved, 400)["message"]


class _Unannounced(BaseHTTPRequestHandler):
    """Answers a body of 5,000 bytes without a Content-Length (it ends when the connection
    closes), so only the count of what streams in can stop it."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Connection", "close")
        self.end_headers()
        for _ in range(50):
            self.wfile.write(b"x" * 100)

    def log_message(self, format: str, *args: object) -> None:
        return


def test_a_body_without_a_length_is_cut_off_once_it_passes_the_cap(
    ws: WorkspaceAccess, local_receivers_allowed: None
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unannounced)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/notes.txt"
    try:
        with settings_changed(lambda s: dataclasses.replace(s, assets_max_bytes=1000)):
            too_big = ws.full.post("/api/v1/assets/uploads", json={"url": url})
        fits = ws.full.post("/api/v1/assets/uploads", json={"url": url})
    finally:
        server.shutdown()
        server.server_close()
    assert "larger than 1,000 bytes" in assert_error(too_big, 413)["message"]
    assert fits.status_code == 201, fits.text
    assert fits.json()["size"] == 5000
