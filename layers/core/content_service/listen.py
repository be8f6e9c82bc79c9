"""`content-service listen --forward-to URL`: receive deliveries on a developer's machine (D33).

Like `stripe listen`, nothing on the laptop is exposed: the CLI signs in to the API as an
administrator, creates a temporary pull endpoint (`mode: pull`, the forward URL is only its
label), prints the endpoint's signing secret, and long-polls `POST /api/webhooks/{id}/pull`
over an outbound connection. Each delivery fetched is forwarded to the URL exactly as the
service sends one (same headers, the frozen body, signed now with the printed secret). Ctrl-C
deletes the temporary endpoint and signs out. It works against `make run` and a deployed stack
alike, since it only speaks HTTP to the API.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, TextIO

import requests

from content_service.webhooks.sending import request_headers

LONG_POLL_SECONDS = 20
FORWARD_TIMEOUT_SECONDS = 10


class ListenError(Exception):
    """Something the user must fix (credentials, the URL, the API's refusal)."""


@dataclass(frozen=True)
class ListenOptions:
    api_url: str
    email: str
    password: str
    forward_to: str
    events: tuple[str, ...] = ()
    workspaces: tuple[str, ...] = ()


def _refusal(response: requests.Response) -> str:
    try:
        error = response.json()["error"]
        return f"HTTP {response.status_code}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


class ApiSession:
    """The admin's session with the API: a cookie, and the API's own origin on every write
    (the origin guard refuses a cookie-authenticated write without it)."""

    def __init__(self, api_url: str) -> None:
        self.api_url = api_url.rstrip("/")
        self.http = requests.Session()
        self.http.headers.update({"Origin": self.api_url, "Accept": "application/json"})
        self.http.trust_env = False

    def sign_in(self, email: str, password: str) -> None:
        response = self.http.post(
            f"{self.api_url}/login",
            data={"email": email, "password": password},
            allow_redirects=False,
            timeout=30,
        )
        if response.status_code != 303 or not self.http.cookies:
            raise ListenError(f"could not sign in as {email}: wrong email or password?")

    def call(self, method: str, path: str, body: Any = None, timeout: float = 30) -> Any:
        response = self.http.request(method, f"{self.api_url}{path}", json=body, timeout=timeout)
        if response.status_code >= 400:
            raise ListenError(f"{method} {path} was refused ({_refusal(response)})")
        return response.json() if response.content else None

    def sign_out(self) -> None:
        self.http.post(f"{self.api_url}/logout", allow_redirects=False, timeout=10)


def forward(
    http: requests.Session, url: str, item: dict[str, Any], secret: str
) -> tuple[int | None, str]:
    """POSTs one delivery to the local URL as the service would; (status, note)."""
    body = str(item["requestBody"]).encode("utf-8")
    headers = request_headers(
        event=item["event"],
        delivery_id=item["id"],
        event_id=item["eventId"],
        workspace_id=json.loads(body).get("workspaceId"),
        attempt=1,
        secret=secret,
        body=body,
        timestamp=int(time.time()),
        custom={},
    )
    try:
        response = http.post(url, data=body, headers=headers, timeout=FORWARD_TIMEOUT_SECONDS)
    except requests.RequestException as error:
        return None, f"not delivered: {type(error).__name__}"
    return response.status_code, ""


@contextmanager
def stopped_by_signals(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C and SIGTERM end the listener: cleaned up, not killed halfway.

    The handler is installed for both, whatever the process inherited, and notes the request
    before raising KeyboardInterrupt: Python drops an exception raised while a finalizer runs
    (a closed connection's socket file, say), and the loop then stops at its next turn.
    """

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()
        raise KeyboardInterrupt

    before = {
        signum: signal.signal(signum, request_stop) for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def listen(
    options: ListenOptions,
    out: TextIO = sys.stdout,
    *,
    polls: Callable[[], bool] = lambda: True,
) -> int:
    """Runs until Ctrl-C (or `polls()` says stop); returns the exit code."""
    session = ApiSession(options.api_url)
    session.sign_in(options.email, options.password)
    endpoint_id: str | None = None
    forwarder = requests.Session()
    forwarder.trust_env = False
    stop = threading.Event()
    try:
        with stopped_by_signals(stop):
            created = session.call(
                "POST",
                "/api/webhooks",
                {
                    "url": options.forward_to,
                    "mode": "pull",
                    "events": list(options.events),
                    "workspaces": list(options.workspaces),
                    "allWorkspaces": not options.workspaces,
                },
            )
            endpoint_id = str(created["id"])
            secret = str(created["secret"])
            kinds = ", ".join(options.events) or "every event kind"
            print(
                f"Ready! Forwarding {kinds} to {options.forward_to}\n"
                f"Your webhook signing secret is {secret} (^C to quit)\n"
                f"Temporary pull endpoint: {endpoint_id}",
                file=out,
                flush=True,
            )
            _loop(
                session,
                forwarder,
                endpoint_id,
                options.forward_to,
                secret,
                out,
                lambda: not stop.is_set() and polls(),
            )
    except KeyboardInterrupt:
        pass
    finally:
        _clean_up(session, endpoint_id, out)
        forwarder.close()
    return 0


def _loop(
    session: ApiSession,
    forwarder: requests.Session,
    endpoint_id: str,
    url: str,
    secret: str,
    out: TextIO,
    polls: Callable[[], bool],
) -> None:
    cursor: str | None = None
    while polls():
        page = session.call(
            "POST",
            f"/api/webhooks/{endpoint_id}/pull",
            {"after": cursor, "wait": LONG_POLL_SECONDS},
            timeout=LONG_POLL_SECONDS + 15,
        )
        for item in page["items"]:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            print(f"{stamp}  --> {item['event']} [{item['eventId']}]", file=out, flush=True)
            status, note = forward(forwarder, url, item, secret)
            shown = f"[{status}]" if status is not None else f"[---] {note}"
            print(f"{stamp}  <-- {shown} POST {url} [{item['eventId']}]", file=out, flush=True)
        cursor = page["cursor"]


def _clean_up(session: ApiSession, endpoint_id: str | None, out: TextIO) -> None:
    """Deletes the temporary endpoint and ends the session; says so, or what went wrong."""
    try:
        if endpoint_id is not None:
            session.call("DELETE", f"/api/webhooks/{endpoint_id}")
            print(f"Stopped. Temporary endpoint {endpoint_id} deleted.", file=out, flush=True)
        session.sign_out()
    except (ListenError, requests.RequestException) as error:
        print(f"Stopped, but the clean-up failed: {error}", file=out, flush=True)


def split_list(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


def parse_events(values: Sequence[str] | None) -> tuple[str, ...]:
    """`--events a,b --events c`, as Stripe's CLI takes them."""
    found: list[str] = []
    for value in values or ():
        found.extend(split_list(value))
    return tuple(dict.fromkeys(found))
