"""Debian's Varnish with the xkey vmod in front of the local stack: an edge that purges by tag.

Like `harness.edge_cache` (nginx playing CloudFront), the VCL is generated into a directory of
the caller's, Varnish has its own work directory there (`-n`), and it listens on a free port of
127.0.0.1. The cache key is the template's (`edge_keying`: the URL, the Authorization header,
and Accept for GraphQL): Varnish's built-in VCL passes every request with an Authorization
header to the origin, so `vcl_recv` looks up every GET and HEAD itself and `vcl_hash` puts the
header in the key. What is kept, and for how long, is the origin's `Cache-Control` (s-maxage,
private, no-store, stale-while-revalidate as grace), as Varnish reads it; without one nothing
is kept (`default_ttl` 0, as CloudFront's DefaultTTL). Varnish honours `Vary` (a variant per
value of the named headers); `honour_vary=False` has it ignore `Vary` as CloudFront does (the
header still reaches the client), leaving the key alone to keep tokens apart.

Each answer's `Surrogate-Key` becomes its xkey tags. `PURGE` with an `xkey-purge` header
(tags separated by spaces) from 127.0.0.1 drops every object tagged with any of them and
answers `{"purged": N}`; from elsewhere it is refused with 403. Every answer says `X-Cache:
HIT` or `MISS`. `origin_fetches()` (varnishstat) and `purges()` (varnishlog) let tests count.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from harness.edge_cache import Keying, edge_keying
from harness.ports import free_port, terminate, wait_for_port
from infra.running import Running

PURGE_HEADER = "xkey-purge"


@dataclass(frozen=True)
class Purge:
    """One purge request the edge served: the tags it named and how many objects it dropped."""

    tags: tuple[str, ...]
    purged: int


def _path_regex(pattern: str) -> str:
    """A CloudFront path pattern (`*` any characters) as a VCL regex on `req.url`."""
    return "^" + "[^?]*".join(re.escape(part) for part in pattern.split("*")) + r"(\?|$)"


def _hash_parts(keying: Keying) -> str:
    url = "req.url" if keying.all_query_strings else 'regsub(req.url, "\\?.*$", "")'
    parts = [f"hash_data({url});"]
    parts += [f'hash_data("{name.lower()}:" + req.http.{name});' for name in keying.headers]
    return " ".join(parts)


def _vcl_hash(keying: dict[str, Keying]) -> str:
    branches = [
        f'if (req.url ~ "{_path_regex(path)}") {{ {_hash_parts(k)} }}'
        for path, k in keying.items()
        if path != "*"
    ]
    branches.append(f"{{ {_hash_parts(keying['*'])} }}")
    return "\n    else ".join(branches)


def varnish_vcl(origin: str, keying: dict[str, Keying], *, honour_vary: bool = True) -> str:
    host, _, port = origin.removeprefix("http://").rstrip("/").partition(":")
    ignore_vary = (
        ""
        if honour_vary
        else "if (beresp.http.Vary) { set beresp.http.x-origin-vary = beresp.http.Vary; "
        "unset beresp.http.Vary; }"
    )
    return f"""vcl 4.1;
import std;
import xkey;

backend origin {{
    .host = "{host}";
    .port = "{port or 80}";
    .first_byte_timeout = 60s;
    .between_bytes_timeout = 60s;
}}

acl purgers {{ "127.0.0.1"; }}

sub vcl_recv {{
    if (req.method == "PURGE") {{
        if (client.ip !~ purgers) {{ return (synth(403, "Forbidden")); }}
        if (!req.http.{PURGE_HEADER}) {{ return (synth(400, "No {PURGE_HEADER} header")); }}
        set req.http.x-purged = xkey.purge(req.http.{PURGE_HEADER});
        std.log("purged " + req.http.x-purged + " " + req.http.{PURGE_HEADER});
        return (synth(200, "Purged"));
    }}
    if (req.method != "GET" && req.method != "HEAD") {{ return (pass); }}
    return (hash);
}}

sub vcl_hash {{
    {_vcl_hash(keying)}
    return (lookup);
}}

sub vcl_backend_response {{
    if (beresp.http.Surrogate-Key) {{ set beresp.http.xkey = beresp.http.Surrogate-Key; }}
    {ignore_vary}
}}

sub vcl_deliver {{
    unset resp.http.xkey;
    if (resp.http.x-origin-vary) {{
        set resp.http.Vary = resp.http.x-origin-vary;
        unset resp.http.x-origin-vary;
    }}
    set resp.http.X-Cache = "MISS";
    if (obj.hits > 0) {{ set resp.http.X-Cache = "HIT"; }}
}}

sub vcl_synth {{
    if (req.method == "PURGE" && resp.status == 200) {{
        set resp.http.Content-Type = "application/json";
        synthetic({{"{{"purged": "}} + req.http.x-purged + {{"}}"}});
        return (deliver);
    }}
}}
"""


def varnish_binary() -> str:
    found = shutil.which("varnishd") or "/usr/sbin/varnishd"
    if not Path(found).exists():
        raise RuntimeError(
            "varnishd is not installed: `make test` installs it (apt-get install varnish "
            "varnish-modules)"
        )
    return found


class VarnishEdge(Running):
    """Varnish in front of `origin` (the local stack's base URL), until stopped; on `port`, or
    on a free one when 0; ignoring `Vary`, as CloudFront does, when `honour_vary` is False."""

    def __init__(
        self, directory: Path, origin: str, *, port: int = 0, honour_vary: bool = True
    ) -> None:
        self.directory = directory
        self.origin = origin
        self.port = port
        self.honour_vary = honour_vary
        self.workdir = directory / "varnish"
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    @property
    def purge_url(self) -> str:
        return self.url + "/"

    def start(self) -> None:
        binary = varnish_binary()
        self.directory.mkdir(parents=True, exist_ok=True)
        vcl = self.directory / "edge.vcl"
        vcl.write_text(varnish_vcl(self.origin, edge_keying(), honour_vary=self.honour_vary))
        for attempt in range(3):
            port = self.port or free_port()
            startup = self.directory / "startup.log"
            with startup.open("wb") as log:
                self.process = subprocess.Popen(
                    [binary, *self._arguments(vcl, port)],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            if wait_for_port(self.process, port, seconds=30, pause=0.05):
                self.url = f"http://127.0.0.1:{port}"
                return
            self.process.wait(10)
            errors = startup.read_text(errors="replace")
            if attempt == 2 or self.port or "Address already in use" not in errors:
                raise RuntimeError(f"varnishd did not start: {errors[-2000:]}")

    def _arguments(self, vcl: Path, port: int) -> list[str]:
        """In the foreground, no jail (no user switch: the work directory is the caller's), no
        admin port; nothing kept without a Cache-Control, the origin's bytes untouched, and
        each request's counters published when it ends (for `origin_fetches`)."""
        return [
            *("-F", "-j", "none", "-T", "none", "-n", str(self.workdir), "-f", str(vcl)),
            *("-a", f"127.0.0.1:{port}", "-s", "malloc,256m"),
            *("-p", "default_ttl=0", "-p", "default_grace=0", "-p", "default_keep=0"),
            *("-p", "http_gzip_support=off", "-p", "thread_stats_rate=1"),
        ]

    def counters(self) -> dict[str, int]:
        """Varnish's counters now (varnishstat), by name (`MAIN.backend_req`...)."""
        found = subprocess.run(
            ["varnishstat", "-n", str(self.workdir), "-1", "-j"],
            capture_output=True,
            check=True,
            timeout=30,
        )
        counters = json.loads(found.stdout).get("counters", {})
        return {name: int(c["value"]) for name, c in counters.items() if "value" in c}

    def origin_fetches(self) -> int:
        """Requests Varnish has sent to the origin so far: misses and passes."""
        return self.counters()["MAIN.backend_req"]

    def purges(self) -> list[Purge]:
        """Every purge request served so far, oldest first (varnishlog's memory of them)."""
        found = subprocess.run(
            ["varnishlog", "-n", str(self.workdir), "-d", "-i", "VCL_Log"],
            capture_output=True,
            check=True,
            timeout=30,
            text=True,
        )
        served = []
        for line in found.stdout.splitlines():
            words = line.split()
            if "VCL_Log" in words:
                logged = words[words.index("VCL_Log") + 1 :]
                if len(logged) >= 2 and logged[0] == "purged":
                    served.append(Purge(tuple(logged[2:]), int(logged[1])))
        return served

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        terminate(process, 20)
