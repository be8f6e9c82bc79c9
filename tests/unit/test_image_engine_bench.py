"""The `image_engines` bench's measuring process (`python -m bench.image_transforms`), run on a
tiny image so the suite cannot rot between runs of `make bench`: each engine's outputs decode
in the asked format and size, the EXIF orientation applied, with no EXIF or XMP left, and an
image over the 50 MP cap is refused from its header; the same of the service's own transform,
which the `assets` suite runs the same way. Like the other bench tests, it runs the
bench in a process of its own: tests and the bench import nothing from each other.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from infra import REPO_ROOT

# `service` is the assets API's own transform, which the `assets` suite sets beside the floor.
ENGINES = ("pillow", "pyvips", "service")
# Transform name: (format Pillow reads back, size of a 40x30 photo shown portrait, progressive).
TRANSFORMS = {
    "webp_300": ("WEBP", (300, 400), False),
    "avif_300": ("AVIF", (300, 400), False),
    "jpg_progressive_300": ("JPEG", (300, 400), True),
    "thumb_200": ("JPEG", (200, 200), False),
}
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'


def _photo(path: Path) -> Path:
    """40x30 stored, EXIF orientation 6 (shown 30x40), a GPS position and XMP."""
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x8825] = {1: "N", 2: (52.0, 22.0, 3.5)}
    Image.new("RGB", (40, 30), (200, 40, 40)).save(
        path, format="JPEG", exif=exif.tobytes(), xmp=XMP
    )
    return path


def _bomb(path: Path) -> Path:
    """A 1-bit PNG of 8,000 x 8,000 (64 MP): 8 KB on disk."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    raw = zlib.compress(b"\x00" * (8000 * 1001), 9)
    header = struct.pack(">IIBBBBB", 8000, 8000, 1, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")
    )
    return path


def _measure(engine: str, transform: str, source: Path, output: Path) -> dict[str, Any]:
    arguments = [engine, transform, str(source), str(output), "1"]
    result = subprocess.run(
        [sys.executable, "-m", "bench.image_transforms", *arguments],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    answer: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


@pytest.mark.parametrize("engine", ENGINES)
def test_each_output_decodes_in_its_format_and_size_with_no_metadata(
    engine: str, tmp_path: Path
) -> None:
    source = _photo(tmp_path / "photo.jpg")
    for transform, (fmt, size, progressive) in TRANSFORMS.items():
        output = tmp_path / f"{engine}-{transform}"
        answer = _measure(engine, transform, source, output)
        assert answer["refused"] == ""
        assert len(answer["wall_ms"]) == len(answer["cpu_ms"]) == 1
        assert answer["peak_mb"] >= answer["after_import_mb"] > 0
        with Image.open(io.BytesIO(output.read_bytes())) as image:
            image.load()
            assert (transform, image.format, image.size) == (transform, fmt, size)
            assert len(image.getexif()) == 0, (transform, dict(image.getexif()))
            assert "exif" not in image.info, transform
            assert "xmp" not in image.info, transform
            assert bool(image.info.get("progressive")) == progressive, transform


@pytest.mark.parametrize("engine", ENGINES)
def test_an_image_over_the_pixel_cap_is_refused_from_its_header(
    engine: str, tmp_path: Path
) -> None:
    output = tmp_path / "out"
    answer = _measure(engine, "webp_300", _bomb(tmp_path / "bomb.png"), output)
    assert answer["refused"]
    assert not output.exists()
    # Refused before decoding: 64 MP of pixels would be 64 MB even at one byte each.
    assert answer["peak_mb"] - answer["after_import_mb"] < 16
