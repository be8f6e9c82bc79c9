"""`content-service receive`: a webhook receiver on this machine, for trying the service out.

It answers every POST with 200, prints one line per delivery (event kind, event id, attempt,
and whether the signature matched when `--secret` is given) followed by the body, and with
`--count N` exits after N deliveries, so a script can wait for one with `wait`. Pointing an
endpoint at it (`http://127.0.0.1:PORT/...`) needs `WEBHOOKS_ALLOW_INSECURE_URLS=true` and
`WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true` on the service (README, "Quickstart").
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from content_service.webhooks.sending import SignatureVerificationError, verify_signature

MAX_BODY_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ReceiverOptions:
    port: int
    host: str = "127.0.0.1"
    secret: str | None = None
    count: int | None = None


def describe(headers: Any, body: bytes, secret: str | None) -> str:
    """The line printed for one delivery."""
    kind = headers.get("X-Service-Event", "?")
    event_id = headers.get("X-Service-Event-Id", "?")
    attempt = headers.get("X-Service-Attempt", "?")
    line = f"received {kind} event {event_id} (attempt {attempt})"
    if secret is not None:
        try:
            verify_signature(body, headers.get("X-Service-Signature", ""), secret)
            line += ", signature ok"
        except SignatureVerificationError as error:
            line += f", signature REFUSED: {error}"
    return line


def _pretty(body: bytes) -> str:
    try:
        return json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except ValueError:
        return body.decode("utf-8", "replace")


def serve(options: ReceiverOptions, out: TextIO = sys.stdout) -> int:
    """Receives until `count` deliveries have arrived (or forever); returns the exit code."""
    received = 0
    done = threading.Event()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            nonlocal received
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(min(max(length, 0), MAX_BODY_BYTES))
            answer = b'{"received":true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
            with lock:
                received += 1
                out.write(describe(self.headers, body, options.secret) + "\n")
                out.write(_pretty(body) + "\n")
                out.flush()
                if options.count is not None and received >= options.count:
                    done.set()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the delivery line above says what arrived."""

    server = ThreadingHTTPServer((options.host, options.port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="receiver", daemon=True)
    thread.start()
    port = server.server_address[1]
    print(f"receiving webhooks on http://{options.host}:{port}/ (Ctrl-C stops)", file=sys.stderr)
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0
