"""`EDGE=varnish make run`: the local stack behind a Varnish edge that each change purges.

Varnish (`harness.varnish_edge`, the edge the purge tests use) is started in front of the API
before the stack, on `EDGE_PORT` (6081, Varnish's own default; 0 for a free port), and
`EDGE_PURGE_URL` names it, so the purge function the stack's stream poller runs purges it, and
read tokens' answers are cached for a day (`CONTENT_CACHE_SECONDS`' default with a purge).
The edge's URL is printed and written to `.local/bootstrap.json` as `edgeUrl`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from content_service.settings import PURGED_CACHE_SECONDS
from harness.varnish_edge import VarnishEdge

EDGES = ("", "varnish")
DEFAULT_EDGE_PORT = 6081


class EdgeError(ValueError):
    """`EDGE` or `EDGE_PORT` is wrong; the message says what to set."""


def edge_from_environment(local_dir: Path, host: str, port: int) -> VarnishEdge | None:
    """The edge `EDGE` asks for in front of the API at `host:port` (not started), or None;
    sets `EDGE_PURGE_URL` to it unless that is set already."""
    name = os.environ.get("EDGE", "").strip().lower()
    if name not in EDGES:
        raise EdgeError(f"EDGE must be varnish or empty, not {name!r}")
    if not name:
        return None
    if not port:
        raise EdgeError("EDGE=varnish needs the API on a fixed PORT, not 0")
    try:
        edge_port = int(os.environ.get("EDGE_PORT", str(DEFAULT_EDGE_PORT)))
    except ValueError:
        raise EdgeError("EDGE_PORT must be an integer") from None
    origin_host = "127.0.0.1" if host in ("0.0.0.0", "") else host  # noqa: S104
    return VarnishEdge(local_dir / "varnish", f"http://{origin_host}:{port}", port=edge_port)


def start_edge(edge: VarnishEdge | None) -> None:
    """Starts the edge, if any, and points the purge at it; then, with a purge configured and
    no `CONTENT_CACHE_SECONDS` of the user's, sets a day, since the local stack otherwise keeps
    60 s (`local_stack.with_local_cache_default`)."""
    if edge is not None:
        edge.start()
        if not os.environ.get("EDGE_PURGE_URL"):
            os.environ["EDGE_PURGE_URL"] = edge.purge_url
    if os.environ.get("EDGE_PURGE_URL") and not os.environ.get("CONTENT_CACHE_SECONDS"):
        os.environ["CONTENT_CACHE_SECONDS"] = str(PURGED_CACHE_SECONDS)


def record_edge_url(local_dir: Path, edge_url: str | None) -> None:
    """Sets `edgeUrl` in the bootstrap file the stack keeps (its tokens: owner-only, as the
    stack writes it), or drops it when this start has no edge."""
    path = local_dir / "bootstrap.json"
    if not path.exists():
        return
    document = json.loads(path.read_text(encoding="utf-8"))
    document.pop("edgeUrl", None)
    if edge_url:
        document["edgeUrl"] = edge_url
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(document, indent=2) + "\n")
    os.replace(temporary, path)


def problem(edge: VarnishEdge | None) -> str | None:
    """Why the stack must stop because of its edge (Varnish exited), or None."""
    process = edge.process if edge else None
    if process is not None and process.poll() is not None:
        return f"varnishd exited with status {process.returncode}"
    return None
