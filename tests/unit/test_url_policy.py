"""The URL policy (docs/webhooks.md, "SSRF defences"): shared vectors, a hostile-URL table, the
switches, properties."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from content_service.webhooks.endpoints import (
    UnresolvableHost,
    UrlPolicy,
    UrlRefused,
    check_url,
    check_url_syntax,
    classify_address,
    parse_ipv4_spelling,
)
from tests.support.resolver import FakeResolver
from tests.support.vectors import vectors

VECTORS: list[dict[str, Any]] = vectors("url-policy.json")["urls"]

DEFAULT = UrlPolicy()
INSECURE = UrlPolicy(allow_insecure_urls=True)
PRIVATE = UrlPolicy(allow_private_networks=True)
BOTH = UrlPolicy(allow_insecure_urls=True, allow_private_networks=True)


def _host_of(url: str) -> str:
    return url.split("/")[2].split(":")[0]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"{v['url']} ({v['why']})")
def test_vector(vector: dict[str, Any]) -> None:
    answers = {_host_of(vector["url"]): vector["resolvesTo"]} if "resolvesTo" in vector else {}
    resolver = FakeResolver(answers, strict=True)
    if vector["allowedByDefault"]:
        checked = check_url(vector["url"], DEFAULT, resolver)
        assert list(checked.addresses) == vector.get("resolvesTo", list(checked.addresses))
        assert checked.target.scheme == "https"
    else:
        with pytest.raises(UrlRefused):
            check_url(vector["url"], DEFAULT, resolver)


@pytest.mark.parametrize(
    "vector",
    [v for v in VECTORS if not v["allowedByDefault"] and "resolvesTo" not in v],
    ids=lambda v: v["url"],
)
def test_refusals_without_dns_are_decided_by_syntax_alone(vector: dict[str, Any]) -> None:
    # Literal addresses in any spelling, and localhost, are refused on create without DNS.
    with pytest.raises(UrlRefused):
        check_url_syntax(vector["url"], DEFAULT)


# (url, DNS answers for its host or None, a fragment the refusal reason must contain).
# Checked under allowInsecureUrls, so an http:// URL is refused for its address, not its scheme.
HOSTILE: list[tuple[str, list[str] | None, str]] = [
    ("https://2130706433/", None, "loopback"),
    ("https://0x7f000001/", None, "loopback"),
    ("https://0x7F000001/", None, "loopback"),
    ("https://0x7f.1/", None, "loopback"),
    ("https://0177.0.0.1/", None, "loopback"),
    ("https://0177.1/", None, "loopback"),
    ("https://127.1/", None, "loopback"),
    ("https://127.0.1/", None, "loopback"),
    ("https://0x7F.0x0.0x0.0x1/", None, "loopback"),
    ("https://017700000001/", None, "loopback"),
    ("https://127.0.0.1./", None, "loopback"),
    ("https://0x7f000001.:8443/", None, "loopback"),
    ("https://0/", None, "unspecified"),
    ("https://0.0.0.0:8443/", None, "unspecified"),
    ("https://3232235777/", None, "RFC 1918"),
    ("https://0xa9fea9fe/", None, "cloud metadata"),
    ("https://169.254.43518/", None, "cloud metadata"),
    ("https://0251.0376.0251.0376/", None, "cloud metadata"),
    ("https://[::ffff:169.254.169.254]/", None, "IPv4-mapped cloud metadata"),
    ("https://[::ffff:a9fe:a9fe]/latest/meta-data/", None, "IPv4-mapped cloud metadata"),
    ("https://[0:0:0:0:0:ffff:127.0.0.1]/", None, "IPv4-mapped loopback"),
    ("https://[::ffff:7f00:1]:443/x", None, "IPv4-mapped loopback"),
    ("https://[::127.0.0.1]/", None, "IPv4-compatible loopback"),
    ("https://[64:ff9b::a9fe:a9fe]/", None, "NAT64 cloud metadata"),
    ("https://[64:ff9b::10.0.0.1]/", None, "NAT64 private"),
    ("https://[64:ff9b:1::a00:1]/", None, "NAT64 local-use"),
    ("https://[2002:7f00:1::1]/", None, "6to4 loopback"),
    ("https://[2002:a9fe:a9fe::]/", None, "6to4 cloud metadata"),
    ("https://[fd00:ec2::254]/", None, "cloud metadata"),
    ("https://[fe80::1%25eth0]/", None, "zone"),
    ("https://[fe80::a9fe:a9fe%251]/", None, "zone"),
    ("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c%25eth0]/", None, "zone"),
    ("https://[0:0:0:0:0:0:0:1]/", None, "loopback"),
    ("https://[::]:443/", None, "unspecified"),
    ("https://[fec0::1]/", None, "site-local"),
    ("https://[2001::1]/", None, "IETF"),
    ("https://[100::1]/", None, "discard"),
    ("https://[ff05::2]/", None, "multicast"),
    ("HTTPS://127.0.0.1/", None, "loopback"),
    ("HtTpS://[::1]:8443/", None, "loopback"),
    ("HTTP://10.0.0.1:80/", None, "RFC 1918"),
    ("http://192.168.0.1/admin", None, "RFC 1918"),
    ("https://LOCALHOST/", None, "loopback"),
    ("https://localhost./", None, "loopback"),
    ("https://api.localhost/", None, "loopback"),
    ("https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/", None, "loopback"),
    ("https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", None, "loopback"),
    ("https://127\u30020\u30020\u30021/", None, "loopback"),
    ("https://user@public.test/", None, "user name or password"),
    ("https://@public.test/", None, "user name or password"),
    ("https://public.test@127.0.0.1/", None, "user name or password"),
    ("https://127.0.0.1%2f@public.test/", None, "user name or password"),
    ("https://public.test\\@127.0.0.1/", None, "backslash"),
    ("https://%31%32%37.0.0.1/", None, "not an IPv4"),
    ("https://256.0.0.1/", None, "not an IPv4"),
    ("https://1.2.3.4.5/", None, "not an IPv4"),
    ("https://public.test.1/", None, "not an IPv4"),
    ("https://public.test:0/", None, "port"),
    ("https://127.0.0.1:65536/", None, "port"),
    (" https://127.0.0.1/", None, "whitespace"),
    ("https://127.0.0.1/\n", None, "whitespace"),
    ("https://127.0.0.1\t/", None, "whitespace"),
    ("https://pub\u200blic.test/", None, "invisible"),
    ("https://public..test/", None, "empty label"),
    ("gopher://127.0.0.1/", None, "scheme"),
    ("javascript:alert(1)", None, "scheme"),
    ("//127.0.0.1/", None, "absolute"),
    ("https:127.0.0.1", None, "no host"),
    ("https://[::1/", None, "bracket"),
    ("https://::1/", None, "brackets"),
    ("https://rebind.test/", ["93.184.215.14", "127.0.0.1"], "loopback"),
    ("https://mixed.test/", ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "::ffff:10.0.0.1"], "1918"),
    ("https://meta.test/", ["93.184.215.14", "169.254.169.254"], "cloud metadata"),
    ("https://nat64.test/", ["64:ff9b::7f00:1"], "NAT64 loopback"),
    ("https://scoped.test/", ["fe80::1%eth0"], "link-local"),
    ("https://odd.test/", ["127.1"], "not an address"),
    ("https://cgnat.test:8443/", ["100.100.100.200"], "CGNAT"),
]


@pytest.mark.parametrize(("url", "answers", "reason"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_urls_are_refused(url: str, answers: list[str] | None, reason: str) -> None:
    resolver = FakeResolver({_host_of(url): answers} if answers is not None else {}, strict=True)
    with pytest.raises(UrlRefused) as refused:
        check_url(url, INSECURE, resolver)
    assert reason in refused.value.reason
    if answers is None:
        assert resolver.calls == []


def test_hostile_table_is_large_enough() -> None:
    assert len(HOSTILE) >= 40


@pytest.mark.parametrize(
    ("spelling", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1.65535", "10.1.255.255"),
        ("0x", "0.0.0.0"),  # noqa: S104 (an address, not a bind)
        ("8.8.8.8.", "8.8.8.8"),
        ("93.184.215.14", "93.184.215.14"),
    ],
)
def test_alternate_ipv4_spellings(spelling: str, address: str) -> None:
    assert parse_ipv4_spelling(spelling) == IPv4Address(address)


@pytest.mark.parametrize(
    "text", ["08.0.0.1", "1.2.3.256", "1.16777216", "4294967296", "a.1", "1..2"]
)
def test_invalid_ipv4_spellings(text: str) -> None:
    assert parse_ipv4_spelling(text) is None


def test_alternate_spelling_is_normalised_for_the_connection() -> None:
    parsed = check_url_syntax("https://0x5d.0270.55054/hook", DEFAULT)
    assert parsed.host == "93.184.215.14"
    assert parsed.ip == IPv4Address("93.184.215.14")
    assert parsed.given_host == "0x5d.0270.55054"


def test_parsed_target_parts() -> None:
    parsed = check_url_syntax(
        "HTTPS://Hooks.Example.COM.:8443/in/caf\u00e9?x=1&y=%20#frag", DEFAULT
    )
    assert (parsed.scheme, parsed.host, parsed.port) == ("https", "hooks.example.com", 8443)
    assert parsed.target == "/in/caf%C3%A9?x=1&y=%20"
    assert parsed.host_header == "hooks.example.com:8443"
    assert parsed.ip is None


def test_empty_path_becomes_slash_and_default_port_is_omitted_from_host() -> None:
    parsed = check_url_syntax("https://hooks.example.com?x", DEFAULT)
    assert parsed.target == "/?x"
    assert parsed.port == 443
    assert parsed.host_header == "hooks.example.com"


def test_international_name_is_idna_encoded() -> None:
    assert check_url_syntax("https://b\u00fccher.example/", DEFAULT).host == "xn--bcher-kva.example"


def test_ipv6_host_header_is_bracketed() -> None:
    parsed = check_url_syntax("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/", DEFAULT)
    assert parsed.host_header == "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443"


def test_every_answer_is_returned_for_the_sender() -> None:
    answers = ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]
    resolver = FakeResolver({"multi.test": answers}, strict=True)
    checked = check_url("https://multi.test:8443/", DEFAULT, resolver)
    assert checked.addresses == tuple(answers)
    assert resolver.calls == [("multi.test", 8443)]


def test_literal_address_is_never_looked_up() -> None:
    resolver = FakeResolver(strict=True)
    assert check_url("https://93.184.215.14/", DEFAULT, resolver).addresses == ("93.184.215.14",)
    assert resolver.calls == []


def test_unresolvable_host_is_distinguished_from_a_refusal() -> None:
    with pytest.raises(UnresolvableHost) as error:
        check_url("https://gone.test/", DEFAULT, FakeResolver())
    assert not isinstance(error.value, UrlRefused)
    assert isinstance(error.value, ValueError)


def test_empty_answer_is_unresolvable() -> None:
    with pytest.raises(UnresolvableHost):
        check_url("https://empty.test/", DEFAULT, FakeResolver({"empty.test": []}, strict=True))


class TestSwitches:
    def test_http_needs_allow_insecure_urls(self) -> None:
        resolver = FakeResolver({"public.test": ["93.184.215.14"]}, strict=True)
        with pytest.raises(UrlRefused, match="http"):
            check_url("http://public.test/", DEFAULT, resolver)
        with pytest.raises(UrlRefused, match="http"):
            check_url("http://public.test/", PRIVATE, resolver)
        assert check_url("http://public.test/", INSECURE, resolver).target.port == 80

    @pytest.mark.parametrize(
        ("url", "answers"),
        [
            ("https://127.0.0.1/", None),
            ("https://[::1]:8443/", None),
            ("https://169.254.1.1/", None),
            ("https://0x7f.1/", None),
            ("https://[::ffff:10.0.0.1]/", None),
            ("https://[::ffff:127.0.0.1]/", None),
            ("https://[fe80::1]/", None),
            ("https://[fd12:3456::1]/", None),
            ("https://172.16.0.1/", None),
            ("https://192.168.1.1/", None),
            ("https://localhost/", ["127.0.0.1", "::1"]),
            ("https://rebind.test/", ["93.184.215.14", "127.0.0.1"]),
            ("https://internal.test/", ["10.1.2.3"]),
            ("https://linklocal.test/", ["169.254.10.10", "fe80::2"]),
        ],
    )
    def test_private_networks_need_allow_private_networks(
        self, url: str, answers: list[str] | None
    ) -> None:
        resolver = FakeResolver(
            {_host_of(url): answers} if answers is not None else {}, strict=True
        )
        with pytest.raises(UrlRefused):
            check_url(url, DEFAULT, resolver)
        checked = check_url(url, PRIVATE, resolver)
        assert checked.addresses
        if answers is not None:
            assert checked.addresses == tuple(answers)

    @pytest.mark.parametrize(
        ("url", "answers", "reason"),
        [
            ("https://169.254.169.254/", None, "cloud metadata"),
            ("https://0xa9fea9fe/", None, "cloud metadata"),
            ("https://[fd00:ec2::254]/", None, "cloud metadata"),
            ("https://[::ffff:169.254.169.254]/", None, "cloud metadata"),
            ("https://meta.test/", ["10.0.0.1", "169.254.169.254"], "cloud metadata"),
            ("https://100.64.0.1/", None, "CGNAT"),
            ("https://192.0.2.1/", None, "TEST-NET-1"),
            ("https://198.51.100.7/", None, "TEST-NET-2"),
            ("https://203.0.113.9/", None, "TEST-NET-3"),
            ("https://198.18.0.1/", None, "benchmarking"),
            ("https://224.0.0.1/", None, "multicast"),
            ("https://[ff02::1]/", None, "multicast"),
            ("https://240.0.0.1/", None, "reserved"),
            ("https://0.0.0.0/", None, "unspecified"),
            ("https://[::]/", None, "unspecified"),
            ("https://255.255.255.255/", None, "broadcast"),
            ("https://[2001:db8::1]/", None, "documentation"),
            ("https://[64:ff9b::7f00:1]/", None, "NAT64 loopback"),
            ("https://[2002:a00:1::]/", None, "6to4 private"),
            ("https://[::10.0.0.1]/", None, "IPv4-compatible"),
            ("https://cgnat.test/", ["100.100.100.200"], "CGNAT"),
        ],
    )
    def test_allow_private_networks_keeps_other_ranges_refused(
        self, url: str, answers: list[str] | None, reason: str
    ) -> None:
        resolver = FakeResolver(
            {_host_of(url): answers} if answers is not None else {}, strict=True
        )
        with pytest.raises(UrlRefused) as refused:
            check_url(url, PRIVATE, resolver)
        assert reason in refused.value.reason

    @pytest.mark.parametrize(
        "url",
        [
            "https://user:pw@127.0.0.1/",
            "ftp://127.0.0.1/",
            "https://[fe80::1%25eth0]/",
            "https://127.0.0.1\n/",
            "https:///nohost",
        ],
    )
    def test_allow_flags_do_not_relax_syntax(self, url: str) -> None:
        with pytest.raises(UrlRefused):
            check_url_syntax(url, BOTH)

    def test_defaults_are_off(self) -> None:
        assert UrlPolicy() == UrlPolicy(allow_insecure_urls=False, allow_private_networks=False)


# The refused ranges of the brief, written here independently of the implementation's table.
REFUSED_V4 = [
    IPv4Network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "255.255.255.255/32",
    )
]
REFUSED_V6 = [
    IPv6Network(n)
    for n in (
        "::/128",
        "::1/128",
        "64:ff9b:1::/48",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
]
PUBLIC_V4 = ["93.184.215.14", "8.8.8.8", "1.1.1.1", "151.101.1.69", "13.32.0.1", "100.128.0.1"]
PUBLIC_V6 = ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "2001:4860:4860::8888", "2a00:1450::1"]


def _in(network: IPv4Network | IPv6Network) -> st.SearchStrategy[str]:
    first = int(network.network_address)
    kind = IPv4Address if network.version == 4 else IPv6Address
    return st.integers(min_value=first, max_value=int(network.broadcast_address)).map(
        lambda n: str(kind(n))
    )


refused_v4 = st.sampled_from(REFUSED_V4).flatmap(_in)
refused_v6 = st.sampled_from(REFUSED_V6).flatmap(_in)


@given(address=st.one_of(refused_v4, refused_v6))
def test_any_address_in_a_refused_network_is_refused(address: str) -> None:
    assert classify_address(address) is not None
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(UrlRefused):
        check_url(f"https://{host}/", DEFAULT, FakeResolver(strict=True))
    with pytest.raises(UrlRefused):
        check_url(
            "https://name.test/", DEFAULT, FakeResolver({"name.test": [address]}, strict=True)
        )


@given(address=refused_v4)
def test_refused_ipv4_stays_refused_inside_ipv6(address: str) -> None:
    n = int(IPv4Address(address))
    for wrapped in (
        IPv6Address((0xFFFF << 32) | n),  # IPv4-mapped
        IPv6Address(n),  # IPv4-compatible
        IPv6Address((0x0064FF9B << 96) | n),  # NAT64 well-known prefix
        IPv6Address((0x2002 << 112) | (n << 80)),  # 6to4
    ):
        assert classify_address(wrapped) is not None, wrapped


@given(address=refused_v4, form=st.sampled_from(["decimal", "hex", "octal", "short"]))
def test_refused_ipv4_in_any_spelling_is_refused(address: str, form: str) -> None:
    n = int(IPv4Address(address))
    a, b, c, d = IPv4Address(address).packed
    spelled = {
        "decimal": str(n),
        "hex": hex(n),
        "octal": ".".join(f"0{part:o}" for part in (a, b, c, d)),
        "short": f"{a}.{(b << 16) | (c << 8) | d}",
    }[form]
    with pytest.raises(UrlRefused):
        check_url(f"https://{spelled}/", DEFAULT, FakeResolver(strict=True))


@pytest.mark.parametrize("address", PUBLIC_V4 + PUBLIC_V6)
def test_public_samples_are_allowed(address: str) -> None:
    assert classify_address(address) is None
    host = f"[{address}]" if ":" in address else address
    assert check_url(f"https://{host}/", DEFAULT, FakeResolver(strict=True)).addresses == (
        str(address),
    )


@pytest.mark.parametrize("address", PUBLIC_V4)
def test_public_ipv4_behind_nat64_or_mapped_is_allowed(address: str) -> None:
    # What DNS64 synthesises on an IPv6-only network must keep working.
    n = int(IPv4Address(address))
    assert classify_address(IPv6Address((0x0064FF9B << 96) | n)) is None
    assert classify_address(IPv6Address((0xFFFF << 32) | n)) is None


@given(packed=st.binary(min_size=4, max_size=4))
def test_ipv4_outside_the_refused_networks_is_allowed(packed: bytes) -> None:
    address = IPv4Address(packed)
    assume(not any(address in network for network in REFUSED_V4))
    assert classify_address(address) is None


@given(packed=st.binary(min_size=16, max_size=16))
def test_global_unicast_ipv6_outside_the_refused_networks_is_allowed(packed: bytes) -> None:
    # Force the 2000::/3 prefix onto random bits: global unicast space.
    address = IPv6Address(bytes([0x20 | (packed[0] & 0x1F)]) + packed[1:])
    special = [*REFUSED_V6, IPv6Network("2002::/16"), IPv6Network("3fff::/20")]
    assume(not any(address in network for network in special))
    assert classify_address(address) is None


@given(packed=st.binary(min_size=16, max_size=16))
def test_ipv6_outside_global_unicast_is_refused_unless_it_embeds_a_public_ipv4(
    packed: bytes,
) -> None:
    address = IPv6Address(packed)
    assume(address not in IPv6Network("2000::/3"))
    embeds = address in IPv6Network("::ffff:0:0/96") or address in IPv6Network("64:ff9b::/96")
    assume(not embeds)
    assert classify_address(address) is not None


@pytest.mark.parametrize(
    ("url", "names"),
    [
        ("http://hooks.example.com/in", ["WEBHOOKS_ALLOW_INSECURE_URLS"]),
        (
            "http://127.0.0.1:9000/hooks",
            ["WEBHOOKS_ALLOW_INSECURE_URLS", "WEBHOOKS_ALLOW_PRIVATE_NETWORKS"],
        ),
        ("https://127.0.0.1/", ["WEBHOOKS_ALLOW_PRIVATE_NETWORKS"]),
        ("https://localhost:8443/in", ["WEBHOOKS_ALLOW_PRIVATE_NETWORKS"]),
        ("https://192.168.1.10/in", ["WEBHOOKS_ALLOW_PRIVATE_NETWORKS"]),
        ("https://[::1]/in", ["WEBHOOKS_ALLOW_PRIVATE_NETWORKS"]),
    ],
)
def test_a_refusal_a_setting_would_lift_names_that_setting(url: str, names: list[str]) -> None:
    with pytest.raises(UrlRefused) as refused:
        check_url_syntax(url, DEFAULT)
    for name in names:
        assert f"{name}=true" in refused.value.reason
    # ...and the settings it names do allow the URL.
    check_url_syntax(url, BOTH)


def test_a_resolved_private_address_names_the_setting_too() -> None:
    resolver = FakeResolver({"hooks.internal.example": ["10.1.2.3"]}, strict=True)
    with pytest.raises(UrlRefused, match="WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true allows it"):
        check_url("https://hooks.internal.example/in", DEFAULT, resolver)


@pytest.mark.parametrize(
    "url",
    ["https://169.254.169.254/latest/", "https://100.64.0.1/", "http://169.254.169.254/"],
)
def test_a_refusal_no_setting_lifts_names_no_setting_for_the_address(url: str) -> None:
    with pytest.raises(UrlRefused) as refused:
        check_url_syntax(url, DEFAULT)
    assert "WEBHOOKS_ALLOW_PRIVATE_NETWORKS" not in refused.value.reason
    with pytest.raises(UrlRefused):
        check_url_syntax(url, BOTH)
