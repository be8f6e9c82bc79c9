"""`EDGE=varnish make run`'s wiring: which edge, the day's s-maxage with a purge (the template's
parameter default would set 60), and `edgeUrl` in the owner-only bootstrap file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from infra import local_edge


def test_no_edge_unless_asked_and_a_wrong_one_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("EDGE", raising=False)
    assert local_edge.edge_from_environment(tmp_path, "127.0.0.1", 8000) is None
    monkeypatch.setenv("EDGE", "squid")
    with pytest.raises(local_edge.EdgeError, match="EDGE must be varnish"):
        local_edge.edge_from_environment(tmp_path, "127.0.0.1", 8000)
    monkeypatch.setenv("EDGE", "varnish")
    monkeypatch.setenv("EDGE_PORT", "7001")
    edge = local_edge.edge_from_environment(tmp_path, "0.0.0.0", 8000)  # noqa: S104
    assert edge is not None
    assert (edge.origin, edge.port) == ("http://127.0.0.1:8000", 7001)


def test_with_a_purge_the_cache_seconds_default_to_a_day_unless_the_user_set_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CONTENT_CACHE_SECONDS", raising=False)
    monkeypatch.delenv("EDGE_PURGE_URL", raising=False)
    local_edge.start_edge(None)
    assert "CONTENT_CACHE_SECONDS" not in os.environ
    monkeypatch.setenv("EDGE_PURGE_URL", "http://127.0.0.1:6081/")
    local_edge.start_edge(None)
    assert os.environ["CONTENT_CACHE_SECONDS"] == "86400"
    monkeypatch.setenv("CONTENT_CACHE_SECONDS", "30")
    local_edge.start_edge(None)
    assert os.environ["CONTENT_CACHE_SECONDS"] == "30"


def test_the_edge_url_is_recorded_in_the_bootstrap_file_and_dropped_without_an_edge(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bootstrap.json"
    path.write_text(json.dumps({"tokens": {"read": "cs_x"}}))
    path.chmod(0o600)
    local_edge.record_edge_url(tmp_path, "http://127.0.0.1:6081")
    assert json.loads(path.read_text()) == {
        "tokens": {"read": "cs_x"},
        "edgeUrl": "http://127.0.0.1:6081",
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    local_edge.record_edge_url(tmp_path, None)
    assert json.loads(path.read_text()) == {"tokens": {"read": "cs_x"}}
