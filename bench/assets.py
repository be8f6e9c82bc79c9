"""Assets: an image transform through the file URL against bare Pillow, a 50 MP transform in
the media function's memory, and a 100 MB upload that never passes through the API.

Every asset is made through the API as a client would: a presigned POST
(`POST /api/v1/assets/uploads`), the bytes posted to the emulator's S3 with that form,
`POST /api/v1/assets {uploadId}`, then published; the images are the `image_engines` suite's
(a 12 MP JPEG whose EXIF turns it, a 50 MP JPEG), made here, nothing downloaded.

1. `?w=300&fm=webp&q=80` of the 12 MP JPEG, in interleaved rounds (the order shuffled in each):
   the floor, Pillow doing the decode, resize and encode in a bare script
   (`bench/image_transforms.py`'s Pillow path, a fresh process per round); the service's own
   transform function in the same kind of script; the file URL through the API's HTTP route
   (`GET /files/...`); the media function's handler through Mangum with the
   `events/media-get-file-webp.json` shape. The service time of the last two is the request's
   time minus the time the storage (DynamoDB and S3, moto) took to answer, as the recording
   proxy measured each call (S3 answers cannot be replayed: the proxy replays DynamoDB's).
   Target: the file URL's service time within 1.3 times the floor.
2. The same transform of the 50 MP JPEG by the media handler in a fresh process
   (`bench/media_process.py`): its peak resident set against the MediaFunction's MemorySize in
   template.yaml.
3. The API in a process of its own (one uvicorn worker, as `make run` starts it): its resident
   set before and after a 100 MB upload made the same way, the form posted straight to the
   emulator; target growth under 10 MB; a 1 KB upload's growth beside it.
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import string
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from bench.image_engines import LARGE, PHOTO, make_photo
from bench.lambda_process import function_environment, last_json_line
from bench.media_process import LambdaContext, answer_summary, load_handler
from bench.report import Row
from infra.api_workers import WorkerProcesses
from infra.local_stack import LocalStack, default_app_factory
from infra.request_recorder import RecordedCall, RequestRecorder

BENCHMARK = "assets"
ROOT = Path(__file__).parents[1]
EVENT = ROOT / "events" / "media-get-file-webp.json"
QUERY = (("w", "300"), ("fm", "webp"), ("q", "80"))
ROUNDS = 9
RATIO_TARGET = 1.3
UPLOAD_BYTES = 100 * 1024 * 1024
GROWTH_TARGET_MB = 10.0
_TRANSFORM = "12 MP JPEG -> 300 px wide WebP q80"


def _client(base_url: str, token: str) -> httpx.Client:
    # A connection per request, as content_lists: kept-alive local sockets add delayed-ACK stalls.
    return httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}", "Connection": "close"},
        timeout=300,
    )


def _token() -> str:
    from content_service import runtime
    from content_service.identity.tokens import TokenSpec, create_token
    from content_service.identity.workspaces import create_workspace

    slug = f"bench-assets-{uuid.uuid4().hex[:8]}"
    workspace = create_workspace(runtime.settings(), slug, slug)
    token, _ = create_token(TokenSpec(name="bench", workspace_id=workspace.id, access="full"))
    return token


def upload(client: httpx.Client, name: str, content_type: str, body: bytes) -> dict[str, Any]:
    """The three steps of docs/assets.md, "Uploading": the asset, a draft, its file ready."""
    presigned = client.post(
        "/api/v1/assets/uploads",
        json={"fileName": name, "contentType": content_type, "size": len(body)},
    )
    presigned.raise_for_status()
    form = presigned.json()
    files = {"file": (name, body, content_type)}
    httpx.post(form["url"], data=form["fields"], files=files, timeout=300).raise_for_status()
    completed = client.post("/api/v1/assets", json={"uploadId": form["uploadId"]})
    completed.raise_for_status()
    asset: dict[str, Any] = completed.json()
    if asset.get("state") != "ready":
        raise RuntimeError(f"{name}: the upload was refused: {asset.get('reason')}")
    return asset


def published_url(client: httpx.Client, asset: dict[str, Any]) -> str:
    published = client.post(f"/api/v1/assets/{asset['id']}/publish")
    published.raise_for_status()
    url: str = published.json()["url"]
    return url


def media_event(url: str) -> dict[str, Any]:
    """The sample event of events/ for `url` (`/files/<ws>/<asset>/<file>/photo.jpg`), QUERY."""
    _, _, workspace, asset, file, _ = url.split("/")
    text = string.Template(EVENT.read_text()).safe_substitute(
        WORKSPACE=workspace, ASSET=asset, FILE=file
    )
    event: dict[str, Any] = json.loads(text)
    if event["rawPath"] != url:
        raise RuntimeError(f"the sample event names {event['rawPath']}, not {url}")
    event["rawQueryString"] = urlencode(QUERY)
    event["queryStringParameters"] = dict(QUERY)
    return event


def _service_ms(recorder: RequestRecorder, request: Callable[[], None]) -> tuple[float, float]:
    """The request's milliseconds less the storage's, and the storage's (proxy-measured)."""
    calls: list[RecordedCall]
    with recorder.capture() as calls:
        started = time.perf_counter()
        request()
        elapsed = time.perf_counter() - started
    storage = sum(c.elapsed for c in calls)
    return (elapsed - storage) * 1000, storage * 1000


def _bare_ms(engine: str, source: Path, scratch: Path) -> float:
    """One measured run (after an unmeasured one) of `engine` in a fresh process."""
    arguments = ["-m", "bench.image_transforms", engine, "webp_300", str(source)]
    output = scratch / f"{engine}.webp"
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    answer = last_json_line([*arguments, str(output), "1"], environment, timeout=300)
    if answer["refused"]:
        raise RuntimeError(f"{engine} refused the photo: {answer['refused']}")
    ms: float = answer["wall_ms"][0]
    return ms


def _check_webp(media_type: str, size: int) -> None:
    if media_type != "image/webp" or size == 0:
        raise RuntimeError(f"the transform answered {media_type} of {size} bytes")


def _transform_samples(
    stack: LocalStack, client: httpx.Client, url: str, photo: Path, scratch: Path
) -> dict[str, list[float]]:
    """ROUNDS interleaved rounds of the four ways, each round in a shuffled order."""
    assert stack.recorder is not None
    recorder = stack.recorder
    handler = load_handler()
    event = media_event(url)

    def http() -> None:
        answer = client.get(url, params=QUERY)
        answer.raise_for_status()
        _check_webp(answer.headers["content-type"], len(answer.content))

    def lambda_handler() -> None:
        summary = answer_summary(handler.handler(event, LambdaContext()))
        _check_webp(summary["media_type"], summary["bytes"])

    # Unmeasured: the first of each pays its imports and connections.
    http()
    lambda_handler()

    def served(way: str, request: Callable[[], None]) -> Callable[[], dict[str, float]]:
        def measure() -> dict[str, float]:
            service, storage = _service_ms(recorder, request)
            return {way: service, f"{way}_storage": storage}

        return measure

    ways: dict[str, Callable[[], dict[str, float]]] = {
        "floor": lambda: {"floor": _bare_ms("pillow", photo, scratch)},
        "bare": lambda: {"bare": _bare_ms("service", photo, scratch)},
        "http": served("http", http),
        "handler": served("handler", lambda_handler),
    }
    samples: dict[str, list[float]] = {}
    for _ in range(ROUNDS):
        for way in random.sample(list(ways), len(ways)):
            for name, value in ways[way]().items():
                samples.setdefault(name, []).append(value)
    return samples


def _transform_rows(samples: dict[str, list[float]]) -> list[Row]:
    median = {way: statistics.median(values) for way, values in samples.items()}
    floor = median["floor"]
    n = f"median of {ROUNDS}"

    def row(metric: str, value: float, unit: str = "ms", **target: Any) -> Row:
        return Row(BENCHMARK, _TRANSFORM, metric, value, unit, **target)

    return [
        row(f"floor: Pillow in a bare script (image_transforms), {n}", floor),
        row(f"the service's transform in a bare script, {n}", median["bare"]),
        row("  / floor", median["bare"] / floor, "x"),
        row(f"file URL (API, HTTP), service time, {n}", median["http"]),
        row("  storage answering (subtracted)", median["http_storage"]),
        row(
            "  / floor",
            median["http"] / floor,
            "x",
            target=f"<= {RATIO_TARGET}",
            meets_target=median["http"] <= RATIO_TARGET * floor,
        ),
        row(f"media handler (Mangum), service time, {n}", median["handler"]),
        row("  storage answering (subtracted)", median["handler_storage"]),
        row("  / floor", median["handler"] / floor, "x"),
    ]


def _memory_rows(stack: LocalStack, url: str, scratch: Path) -> list[Row]:
    event_file = scratch / "event-50mp.json"
    event_file.write_text(json.dumps(media_event(url)))
    figures = last_json_line(
        ["-m", "bench.media_process", str(event_file)],
        {**function_environment(stack), "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    _check_webp(figures["media_type"], figures["bytes"])
    memory = float(stack.template.functions["MediaFunction"].memory_size)
    case = "50 MP JPEG -> 300 px wide WebP q80, media handler"
    return [
        Row(BENCHMARK, case, "MediaFunction MemorySize (template.yaml)", memory, "MB"),
        Row(
            BENCHMARK, case, "peak RSS after the handler's import", figures["after_import_mb"], "MB"
        ),
        Row(
            BENCHMARK,
            case,
            "peak RSS of the process (VmHWM)",
            figures["peak_mb"],
            "MB",
            target=f"< {memory:g}",
            meets_target=figures["peak_mb"] < memory,
        ),
    ]


def _status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def _api_process(stack: LocalStack) -> tuple[WorkerProcesses, socket.socket, str]:
    """One API worker process on a port of its own, its S3 presigning for the emulator itself."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    environment = {
        **os.environ,
        **(stack.options.user_env or {}),
        **stack.environment,
        "AWS_ENDPOINT_URL": stack.emulator.endpoint_url,
    }
    server = WorkerProcesses(1, listener, environment, default_app_factory)
    server.start()
    return server, listener, f"http://127.0.0.1:{listener.getsockname()[1]}"


def _upload_growth(pid: int, client: httpx.Client, size: int) -> tuple[float, float, float]:
    """RSS before, RSS after, and peak RSS growth of the API process across one upload."""
    before, peak_before = _status_mb(pid, "VmRSS"), _status_mb(pid, "VmHWM")
    upload(
        client,
        f"upload-{size}.txt",
        "text/plain",
        b"lorem ipsum " * (size // 12) + b"x" * (size % 12),
    )
    return before, _status_mb(pid, "VmRSS"), _status_mb(pid, "VmHWM") - peak_before


def _upload_rows(stack: LocalStack, token: str) -> list[Row]:
    server, listener, base_url = _api_process(stack)
    try:
        pid = server.pids[0]
        with _client(base_url, token) as client:
            _upload_growth(pid, client, 1024)  # unmeasured: the routes' first use
            small = _upload_growth(pid, client, 1024)
            large = _upload_growth(pid, client, UPLOAD_BYTES)
    finally:
        server.stop()
        listener.close()
    case = "100 MB upload, API in its own process"
    growth = large[1] - large[0]
    return [
        Row(BENCHMARK, case, "API RSS before", large[0], "MB"),
        Row(BENCHMARK, case, "API RSS after", large[1], "MB"),
        Row(
            BENCHMARK,
            case,
            "API RSS growth",
            growth,
            "MB",
            target=f"< {GROWTH_TARGET_MB:g}",
            meets_target=growth < GROWTH_TARGET_MB,
        ),
        Row(BENCHMARK, case, "  API peak RSS (VmHWM) growth", large[2], "MB"),
        Row(BENCHMARK, case, "  1 KB upload, API RSS growth", small[1] - small[0], "MB"),
    ]


def run(stack: LocalStack) -> list[Row]:
    assert stack.base_url is not None
    token = _token()
    rows: list[Row] = []
    with (
        tempfile.TemporaryDirectory(prefix="bench-assets-") as tmp,
        _client(stack.base_url, token) as client,
    ):
        scratch = Path(tmp)
        photo = scratch / "photo.jpg"
        photo.write_bytes(make_photo(PHOTO, orientation=6))
        url = published_url(client, upload(client, "photo.jpg", "image/jpeg", photo.read_bytes()))
        print("  assets: transform rounds", file=sys.stderr, flush=True)
        rows += _transform_rows(_transform_samples(stack, client, url, photo, scratch))
        large = make_photo(LARGE, orientation=1)
        url = published_url(client, upload(client, "photo.jpg", "image/jpeg", large))
        del large
        print("  assets: 50 MP transform", file=sys.stderr, flush=True)
        rows += _memory_rows(stack, url, scratch)
    print("  assets: 100 MB upload", file=sys.stderr, flush=True)
    rows += _upload_rows(stack, token)
    return rows
