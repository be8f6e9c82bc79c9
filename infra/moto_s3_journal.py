"""Journals every object write the emulator's S3 acknowledges, before the answer leaves.

Every change to an object in moto 5.2.5 goes through `S3Backend.put_object` (a PUT, a browser
POST, a copy, a completed multipart upload) or `S3Backend.delete_object` (a DELETE, each key of a
multi-object delete), but moto sets an object's metadata (`Content-Type`...) after `put_object`
returns. So the wrapped backend methods only note which (bucket, key) a request touched, and
`ObjectJournal`, WSGI middleware around moto, journals the after-image of each touched key of a
registered bucket (every version of it, as `infra.durable_objects` records them) once moto has
answered and before that answer is handed on: the body files first, outside the lock, then one
journal line per stack under the emulator's write lock, then the group commit outside it
(docs/decisions.md, D127). Once a stop has closed a bucket's journal, a write to it is answered
503 before moto sees it: browsers upload straight to S3, so unlike the tables' writes (which
come through the API, stopped first) uploads can still arrive while the stack stops.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.s3.exceptions import MissingBucket
from moto.s3.models import S3Backend, s3_backends

from infra.journal import Change
from infra.moto_transactions import WRITE_LOCK
from infra.moto_version import require_pinned

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
_PARTITION = "aws"


class ObjectSink(Protocol):
    """Where a stack's object changes go: bodies kept first, the image and `append` under the
    write lock, `sync` after it."""

    def keep_bodies(self, versions: list[Any]) -> None: ...

    def image(self, versions: list[Any]) -> dict[str, Any] | None: ...

    def append(self, changes: list[Change]) -> int: ...

    def sync(self, sequence: int) -> None: ...


_registry: dict[str, tuple[ObjectSink, str]] = {}
# Buckets whose journal was closed by a stop: the emulator still serves while the stack stops,
# and a write it acknowledged there would be lost, so it is refused before moto applies it.
_closed: set[str] = set()
_registry_lock = threading.Lock()
_WRITES = frozenset({"PUT", "POST", "DELETE"})
_UNAVAILABLE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code>'
    b"<Message>The local stack is stopping; the write was not applied.</Message></Error>"
)
_request = threading.local()  # `touched`: the (bucket, key) pairs of the request on this thread


def register(sink: ObjectSink, buckets: Iterable[tuple[str, str]]) -> None:
    """Journals object writes to these (physical name, logical id) buckets into `sink`."""
    with _registry_lock:
        for name, logical_id in buckets:
            _registry[name] = (sink, logical_id)
            _closed.discard(name)


def unregister(sink: ObjectSink) -> None:
    """Stops journaling the sink's buckets, and refuses writes to them from now on."""
    with _registry_lock:
        for name in [n for n, (s, _) in _registry.items() if s is sink]:
            del _registry[name]
            _closed.add(name)


def _refused(environ: dict[str, Any]) -> bool:
    """A write to a bucket whose journal is closed (path-style: `/bucket/...`)."""
    bucket = str(environ.get("PATH_INFO", "")).lstrip("/").split("/", 1)[0]
    return environ.get("REQUEST_METHOD") in _WRITES and bucket in _closed


def backend() -> S3Backend:
    """moto's S3 of the emulator's one account."""
    return s3_backends[DEFAULT_ACCOUNT_ID][_PARTITION]


def versions(bucket_name: str, key_name: str) -> list[Any]:
    """Every version moto holds of one key (delete markers included), oldest first."""
    try:
        bucket = backend().get_bucket(bucket_name)
    except MissingBucket:
        return []
    return list(bucket.keys.getlist(key_name, []))


def _noting(write: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(write)
    def noted(self: S3Backend, *args: Any, **kwargs: Any) -> Any:
        touched: set[tuple[str, str]] | None = getattr(_request, "touched", None)
        if touched is not None:
            bucket_name = kwargs.get("bucket_name", args[0] if args else None)
            key_name = kwargs.get("key_name", args[1] if len(args) > 1 else None)
            touched.add((str(bucket_name), str(key_name)))
        return write(self, *args, **kwargs)

    noted.noting = True  # type: ignore[attr-defined]
    return noted


def install() -> None:
    """Wraps moto's two object writes (for this process); calling it again changes nothing."""
    require_pinned("moto_s3_journal")
    for name in ("put_object", "delete_object"):
        write = getattr(S3Backend, name)
        if not getattr(write, "noting", False):
            setattr(S3Backend, name, _noting(write))


def journal(touched: Iterable[tuple[str, str]]) -> bool:
    """Journals the after-images of the touched keys that a registered bucket holds; False
    when a stop closed a touched bucket's journal while the write was under way (moto applied
    it, nothing will keep it: it must not be acknowledged)."""
    touched = list(touched)
    with _registry_lock:
        kept = not any(bucket_name in _closed for bucket_name, _ in touched)
    owned = [
        (owner, bucket_name, key_name)
        for bucket_name, key_name in sorted(touched)
        if (owner := _registry.get(bucket_name)) is not None
    ]
    if not owned:
        return kept
    for (sink, _), bucket_name, key_name in owned:
        sink.keep_bodies(versions(bucket_name, key_name))
    with WRITE_LOCK:
        by_sink: dict[int, tuple[ObjectSink, list[Change]]] = {}
        for (sink, logical_id), bucket_name, key_name in owned:
            image = sink.image(versions(bucket_name, key_name))
            change: Change = (logical_id, {"key": key_name}, image)
            by_sink.setdefault(id(sink), (sink, []))[1].append(change)
        appended = [(sink, sink.append(changes)) for sink, changes in by_sink.values()]
    for sink, sequence in appended:
        sink.sync(sequence)
    return kept


class ObjectJournal:
    """Wraps moto's WSGI app: a request's answer leaves once what it changed is journaled."""

    def __init__(self, app: WsgiApp) -> None:
        self._app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if _refused(environ):
            return _refuse(start_response)
        answered: list[tuple[Any, ...]] = []

        def hold(*args: Any) -> Callable[[bytes], None]:
            answered.append(args)
            return _no_write

        touched: set[tuple[str, str]] = set()
        _request.touched = touched
        try:
            body = self._app(environ, hold)
        finally:  # a request that failed half-way journals what moto holds all the same
            _request.touched = None
            kept = journal(touched)
        if not kept:  # the stop closed the journal under it: not acknowledged
            return _refuse(start_response)
        for args in answered:
            start_response(*args)
        return body


def _refuse(start_response: Callable[..., Any]) -> list[bytes]:
    headers = [("Content-Type", "application/xml"), ("Retry-After", "1")]
    start_response("503 Service Unavailable", headers)
    return [_UNAVAILABLE]


def _no_write(data: bytes) -> None:
    """moto's app returns its body; it never writes through `start_response`'s callable."""
    raise RuntimeError("the emulator's S3 answers with a body, not with write()")
