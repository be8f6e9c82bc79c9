"""What an operational notice may say about an endpoint's destination: its host, no more.

A notice reaches every `allWorkspaces` endpoint that takes it, whoever runs that receiver,
while an endpoint's URL can be its credential: a Slack-style URL keeps its secret in the path,
others in the query or the user name. So a notice names the endpoint by id and host (an
EventBridge endpoint by its bus's name), and its reason goes through `notice_reason` first:
every URL in it is cut to its host, an ARN to its resource name, an IP address other than the
host becomes "an address", and the endpoint's own user name, password, path and query are
taken out wherever they still appear, and so are its path segments and query values that could
be secrets (not plain lower-case words such as `services`). The delivery log keeps each
attempt's full error: only administrators read it, through the webhooks API.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from ipaddress import ip_address
from urllib.parse import parse_qsl, unquote, urlsplit

from ..endpoints import Endpoint
from ..sending import ERROR_BYTES, clip

HIDDEN = "…"
ADDRESS = "an address"
# A path segment, query value, user name or password is taken out as a whole word when it
# could be a secret: 4 characters or more, and not a plain lower-case word ("hooks").
# A whole path or query is taken out at any length but 1 (`/`).
MIN_TOKEN_LENGTH = 4
_PLAIN_WORD = re.compile(r"[a-z]+")

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>(){}]+")
_ARN = re.compile(r"\barn:aws[A-Za-z0-9\-]*:[^\s'\"<>(),;]+")
_IPV6_LIKE = re.compile(r"(?<![\w:.])\[?(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f.]*(?:%[\w.\-]+)?\]?")
_IPV4_LIKE = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)")


def notice_host(endpoint: Endpoint) -> str:
    """The host an endpoint delivers to, lower-case, without port; for an EventBridge
    endpoint the bus's name (the resource name of its ARN, not the account or region)."""
    if endpoint.event_bus:
        return arn_resource_name(endpoint.event_bus_arn or "")
    return url_host(endpoint.url)


def url_host(url: str) -> str:
    """The host name of `url` ("" when it has none or cannot be read)."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def arn_resource_name(arn: str) -> str:
    """`orders` for `arn:aws:events:eu-west-1:123456789012:event-bus/orders`: what follows
    the resource type, without the partition, service, region or account."""
    resource = arn.split(":", 5)[-1]
    kind, slash, name = resource.partition("/")
    return name if slash else kind


def notice_reason(reason: str, endpoint: Endpoint) -> str:
    """`reason` naming at most the endpoint's host (see the module's docstring), then cut to
    1 KB: cut first, a secret could be left in part where its whole would have been found."""
    host = notice_host(endpoint)
    text = _URL.sub(lambda match: url_host(match.group()) or HIDDEN, reason)
    text = _ARN.sub(lambda match: arn_resource_name(match.group()), text)
    text = _IPV6_LIKE.sub(_other_address(host), text)
    text = _IPV4_LIKE.sub(_other_address(host), text)
    if not endpoint.event_bus:
        text = _without_url_parts(text, endpoint.url)
    return clip(text, ERROR_BYTES)


def _other_address(host: str) -> Callable[[re.Match[str]], str]:
    """Replaces a matched IP address by "an address" unless it is the host itself; a full
    stop after it (the end of a sentence) stays."""

    def replace(match: re.Match[str]) -> str:
        found = match.group().rstrip(".")
        try:
            address = ip_address(found.strip("[]").partition("%")[0])
        except ValueError:
            return match.group()
        told = found if _same_address(address, host) else ADDRESS
        return told + match.group()[len(found) :]

    return replace


def _same_address(address: object, host: str) -> bool:
    try:
        return address == ip_address(host)
    except ValueError:
        return False


def _without_url_parts(text: str, url: str) -> str:
    """`text` without the user name, password, path and query of `url` (and their parts)."""
    whole, tokens = _url_parts(url)
    for part in sorted(whole, key=len, reverse=True):
        text = text.replace(part, HIDDEN)
    for token in sorted(tokens, key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(token)}(?![A-Za-z0-9])", HIDDEN, text)
    return text


def _url_parts(url: str) -> tuple[set[str], set[str]]:
    """(the parts taken out wherever they appear, the tokens taken out as whole words), each
    as stored and percent-decoded."""
    try:
        split = urlsplit(url)
    except ValueError:
        return {url}, set()
    userinfo = split.netloc.rpartition("@")[0] if "@" in split.netloc else ""
    whole = {userinfo, split.path, split.query, split.fragment}
    if split.query:
        whole.add(f"{split.path}?{split.query}")
    tokens = {split.username or "", split.password or ""}
    tokens.update(split.path.split("/"))
    for name, value in parse_qsl(split.query, keep_blank_values=True):
        tokens.update((value, f"{name}={value}"))
    secrets = (t for t in tokens if len(t) >= MIN_TOKEN_LENGTH and not _PLAIN_WORD.fullmatch(t))
    return _both_spellings(part for part in whole if len(part) > 1), _both_spellings(secrets)


def _both_spellings(parts: Iterable[str]) -> set[str]:
    """Each part as stored and percent-decoded (a receiver's error may quote either)."""
    spelled: set[str] = set()
    for part in parts:
        spelled.update((part, unquote(part)))
    return spelled
