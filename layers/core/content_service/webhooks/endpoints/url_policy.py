"""The URL policy (docs/webhooks.md, "SSRF defences"): which receivers a webhook may be pointed at.

The policy guards against server-side request forgery: an administrator's URL must not make
the service call its own loopback, the cloud metadata address or a private network. It is
checked when an endpoint is saved and again at every send after DNS resolution,
and every address a name resolves to is checked, not only the first. The sender then connects
to one of the checked addresses, so a DNS answer cannot change between check and connect.
"""

from __future__ import annotations

import re
import socket
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from typing import Protocol
from urllib.parse import quote

IPAddress = IPv4Address | IPv6Address

MAX_URL_LENGTH = 2048
# The settings that lift the two switchable refusals; a refusal names the one that would allow
# the URL (for a receiver on a developer's machine; production keeps both off).
INSECURE_SETTING = "WEBHOOKS_ALLOW_INSECURE_URLS"
PRIVATE_SETTING = "WEBHOOKS_ALLOW_PRIVATE_NETWORKS"
DEFAULT_PORTS = {"http": 80, "https": 443}

# Most specific first: the first match gives the reason.
REFUSED_IPV4_NETWORKS: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(network), reason)
    for network, reason in (
        ("0.0.0.0/32", "unspecified"),
        ("0.0.0.0/8", "this-network (reserved)"),
        ("10.0.0.0/8", "private (RFC 1918)"),
        ("100.64.0.0/10", "CGNAT (RFC 6598)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.169.254/32", "cloud metadata"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private (RFC 1918)"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "test network (TEST-NET-1)"),
        ("192.88.99.0/24", "6to4 relay anycast (reserved)"),
        ("192.168.0.0/16", "private (RFC 1918)"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "test network (TEST-NET-2)"),
        ("203.0.113.0/24", "test network (TEST-NET-3)"),
        ("224.0.0.0/4", "multicast"),
        ("255.255.255.255/32", "broadcast"),
        ("240.0.0.0/4", "reserved"),
    )
)

REFUSED_IPV6_NETWORKS: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(network), reason)
    for network, reason in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "NAT64 local-use (RFC 8215)"),
        ("100::/64", "discard-only (RFC 6666)"),
        ("2001::/23", "IETF protocol assignments"),
        ("2001:db8::/32", "IPv6 documentation"),
        ("3fff::/20", "IPv6 documentation"),
        ("fd00:ec2::254/128", "cloud metadata"),
        ("fc00::/7", "IPv6 unique local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "IPv6 site-local (deprecated)"),
        ("ff00::/8", "multicast"),
    )
)


def _low_32_bits(ip: IPv6Address) -> IPv4Address:
    return IPv4Address(int(ip) & 0xFFFFFFFF)


def _sixtofour(ip: IPv6Address) -> IPv4Address:
    return IPv4Address((int(ip) >> 80) & 0xFFFFFFFF)


# IPv6 prefixes that carry an IPv4 address the packet ends up at: the embedded address is
# classified, so `::ffff:127.0.0.1` is refused as loopback and `64:ff9b::<public>` (what DNS64
# synthesises on IPv6-only networks) is allowed.
_Extract = Callable[[IPv6Address], IPv4Address]
EMBEDDED_IPV4_NETWORKS: tuple[tuple[IPv6Network, str, _Extract], ...] = (
    (IPv6Network("::ffff:0:0/96"), "IPv4-mapped", _low_32_bits),
    (IPv6Network("64:ff9b::/96"), "NAT64", _low_32_bits),
    (IPv6Network("2002::/16"), "6to4", _sixtofour),
)
IPV4_COMPATIBLE = IPv6Network("::/96")
GLOBAL_UNICAST = IPv6Network("2000::/3")


# What `allowPrivateNetworks` permits (docs/webhooks.md: "loopback, link-local and RFC 1918
# destinations"), with their IPv6 counterparts and IPv4-mapped forms. Everything else refused
# by the tables above stays refused under every option: the cloud metadata addresses (listed
# before link-local, so they never classify as link-local), CGNAT, test and benchmarking
# networks, multicast, reserved, unspecified and broadcast, and the NAT64, 6to4 and
# IPv4-compatible forms even of private addresses (no local receiver needs those).
PRIVATE_NETWORK_REASONS: frozenset[str] = frozenset(
    {"loopback", "link-local", "private (RFC 1918)", "IPv6 unique local"}
)
_PRIVATE_MAPPED_REASONS = frozenset(f"IPv4-mapped {reason}" for reason in PRIVATE_NETWORK_REASONS)


def is_private_network_reason(reason: str) -> bool:
    """True for a refusal that `allowPrivateNetworks` lifts (see PRIVATE_NETWORK_REASONS)."""
    return reason in PRIVATE_NETWORK_REASONS or reason in _PRIVATE_MAPPED_REASONS


class UrlPolicyError(ValueError):
    """Base of the policy's refusals; `reason` is shown to the administrator."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UrlRefused(UrlPolicyError):
    """The URL or one of its addresses is refused: 422 on save, a failed attempt at send."""


class UnresolvableHost(UrlPolicyError):
    """The name has no address right now: at send time a failed attempt that is retried."""


@dataclass(frozen=True)
class UrlPolicy:
    """The two switches of docs/webhooks.md, "SSRF defences"; both off in production.

    `allow_private_networks` permits loopback, link-local and RFC 1918 destinations
    and their IPv6 counterparts; the cloud metadata addresses stay refused (see
    `refusal_reason`).
    """

    allow_insecure_urls: bool = False
    allow_private_networks: bool = False


@dataclass(frozen=True)
class ParsedTarget:
    """A syntactically accepted URL, normalised for connecting.

    `host` is lower-case ASCII without a trailing dot, or the canonical text of `ip` when the
    URL names an address in any spelling; `given_host` is the host as written.
    """

    scheme: str
    host: str
    port: int
    target: str
    given_host: str
    ip: IPAddress | None

    @property
    def host_header(self) -> str:
        """The `Host` value: the normalised host, with the port only when not the default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


@dataclass(frozen=True)
class CheckedTarget:
    """A target whose every address passed the policy; the sender connects to one of them."""

    target: ParsedTarget
    addresses: tuple[str, ...]


class Resolver(Protocol):
    """Returns every address of `host`, raising `UnresolvableHost` when there is none."""

    def resolve(self, host: str, port: int) -> list[str]: ...


class SystemResolver:
    """The operating system's resolver, asked for IPv4 and IPv6 answers alike."""

    def resolve(self, host: str, port: int) -> list[str]:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as error:
            raise UnresolvableHost(f"{host} could not be resolved ({error})") from None
        addresses: list[str] = []
        for family, _type, _proto, _name, sockaddr in infos:
            address = sockaddr[0]
            is_inet = family in (socket.AF_INET, socket.AF_INET6)
            if is_inet and isinstance(address, str) and address not in addresses:
                addresses.append(address)
        return addresses


def _parse_address(address: str | IPAddress) -> IPAddress:
    ip = ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, IPv6Address) and ip.scope_id is not None:
        return IPv6Address(int(ip))
    return ip


def _classify_ipv4(ip: IPv4Address) -> str | None:
    for network, reason in REFUSED_IPV4_NETWORKS:
        if ip in network:
            return reason
    if not ip.is_global:
        return "reserved (not globally routable)"
    return None


def _classify_ipv6(ip: IPv6Address) -> str | None:
    for network, label, extract in EMBEDDED_IPV4_NETWORKS:
        if ip in network:
            inner = _classify_ipv4(extract(ip))
            return None if inner is None else f"{label} {inner}"
    for network, reason in REFUSED_IPV6_NETWORKS:
        if ip in network:
            return reason
    if ip in IPV4_COMPATIBLE:
        inner = _classify_ipv4(_low_32_bits(ip))
        return "reserved (IPv4-compatible)" if inner is None else f"IPv4-compatible {inner}"
    if ip not in GLOBAL_UNICAST:
        return "reserved"
    if not ip.is_global:
        return "reserved (not globally routable)"
    return None


def classify_address(address: str | IPAddress) -> str | None:
    """None for a public address, else why it is refused (for example `"loopback"`).

    A zone id (`fe80::1%eth0`) is ignored. Raises `ValueError` for text that is no address.
    """
    ip = _parse_address(address)
    if isinstance(ip, IPv4Address):
        return _classify_ipv4(ip)
    return _classify_ipv6(ip)


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_PORT = re.compile(r"[0-9]{1,5}")
_LABEL = re.compile(r"[a-z0-9_]([a-z0-9_\-]{0,61}[a-z0-9_])?")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
# Every printable ASCII character stays as written; only non-ASCII is percent-encoded.
_SAFE_TARGET = "".join(chr(code) for code in range(0x21, 0x7F))


def _ipv4_part(text: str) -> int | None:
    if text.startswith("0x"):
        digits = text[2:]
        return int(digits, 16) if digits else 0
    if len(text) > 1 and text.startswith("0"):
        return int(text, 8) if re.fullmatch(r"[0-7]+", text) else None
    return int(text) if text.isdigit() else None


def parse_ipv4_spelling(host: str) -> IPv4Address | None:
    """Reads `host` the way `inet_aton` does: `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`.

    Returns None when it is not an IPv4 address in any of these spellings. Such spellings are
    resolved by the C library without asking DNS, so the policy must see the address they
    denote rather than treat them as names.
    """
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        if not _NUMERIC_LABEL.fullmatch(part) or len(part) > 40:
            return None
        value = _ipv4_part(part)
        if value is None:
            return None
        values.append(value)
    *leading, last = values
    if any(value > 255 for value in leading) or last >= 256 ** (5 - len(values)):
        return None
    number = last
    for index, value in enumerate(leading):
        number += value << (8 * (3 - index))
    return IPv4Address(number)


def refusal_reason(address: str | IPAddress, policy: UrlPolicy) -> str | None:
    """Why the policy refuses `address`, or None when it may be connected to.

    `classify_address` under the policy's switch: with `allow_private_networks` loopback,
    link-local and RFC 1918 addresses (and IPv6 `::1`, `fe80::/10`, `fc00::/7`, and
    IPv4-mapped forms of these) are allowed; the cloud metadata addresses and every other
    refused range are refused regardless.
    """
    reason = classify_address(address)
    if reason is None:
        return None
    if policy.allow_private_networks and is_private_network_reason(reason):
        return None
    return reason


def _address_refusal(subject: str, reason: str) -> str:
    """`<subject> ... (<reason> address)`, naming the setting that lifts it when one does."""
    message = f"{subject} ({reason} address)"
    if is_private_network_reason(reason):
        message += f"; {PRIVATE_SETTING}=true allows it"
    return message


def _refuse_literal(address: IPAddress, policy: UrlPolicy, given: str) -> None:
    reason = refusal_reason(address, policy)
    if reason is not None:
        raise UrlRefused(_address_refusal(f"{given} is refused", reason))


def _split_authority(authority: str) -> tuple[str, bool, str | None]:
    """Returns the host text, whether it was bracketed, and the port text (None if absent)."""
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            raise UrlRefused("the URL's IPv6 address has no closing bracket")
        after = authority[close + 1 :]
        if after and not after.startswith(":"):
            raise UrlRefused("unexpected text after the URL's IPv6 address")
        return authority[1:close], True, after[1:] if after else None
    host, sep, port = authority.partition(":")
    if ":" in port:
        raise UrlRefused("an IPv6 address in a URL must be written in brackets")
    return host, False, port if sep else None


def _parse_port(text: str | None, scheme: str) -> int:
    if not text:
        return DEFAULT_PORTS[scheme]
    port = int(text) if _PORT.fullmatch(text) else 0
    if not 1 <= port <= 65535:
        raise UrlRefused(f"port {text[:20]!r} is not a number from 1 to 65535")
    return port


def _normalise_name(host: str) -> str:
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise UrlRefused(f"host {host!r} is not a valid domain name") from None
    host = host.lower()
    return host[:-1] if host.endswith(".") else host


def _check_bracketed(literal: str, policy: UrlPolicy) -> IPv6Address:
    if "%" in literal:
        raise UrlRefused("IPv6 zone identifiers are not allowed in a URL")
    try:
        ip = IPv6Address(literal)
    except ValueError:
        raise UrlRefused(f"[{literal}] is not a valid IPv6 address") from None
    _refuse_literal(ip, policy, f"[{literal}]")
    return ip


def _check_unbracketed(host_text: str, policy: UrlPolicy) -> tuple[str, IPv4Address | None]:
    host = _normalise_name(host_text)
    labels = host.split(".")
    if not host or "" in labels:
        raise UrlRefused(f"host {host_text!r} has an empty label")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        ipv4 = parse_ipv4_spelling(host)
        if ipv4 is None:
            raise UrlRefused(f"host {host_text!r} ends in a number but is not an IPv4 address")
        _refuse_literal(ipv4, policy, host_text)
        return str(ipv4), ipv4
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise UrlRefused(f"host {host_text!r} is not a valid domain name")
    is_localhost = host == "localhost" or host.endswith(".localhost")
    if is_localhost and not policy.allow_private_networks:
        raise UrlRefused(
            f"{host_text} is refused (loopback name, RFC 6761); {PRIVATE_SETTING}=true allows it"
        )
    return host, None


def check_url_syntax(url: str, policy: UrlPolicy) -> ParsedTarget:
    """Everything the policy can decide without DNS; raises `UrlRefused` with the reason.

    Refuses schemes other than http(s), http unless allowed, any userinfo (even a bare `@`),
    a missing host, whitespace, control and invisible characters, backslashes, IPv6 zone ids,
    and literal addresses (in any IPv4 spelling) outside public space. The fragment is dropped;
    non-ASCII in the path or query is percent-encoded and an international name IDNA-encoded.
    """
    _check_text(url)
    scheme, rest = _split_scheme(url, policy)
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, remainder = rest[:end], rest[end:].partition("#")[0]
    if "@" in authority:
        raise UrlRefused("the URL carries a user name or password; put credentials in a header")
    host_text, bracketed, port_text = _split_authority(authority)
    if not host_text:
        raise UrlRefused("the URL has no host")
    port = _parse_port(port_text, scheme)
    ip: IPAddress | None
    if bracketed:
        ip = _check_bracketed(host_text, policy)
        host = str(ip)
    else:
        host, ip = _check_unbracketed(host_text, policy)
    target = quote(remainder, safe=_SAFE_TARGET)
    if not target.startswith("/"):
        target = "/" + target
    return ParsedTarget(scheme, host, port, target, host_text, ip)


def _check_text(url: str) -> None:
    """The URL as text: present, bounded, and without characters that hide what it names."""
    if not url:
        raise UrlRefused("the URL is empty")
    if len(url) > MAX_URL_LENGTH:
        raise UrlRefused(f"the URL is longer than {MAX_URL_LENGTH} characters")
    for char in url:
        if char.isspace() or char == "\\" or unicodedata.category(char) in ("Cc", "Cf"):
            raise UrlRefused(
                "the URL contains whitespace, a backslash, or a control or invisible character"
            )


def _split_scheme(url: str, policy: UrlPolicy) -> tuple[str, str]:
    """The allowed scheme, and what follows its `//`."""
    match = _SCHEME.match(url)
    if match is None:
        raise UrlRefused("not an absolute URL; it must start with https://")
    scheme = match.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise UrlRefused(f"scheme {scheme!r} is not allowed; use https")
    if scheme == "http" and not policy.allow_insecure_urls:
        raise UrlRefused(_insecure_refusal(url, policy))
    rest = url[match.end() :]
    if not rest.startswith("//"):
        raise UrlRefused("the URL has no host")
    return scheme, rest[2:]


def _insecure_refusal(url: str, policy: UrlPolicy) -> str:
    """Why an http URL is refused, with the setting that allows http, and the other one too
    when the address would be refused next (`http://127.0.0.1:9000/` needs both)."""
    message = f"http URLs are refused: use https, or set {INSECURE_SETTING}=true to allow http"
    try:
        check_url_syntax(url, replace(policy, allow_insecure_urls=True))
    except UrlRefused as next_refusal:
        if PRIVATE_SETTING in next_refusal.reason:
            message += f" (and {PRIVATE_SETTING}=true for this address)"
    return message


def check_url(url: str, policy: UrlPolicy, resolver: Resolver | None = None) -> CheckedTarget:
    """`check_url_syntax`, then resolves a name and checks every address it resolves to.

    Raises `UrlRefused` if the URL or any address is refused, `UnresolvableHost` if the name
    has no address. `allow_private_networks` lifts only the refusals `refusal_reason` names.
    """
    parsed = check_url_syntax(url, policy)
    if parsed.ip is not None:
        return CheckedTarget(parsed, (parsed.host,))
    answers = (resolver or SystemResolver()).resolve(parsed.host, parsed.port)
    if not answers:
        raise UnresolvableHost(f"{parsed.host} has no address")
    for answer in answers:
        try:
            reason = refusal_reason(answer, policy)
        except ValueError:
            raise UrlRefused(f"{parsed.host} resolved to {answer!r}, not an address") from None
        if reason is not None:
            raise UrlRefused(
                _address_refusal(f"{parsed.host} resolves to {answer}, refused", reason)
            )
    return CheckedTarget(parsed, tuple(answers))
