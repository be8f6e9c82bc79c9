"""Debian's nginx with `proxy_cache` in front of the local stack, playing CloudFront.

The configuration is generated into a directory of the caller's (a test's temporary
directory), with its own cache, temporary files, pid and logs, and nginx listens on a free
port of 127.0.0.1. It caches exactly what the API marks cacheable (nginx honours
`Cache-Control: s-maxage`, `private`, `no-store` and `stale-while-revalidate` itself: no
`proxy_cache_valid`), and serves a matching `If-None-Match` with 304 from the cache.

The cache key is the template's: `edge_keying` reads the CloudFront cache policies of
template.yaml (the headers and the query strings each keys on, per path) and the key is made of
the same parts (`$request_uri|$http_authorization`, plus `$http_accept` for GraphQL), so the
tests cache exactly as the deployed edge would. CloudFront does not key on `Vary`: its cache
policy is what keeps one token's answer from another. nginx 1.22 does honour `Vary` (it keeps
a variant per value of the named headers under a secondary key), so by default the two
protections are both on here; `honour_vary=False` (`proxy_ignore_headers Vary`) makes nginx
ignore `Vary` as CloudFront does, leaving the key alone to do it. Every answer says where it
came from in `X-Cache-Status` (nginx's `$upstream_cache_status`: HIT, MISS, EXPIRED, STALE,
UPDATING, REVALIDATED, BYPASS).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.ports import free_port, terminate, wait_for_port
from infra.running import Running
from infra.template_model import Template

SERVED_FROM_CACHE = frozenset({"HIT", "STALE", "UPDATING"})
"""Cache statuses of answers the origin did not make for this request."""


@dataclass(frozen=True)
class Keying:
    """What one CloudFront cache policy puts in the key besides the path."""

    headers: tuple[str, ...]
    all_query_strings: bool


def edge_keying(template: Template | None = None) -> dict[str, Keying]:
    """The template's cache keys: `"*"` for the default behaviour, else the path pattern."""
    template = template or Template.load()
    resources = template.resources
    config = resources["EdgeDistribution"].properties["DistributionConfig"]

    def keying(behaviour: dict[str, Any]) -> Keying:
        policy_id = behaviour["CachePolicyId"]["Ref"]
        parameters = resources[policy_id].properties["CachePolicyConfig"][
            "ParametersInCacheKeyAndForwardedToOrigin"
        ]
        headers = parameters["HeadersConfig"]
        query = parameters["QueryStringsConfig"]["QueryStringBehavior"]
        return Keying(
            tuple(headers.get("Headers", ())) if headers["HeaderBehavior"] == "whitelist" else (),
            query == "all",
        )

    found = {"*": keying(config["DefaultCacheBehavior"])}
    for behaviour in config.get("CacheBehaviors", ()):
        found[behaviour["PathPattern"]] = keying(behaviour)
    return found


def cache_key(keying: Keying) -> str:
    """nginx's `proxy_cache_key` for a policy: the path, the query string if the policy keys
    on it, and each header (`$http_authorization`...)."""
    parts = ["$request_uri" if keying.all_query_strings else "$uri"]
    parts += [f"$http_{name.lower().replace('-', '_')}" for name in keying.headers]
    return "|".join(parts)


def _location(match: str, keying: Keying, honour_vary: bool) -> str:
    ignore = "" if honour_vary else "proxy_ignore_headers Vary;"
    return f"""
        location {match} {{
            proxy_pass http://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_cache edge;
            proxy_cache_key "{cache_key(keying)}";
            proxy_cache_lock on;
            proxy_cache_revalidate on;
            proxy_cache_background_update on;
            {ignore}
            add_header X-Cache-Status $upstream_cache_status always;
        }}"""


def nginx_config(
    directory: Path,
    port: int,
    origin: str,
    keying: dict[str, Keying],
    *,
    honour_vary: bool = True,
) -> str:
    host_port = origin.removeprefix("http://").rstrip("/")
    locations = [_location("/", keying["*"], honour_vary)]
    locations += [
        _location(f"= {path}", k, honour_vary) for path, k in keying.items() if path != "*"
    ]
    user = "user root;" if os.geteuid() == 0 else ""
    return f"""
daemon off;
{user}
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    proxy_cache_path {directory}/cache levels=1:2 keys_zone=edge:10m max_size=256m
                     inactive=10m use_temp_path=off;
    upstream origin {{
        server {host_port};
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        {"".join(locations)}
    }}
}}
"""


def nginx_binary() -> str:
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(found).exists():
        raise RuntimeError(
            "nginx is not installed: `make test` installs it (apt-get install nginx)"
        )
    return found


class EdgeCache(Running):
    """nginx in front of `origin` (the local stack's base URL), until stopped."""

    def __init__(self, directory: Path, origin: str, *, honour_vary: bool = True) -> None:
        self.directory = directory
        self.origin = origin
        self.honour_vary = honour_vary
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        binary = nginx_binary()
        self.directory.mkdir(parents=True, exist_ok=True)
        for attempt in range(3):
            port = free_port()
            conf = self.directory / "nginx.conf"
            conf.write_text(
                nginx_config(
                    self.directory, port, self.origin, edge_keying(), honour_vary=self.honour_vary
                )
            )
            startup = self.directory / "startup.log"
            with startup.open("wb") as log:
                self.process = subprocess.Popen(
                    [binary, "-p", str(self.directory), "-c", str(conf), "-e", str(startup)],
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                )
            if wait_for_port(self.process, port, seconds=10, pause=0.02):
                self.url = f"http://127.0.0.1:{port}"
                return
            self.process.wait(10)
            errors = startup.read_text(errors="replace")
            if attempt == 2 or "Address already in use" not in errors:
                raise RuntimeError(f"nginx did not start: {errors[-2000:]}")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        terminate(process, 10)
