"""One image engine doing one transform of the `image_engines` suite, in a process of its own.

`python -m bench.image_transforms ENGINE TRANSFORM SOURCE OUTPUT RUNS` reads SOURCE into memory
(an S3 object's body, as the service will get it), runs the transform RUNS times after one
unmeasured run, writes the last output to OUTPUT and prints one JSON line: each run's wall and
CPU time, the resident set after the engine's import and its peak, and whether the pixel cap
refused the image. Only the named engine is imported, so the peak is that engine's alone. Both
engines do what the image API will do: read the header and refuse more than the pixel cap,
shrink while decoding (JPEG's DCT scaling), apply the EXIF orientation, resize (Lanczos), crop
for a thumbnail, and encode with no metadata. The peak is `VmHWM`, not `ru_maxrss`, which Linux
carries across execve from a larger parent (bench/api_memory.py). A third ENGINE, `service`, is
the assets API's own transform called bare (the `assets` suite compares it).
"""

from __future__ import annotations

import io
import json
import resource
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The image API's default pixel cap (decompression bombs).
MAX_PIXELS = 50_000_000
# libvips' largest coordinate: a width-only resize leaves the height free.
_UNBOUNDED = 10_000_000
# Pillow's `Image.thumbnail` default: decode at least twice the target, then resize.
_REDUCING_GAP = 2.0
# Pillow's resize: a box reduction first, then Lanczos over at least 3 x the target, which its
# documentation calls indistinguishable from resampling the whole image in most cases.
_RESIZE_GAP = 3.0
# AVIF encoder speed, the same for both: Pillow's `speed` (0-10) is libvips' 9 - `effort`.
_AVIF_SPEED = 6


@dataclass(frozen=True)
class Transform:
    """A transform of the image API: width, height (None: follows the aspect ratio; given,
    `fit=thumb`: cover the box, crop its centre), format, quality, progressive JPEG."""

    width: int
    height: int | None
    fm: str
    quality: int = 80
    progressive: bool = False


TRANSFORMS = {
    "webp_300": Transform(300, None, "webp"),
    "avif_300": Transform(300, None, "avif"),
    "jpg_progressive_300": Transform(300, None, "jpg", progressive=True),
    "thumb_200": Transform(200, 200, "jpg"),
    "jpg_4000": Transform(4000, None, "jpg"),
}


class TooManyPixels(Exception):
    """The image's header names more pixels than the cap: refused before decoding."""


def _refuse_over_cap(width: int, height: int) -> None:
    if width * height > MAX_PIXELS:
        raise TooManyPixels(f"{width}x{height} is over the cap of {MAX_PIXELS:,} pixels")


def _target(upright: tuple[int, int], t: Transform) -> tuple[int, int]:
    if t.height is not None:
        return t.width, t.height
    return t.width, max(1, round(upright[1] * t.width / upright[0]))


def pillow_transform(data: bytes, t: Transform) -> bytes:
    """Pillow: header, cap, draft (shrink on load), orientation, resize or fit, encode."""
    from PIL import Image, ImageOps

    try:
        opened = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as bomb:
        raise TooManyPixels(str(bomb)) from bomb
    with opened as image:
        _refuse_over_cap(*image.size)
        width, height = image.size
        turned = image.getexif().get(0x0112, 1) in (5, 6, 7, 8)
        upright = (height, width) if turned else (width, height)
        target = _target(upright, t)
        cover = max(target[0] / upright[0], target[1] / upright[1]) * _REDUCING_GAP
        image.draft("RGB", (round(width * cover), round(height * cover)))
        ImageOps.exif_transpose(image, in_place=True)
        rgb = image if image.mode == "RGB" else image.convert("RGB")
        if t.height is None:
            out = rgb.resize(target, Image.Resampling.LANCZOS, reducing_gap=_RESIZE_GAP)
        else:
            out = ImageOps.fit(rgb, target, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    options: dict[str, Any] = {"quality": t.quality}
    if t.fm == "avif":
        options["speed"] = _AVIF_SPEED
    if t.progressive:
        options["progressive"] = True
    out.save(buffer, format={"jpg": "JPEG", "webp": "WEBP", "avif": "AVIF"}[t.fm], **options)
    return buffer.getvalue()


def vips_transform(data: bytes, t: Transform) -> bytes:
    """pyvips: header, cap, then `thumbnail` (shrink on load, orientation, crop) and encode
    with `keep=none` (no metadata)."""
    import pyvips

    header = pyvips.Image.new_from_buffer(data, "", access="sequential")
    _refuse_over_cap(header.width, header.height)
    if t.height is None:
        image = pyvips.Image.thumbnail_buffer(data, t.width, height=_UNBOUNDED)
    else:
        image = pyvips.Image.thumbnail_buffer(data, t.width, height=t.height, crop="centre")
    options: dict[str, Any] = {"Q": t.quality, "keep": "none"}
    if t.fm == "avif":
        options["effort"] = 9 - _AVIF_SPEED
    if t.progressive:
        options["interlace"] = True
    encoded: bytes = image.write_to_buffer(f".{t.fm}", **options)
    return encoded


def _vips_engine() -> Callable[[bytes, Transform], bytes]:
    import pyvips

    # Every run must decode again: libvips would otherwise answer a repeat from its cache.
    pyvips.cache_set_max(0)
    return vips_transform


def _pillow_engine() -> Callable[[bytes, Transform], bytes]:
    from PIL import Image

    # Pillow's own guard, at the cap: over it a warning, made an error; over twice, an error.
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    warnings.simplefilter("error", Image.DecompressionBombWarning)
    return pillow_transform


def _service_engine() -> Callable[[bytes, Transform], bytes]:
    """The assets API's own transform (`content_service.assets.image_transform`), called bare:
    the `assets` suite sets it beside the Pillow floor and the file URL's service time."""
    from content_service.assets.image_params import parse_image_params
    from content_service.assets.image_transform import transform
    from content_service.errors import BadRequest

    def run(data: bytes, t: Transform) -> bytes:
        query = [("w", str(t.width)), ("fm", t.fm), ("q", str(t.quality))]
        if t.height is not None:
            query += [("h", str(t.height)), ("fit", "thumb")]
        if t.progressive:
            query.append(("fl", "progressive"))
        try:
            body, _ = transform(io.BytesIO(data), parse_image_params(query), max_pixels=MAX_PIXELS)
        except BadRequest as refused:  # over the cap, or not an image: refused either way
            raise TooManyPixels(str(refused)) from refused
        return body

    return run


ENGINES: dict[str, Callable[[], Callable[[bytes, Transform], bytes]]] = {
    "pillow": _pillow_engine,
    "pyvips": _vips_engine,
    "service": _service_engine,
}


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(engine: str, transform: str, source: Path, output: Path, runs: int) -> dict[str, Any]:
    """Runs the transform `runs` times after one unmeasured run; the last output is written."""
    run = ENGINES[engine]()
    after_import = _peak_mb()
    data = source.read_bytes()
    t = TRANSFORMS[transform]
    wall: list[float] = []
    cpu: list[float] = []
    encoded = b""
    try:
        for index in range(runs + 1):
            started, started_cpu = time.perf_counter(), _cpu_seconds()
            encoded = run(data, t)
            if index:
                wall.append((time.perf_counter() - started) * 1000)
                cpu.append((_cpu_seconds() - started_cpu) * 1000)
    except TooManyPixels as refused:
        return {"refused": str(refused), "after_import_mb": after_import, "peak_mb": _peak_mb()}
    output.write_bytes(encoded)
    return {
        "refused": "",
        "wall_ms": wall,
        "cpu_ms": cpu,
        "after_import_mb": after_import,
        "peak_mb": _peak_mb(),
    }


def main(argv: list[str]) -> int:
    engine, transform, source, output, runs = argv
    print(json.dumps(measure(engine, transform, Path(source), Path(output), int(runs))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
