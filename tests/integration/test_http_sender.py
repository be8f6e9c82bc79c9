"""The pinned sender against real HTTP(S) servers on 127.0.0.1.

Names like `receiver.test` exist only in the fake resolvers here: a request that reaches the
local server under such a name proves the connection went to the address the policy checked,
not to one the system resolver chose. Nothing here reaches the internet.
"""

from __future__ import annotations

import datetime
import email.utils
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from content_service.webhooks.endpoints import UrlPolicy, check_url
from content_service.webhooks.sending import Sender, SendResult, parse_retry_after
from tests.support.resolver import FakeResolver

LOCAL = UrlPolicy(allow_insecure_urls=True, allow_private_networks=True)
DEFAULT = UrlPolicy()
BODY = b'{"id":"d1","event":"ping","data":{"kind":"endpoint","id":"e1"}}'
HEADERS = {
    "Content-Type": "application/json",
    "User-Agent": "Service-Webhooks/1",
    "X-Service-Event": "ping",
    "X-Service-Signature": "t=1795000000,v1=" + "0" * 64,
}
TIMEOUT_MS = 400
# Generous bound for "the timeout was honoured": well above the timeout, far below a hang.
BOUND_S = TIMEOUT_MS / 1000 * 5
DRIP_FOR_S = BOUND_S * 2


@dataclass
class Seen:
    path: str
    headers: list[tuple[str, str]]
    body: bytes


Respond = Callable[["Receiver", BaseHTTPRequestHandler], None]


@dataclass
class Receiver:
    """A real HTTP(S) server on 127.0.0.1 that records what it receives."""

    respond: Respond
    tls: ssl.SSLContext | None = None
    seen: list[Seen] = field(default_factory=list)
    connections: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        receiver = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = -1

            def setup(self) -> None:
                with lock:
                    receiver.connections += 1
                super().setup()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.seen.append(Seen(self.path, list(self.headers.items()), body))
                try:
                    receiver.respond(receiver, self)
                except OSError:
                    self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if self.tls is not None:
            self.server.socket = self.tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def reply(
    status: int = 200, body: bytes = b"", headers: tuple[tuple[str, str], ...] = ()
) -> Respond:
    def respond(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in headers:
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return respond


def never_answer(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
    receiver.stop.wait(DRIP_FOR_S)
    handler.close_connection = True


def _dripping(receiver: Receiver) -> Iterator[None]:
    """Ticks every 20 ms for a while: long enough to fail the bound, short enough not to hang."""
    until = time.monotonic() + DRIP_FOR_S
    while time.monotonic() < until and not receiver.stop.wait(0.02):
        yield None


def drip_headers(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
    handler.close_connection = True
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    for _ in _dripping(receiver):
        handler.wfile.write(b"x")
        handler.wfile.flush()


def drip_body(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
    handler.close_connection = True
    handler.send_response(200)
    handler.send_header("Content-Length", "1000000")
    handler.end_headers()
    handler.wfile.write(b"first")
    handler.wfile.flush()
    for _ in _dripping(receiver):
        handler.wfile.write(b".")
        handler.wfile.flush()


@pytest.fixture
def serve() -> Iterator[Callable[..., Receiver]]:
    started: list[Receiver] = []

    def start(respond: Respond, tls: ssl.SSLContext | None = None) -> Receiver:
        receiver = Receiver(respond, tls)
        receiver.start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        receiver.close()


def local_sender(**kwargs: object) -> Sender:
    options: dict[str, object] = {
        "resolver": FakeResolver.in_turn(["127.0.0.1"]),
        "timeout_ms": 5000,
    }
    options.update(kwargs)
    return Sender(LOCAL, **options)  # type: ignore[arg-type]


def timed_post(sender: Sender, url: str) -> tuple[SendResult, float]:
    started = time.monotonic()
    result = sender.post(url, BODY, HEADERS)
    return result, time.monotonic() - started


class TestAnswers:
    def test_2xx_with_exact_request_and_truncated_snippet(
        self, serve: Callable[..., Receiver]
    ) -> None:
        answer = bytes(range(97, 123)) * 200
        receiver = serve(reply(200, answer))
        with local_sender(snippet_bytes=100) as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/hook?x=1", BODY, HEADERS)
        assert result.ok
        assert result.status_code == 200
        assert result.error is None
        assert result.response_snippet == answer[:100].decode()
        (seen,) = receiver.seen
        assert seen.path == "/hook?x=1"
        assert seen.body == BODY
        # The caller's headers, plus only what HTTP requires: Host and Content-Length.
        assert dict(seen.headers) == {
            **HEADERS,
            "Host": f"receiver.test:{receiver.port}",
            "Content-Length": str(len(BODY)),
        }
        assert len(seen.headers) == len(HEADERS) + 2

    def test_snippet_never_ends_in_half_a_character(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(200, "\u00e9".encode() * 10))
        with local_sender(snippet_bytes=5) as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert result.response_snippet == "\u00e9\u00e9"

    def test_large_body_is_not_read_past_the_snippet(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(200, b"z" * 8_000_000))
        with local_sender(snippet_bytes=2048) as sender:
            first, elapsed = timed_post(sender, f"http://receiver.test:{receiver.port}/")
            second = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert first.status_code == second.status_code == 200
        assert first.response_snippet == "z" * 2048
        assert elapsed < 5
        # The unread remainder makes the first connection unusable: a second one is opened.
        assert receiver.connections == 2

    @pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
    def test_redirects_are_not_followed(self, serve: Callable[..., Receiver], status: int) -> None:
        receiver = serve(reply(status, b"moved", (("Location", "/elsewhere"),)))
        with local_sender() as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/hook", BODY, HEADERS)
        assert result.status_code == status
        assert not result.ok
        assert [seen.path for seen in receiver.seen] == ["/hook"]

    @pytest.mark.parametrize("status", [400, 404, 410, 500, 503])
    def test_error_statuses_are_reported(self, serve: Callable[..., Receiver], status: int) -> None:
        receiver = serve(reply(status, b"nope"))
        with local_sender() as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert (result.status_code, result.response_snippet, result.error) == (status, "nope", None)

    def test_retry_after_seconds(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(429, b"slow down", (("Retry-After", "120"),)))
        with local_sender() as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert (result.status_code, result.retry_after_seconds) == (429, 120)

    def test_retry_after_http_date(self, serve: Callable[..., Receiver]) -> None:
        now = 1_795_000_000
        date = email.utils.formatdate(now + 90, usegmt=True)
        receiver = serve(reply(503, b"", (("Retry-After", date),)))
        with local_sender(wall_clock=lambda: float(now)) as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert (result.status_code, result.retry_after_seconds) == (503, 90)

    def test_no_retry_after_header(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(503))
        with local_sender() as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert result.retry_after_seconds is None

    def test_a_body_cut_short_keeps_the_status(self, serve: Callable[..., Receiver]) -> None:
        def hang_up_early(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
            handler.close_connection = True
            handler.send_response(200)
            handler.send_header("Content-Length", "100")
            handler.end_headers()
            handler.wfile.write(b"only ten b")

        receiver = serve(hang_up_early)
        with local_sender() as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert result.status_code == 200
        assert result.response_snippet == "only ten b"
        assert result.error == "the receiver closed the connection before the body was complete"

    def test_an_informational_answer_alone_is_no_status(
        self, serve: Callable[..., Receiver]
    ) -> None:
        def early_hints(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
            handler.wfile.write(
                b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            )

        receiver = serve(early_hints)
        with local_sender() as sender:
            first = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
            second = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert first.status_code is None
        assert first.error == "the receiver sent only an informational 103"
        # The 200 left on the first connection must not be taken as the second send's answer.
        assert (second.status_code, second.error) == (None, first.error)
        assert receiver.connections == 2


NOW = 1_795_000_000.0


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("0", 0),
        ("120", 120),
        (" 7 ", 7),
        ("-5", 0),
        ("99999999999999999999", 2**31 - 1),
        (email.utils.formatdate(NOW + 3600, usegmt=True), 3600),
        (email.utils.formatdate(NOW - 3600, usegmt=True), 0),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 0),
        (
            datetime.datetime.fromtimestamp(NOW + 30, datetime.UTC).strftime(
                "%A, %d-%b-%y %H:%M:%S GMT"
            ),
            30,
        ),
        ("soon", None),
        ("", None),
        ("1.5", None),
        (None, None),
    ],
)
def test_parse_retry_after(value: str | None, seconds: int | None) -> None:
    assert parse_retry_after(value, NOW) == seconds


class TestNoStatus:
    def test_a_receiver_that_never_answers_is_cut_at_the_timeout(
        self, serve: Callable[..., Receiver]
    ) -> None:
        receiver = serve(never_answer)
        with local_sender(timeout_ms=TIMEOUT_MS) as sender:
            result, elapsed = timed_post(sender, f"http://receiver.test:{receiver.port}/")
        assert result.status_code is None
        assert result.error == f"timed out after {TIMEOUT_MS} ms"
        assert elapsed < BOUND_S
        assert result.duration_ms <= elapsed * 1000 + 1

    def test_headers_dripping_forever_are_cut_at_the_timeout(
        self, serve: Callable[..., Receiver]
    ) -> None:
        receiver = serve(drip_headers)
        with local_sender(timeout_ms=TIMEOUT_MS) as sender:
            result, elapsed = timed_post(sender, f"http://receiver.test:{receiver.port}/")
        assert result.status_code is None
        assert result.error is not None
        assert "timed out" in result.error
        assert elapsed < BOUND_S

    def test_a_body_dripping_forever_keeps_the_status_and_is_cut_at_the_timeout(
        self, serve: Callable[..., Receiver]
    ) -> None:
        receiver = serve(drip_body)
        with local_sender(timeout_ms=TIMEOUT_MS) as sender:
            result, elapsed = timed_post(sender, f"http://receiver.test:{receiver.port}/")
        assert result.status_code == 200
        assert result.error is not None
        assert "did not arrive" in result.error
        assert result.response_snippet.startswith("first")
        assert elapsed < BOUND_S

    def test_refused_connection(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with local_sender() as sender:
            result = sender.post(f"http://receiver.test:{port}/", BODY, HEADERS)
        assert result.status_code is None
        assert result.error == "connection refused"

    def test_unresolvable_host(self) -> None:
        with Sender(LOCAL, resolver=FakeResolver()) as sender:
            result = sender.post("https://gone.test/", BODY, HEADERS)
        assert result.status_code is None
        assert result.error is not None
        assert result.error.startswith("could not resolve the host")
        assert "gone.test" in result.error

    def test_empty_dns_answer_is_unresolvable(self) -> None:
        with Sender(LOCAL, resolver=FakeResolver.in_turn([])) as sender:
            result = sender.post("https://empty.test/", BODY, HEADERS)
        assert result.status_code is None
        assert result.error is not None
        assert result.error.startswith("could not resolve the host")

    def test_policy_refusal_at_send_opens_no_connection(
        self, serve: Callable[..., Receiver]
    ) -> None:
        receiver = serve(reply(200))
        with Sender(
            UrlPolicy(allow_insecure_urls=True), resolver=FakeResolver.in_turn([])
        ) as sender:
            result = sender.post(f"http://127.0.0.1:{receiver.port}/", BODY, HEADERS)
        assert result.status_code is None
        assert result.error is not None
        assert "refused by the URL policy" in result.error
        assert "loopback" in result.error
        assert receiver.connections == 0


class TestPinning:
    def test_dns_re_pointed_to_loopback_after_the_check_is_refused(
        self, serve: Callable[..., Receiver]
    ) -> None:
        receiver = serve(reply(200))
        policy = UrlPolicy(allow_insecure_urls=True)
        resolver = FakeResolver.in_turn(["93.184.215.14"], ["127.0.0.1"])
        url = f"http://receiver.test:{receiver.port}/hook"
        # On create the name pointed at a public address, so the endpoint was accepted...
        assert check_url(url, policy, resolver).addresses == ("93.184.215.14",)
        # ...and at send time it points at loopback: the attempt fails without a connection.
        with Sender(policy, resolver=resolver) as sender:
            result = sender.post(url, BODY, HEADERS)
        assert result.status_code is None
        assert result.error is not None
        assert "receiver.test resolves to 127.0.0.1" in result.error
        assert receiver.connections == 0

    def test_connects_to_the_checked_address_with_the_original_host(
        self, serve: Callable[..., Receiver]
    ) -> None:
        receiver = serve(reply(204))
        # The first answer is the one checked; a later answer must never be used for this send.
        resolver = FakeResolver.in_turn(["127.0.0.1"], ["93.184.215.14"])
        with Sender(LOCAL, resolver=resolver, timeout_ms=5000) as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/in", BODY, HEADERS)
        assert result.status_code == 204
        assert resolver.calls == [("receiver.test", receiver.port)]
        assert dict(receiver.seen[0].headers)["Host"] == f"receiver.test:{receiver.port}"

    def test_every_send_resolves_and_checks_again(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(200))
        resolver = FakeResolver.in_turn(["127.0.0.1"], ["127.0.0.1"], ["10.0.0.9"])
        policy = UrlPolicy(allow_insecure_urls=True, allow_private_networks=False)
        url = f"http://receiver.test:{receiver.port}/"
        with Sender(LOCAL, resolver=resolver) as sender:
            assert sender.post(url, BODY, HEADERS).status_code == 200
            assert sender.post(url, BODY, HEADERS).status_code == 200
        with Sender(policy, resolver=resolver) as strict:
            refused = strict.post(url, BODY, HEADERS)
        assert len(resolver.calls) == 3
        assert refused.status_code is None
        assert refused.error is not None
        assert "10.0.0.9" in refused.error

    def test_falls_back_to_the_next_checked_address(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(200))
        # Nothing listens on 127.0.0.2 (or ::1) at this port; 127.0.0.1 answers.
        resolver = FakeResolver.in_turn(["127.0.0.2", "::1", "127.0.0.1"])
        with Sender(LOCAL, resolver=resolver) as sender:
            result = sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert result.status_code == 200


class TestConnectionReuse:
    def test_one_connection_for_a_batch(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(200, b"ok"))
        with local_sender() as sender:
            results = [
                sender.post(f"http://receiver.test:{receiver.port}/{i}", BODY, HEADERS)
                for i in range(5)
            ]
        assert [r.status_code for r in results] == [200] * 5
        assert len(receiver.seen) == 5
        assert receiver.connections == 1

    def test_chunked_and_empty_answers_keep_the_connection(
        self, serve: Callable[..., Receiver]
    ) -> None:
        def chunked(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(200)
            handler.send_header("Transfer-Encoding", "chunked")
            handler.end_headers()
            handler.wfile.write(b"6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n")

        receiver = serve(chunked)
        empty = serve(reply(204))
        with local_sender() as sender:
            for _ in range(3):
                chunked_result = sender.post(
                    f"http://receiver.test:{receiver.port}/", BODY, HEADERS
                )
                assert chunked_result.response_snippet == "hello world"
                assert sender.post(f"http://other.test:{empty.port}/", BODY, HEADERS).ok
        assert receiver.connections == 1
        assert empty.connections == 1

    def test_a_connection_closed_by_the_receiver_is_replaced(
        self, serve: Callable[..., Receiver]
    ) -> None:
        answer = reply(200, b"ok")

        def answer_then_hang_up(receiver: Receiver, handler: BaseHTTPRequestHandler) -> None:
            answer(receiver, handler)
            handler.close_connection = True

        receiver = serve(answer_then_hang_up)
        with local_sender() as sender:
            results = [
                sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS)
                for _ in range(3)
            ]
        assert [r.status_code for r in results] == [200, 200, 200]
        assert receiver.connections == 3

    def test_connection_close_is_honoured(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(200, b"ok", (("Connection", "close"),)))
        with local_sender() as sender:
            for _ in range(2):
                assert sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS).ok
        assert receiver.connections == 2

    def test_a_new_sender_opens_a_new_connection(self, serve: Callable[..., Receiver]) -> None:
        receiver = serve(reply(200))
        for _ in range(2):
            with local_sender() as sender:
                assert sender.post(f"http://receiver.test:{receiver.port}/", BODY, HEADERS).ok
        assert receiver.connections == 2


class TestCallerHeaders:
    @pytest.mark.parametrize(
        "headers",
        [
            {"Host": "evil.test"},
            {"content-length": "0"},
            {"Transfer-Encoding": "chunked"},
            {"Connection": "close"},
            {"X-Split": "a\r\nX-Injected: 1"},
            {"Bad Name": "x"},
        ],
    )
    def test_headers_that_cannot_be_sent_are_a_programming_error(
        self, headers: dict[str, str]
    ) -> None:
        with local_sender() as sender, pytest.raises(ValueError, match="header"):
            sender.post("http://receiver.test:1/", BODY, headers)

    def test_timeout_must_be_positive(self) -> None:
        with local_sender() as sender, pytest.raises(ValueError, match="timeout"):
            sender.post("http://receiver.test:1/", BODY, HEADERS, timeout_ms=0)


# TLS: a throwaway CA and a certificate for receiver.test, made for this test run.


@dataclass
class Pki:
    ca_file: Path
    cert_file: Path
    key_file: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory = tmp_path_factory.mktemp("pki")
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("Test CA"))
        .issuer_name(_name("Test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("receiver.test"))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("receiver.test")]), False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pki = Pki(directory / "ca.pem", directory / "cert.pem", directory / "key.pem")
    pki.ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    pki.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pki.key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return pki


def server_tls(pki: Pki, server_names: list[str | None]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki.cert_file, pki.key_file)

    def record(_sock: ssl.SSLObject, name: str | None, _context: ssl.SSLContext) -> None:
        server_names.append(name)

    context.sni_callback = record
    return context


class TestTls:
    def test_sni_and_certificate_use_the_original_name_on_the_pinned_address(
        self, serve: Callable[..., Receiver], pki: Pki
    ) -> None:
        server_names: list[str | None] = []
        receiver = serve(reply(200, b"secure"), tls=server_tls(pki, server_names))
        with local_sender(ca_bundle=str(pki.ca_file)) as sender:
            first = sender.post(f"https://receiver.test:{receiver.port}/hook", BODY, HEADERS)
            second = sender.post(f"https://receiver.test:{receiver.port}/hook", BODY, HEADERS)
        assert (first.status_code, first.response_snippet, first.error) == (200, "secure", None)
        assert second.ok
        assert server_names == ["receiver.test"]
        assert receiver.connections == 1
        assert dict(receiver.seen[0].headers)["Host"] == f"receiver.test:{receiver.port}"

    def test_a_certificate_for_another_name_is_refused(
        self, serve: Callable[..., Receiver], pki: Pki
    ) -> None:
        server_names: list[str | None] = []
        receiver = serve(reply(200), tls=server_tls(pki, server_names))
        with local_sender(ca_bundle=str(pki.ca_file)) as sender:
            result = sender.post(f"https://other.test:{receiver.port}/", BODY, HEADERS)
        assert result.status_code is None
        assert result.error is not None
        assert result.error.startswith("TLS certificate verification failed")
        assert "other.test" in result.error
        assert server_names == ["other.test"]
        assert receiver.seen == []

    def test_an_untrusted_issuer_is_refused(self, serve: Callable[..., Receiver], pki: Pki) -> None:
        receiver = serve(reply(200), tls=server_tls(pki, []))
        with local_sender() as sender:
            result = sender.post(f"https://receiver.test:{receiver.port}/", BODY, HEADERS)
        assert result.status_code is None
        assert result.error is not None
        assert result.error.startswith("TLS certificate verification failed")
        assert receiver.seen == []

    def test_a_stalled_handshake_is_cut_at_the_timeout(self) -> None:
        stop = threading.Event()
        with socket.create_server(("127.0.0.1", 0)) as listener:
            port = listener.getsockname()[1]

            def accept_and_hold() -> None:
                connection, _ = listener.accept()
                with connection:
                    stop.wait(30)

            holder = threading.Thread(target=accept_and_hold, daemon=True)
            holder.start()
            try:
                with local_sender(timeout_ms=TIMEOUT_MS) as sender:
                    result, elapsed = timed_post(sender, f"https://receiver.test:{port}/")
            finally:
                stop.set()
                holder.join(5)
        assert result.status_code is None
        assert result.error == f"timed out after {TIMEOUT_MS} ms"
        assert elapsed < BOUND_S
