"""The image engine of the assets API, chosen by measurement: Pillow against pyvips (D122).

The suite makes its own images with Pillow (nothing is downloaded): a 12 MP JPEG of gradients
and noise whose EXIF says "rotate 90°" and carries a GPS position, a 50 MP JPEG, and a PNG
whose header names 400 MP (a decompression bomb: 50 KB of file). Each engine runs each case in
a fresh process of its own (`bench/image_transforms.py`): the median of several runs after an
unmeasured one, its CPU time (what a Lambda function's fraction of a core pays; libvips spreads
a resize over its threads), and its peak resident set. Every output is decoded here and checked:
its format, its size (the EXIF orientation applied), no EXIF or XMP left, a progressive JPEG
where asked. Also reported: each engine's installed size, what a Lambda layer (250 MB unzipped
in all) must hold. The suite does not use the local stack.
"""

from __future__ import annotations

import io
import os
import statistics
import struct
import sys
import tempfile
import zlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

from bench.image_transforms import TRANSFORMS, Transform
from bench.lambda_process import last_json_line
from bench.report import Row
from infra.local_stack import LocalStack

BENCHMARK = "image_engines"
ROOT = Path(__file__).parents[1]
ENGINES = {"pillow": ("pillow",), "pyvips": ("pyvips", "pyvips-binary")}
NAMES = {"pillow": "Pillow", "pyvips": "pyvips"}
# The API function's MemorySize (template.yaml): what a 50 MP transform must fit in.
MEMORY_MB = 1024.0
PHOTO = (4000, 3000)  # 12 MP, stored landscape, shown portrait (EXIF orientation 6)
LARGE = (8640, 5760)  # 49.8 MP, under the 50 MP cap
BOMB = (20_000, 20_000)
_NOISE_TILE = 509
_XMP = (
    b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-'
    b'syntax-ns#"><rdf:Description xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" '
    b'photoshop:City="Amsterdam"/></rdf:RDF></x:xmpmeta>'
)
_FORMATS = {"jpg": "JPEG", "webp": "WEBP", "avif": "AVIF"}


@dataclass(frozen=True)
class Case:
    """One measured case: its source image, the transform, the runs, its expected size."""

    label: str
    source: str
    transform: str
    runs: int
    size: tuple[int, int]
    memory: bool = False


CASES = (
    Case("12 MP JPEG -> 300 px wide WebP q80", "photo", "webp_300", 5, (300, 400)),
    Case("12 MP JPEG -> 300 px wide AVIF q80", "photo", "avif_300", 5, (300, 400)),
    Case("12 MP JPEG -> 300 px progressive JPEG", "photo", "jpg_progressive_300", 5, (300, 400)),
    Case("12 MP JPEG -> fit=thumb 200x200 JPEG", "photo", "thumb_200", 5, (200, 200)),
    Case("50 MP JPEG -> 300 px wide WebP q80", "large", "webp_300", 3, (300, 200), True),
    Case("50 MP JPEG -> 4,000 px wide JPEG q80", "large", "jpg_4000", 3, (4000, 2667), True),
)


def _noise(size: tuple[int, int]) -> Image.Image:
    """Gaussian noise, one tile repeated: `effect_noise` over 50 MP takes seconds."""
    tile = Image.effect_noise((_NOISE_TILE, _NOISE_TILE), 20)
    out = Image.new("L", size)
    for x in range(0, size[0], _NOISE_TILE):
        for y in range(0, size[1], _NOISE_TILE):
            out.paste(tile, (x, y))
    return out


def make_photo(size: tuple[int, int], orientation: int) -> bytes:
    """A JPEG q90 of gradients and noise with EXIF (orientation, camera, GPS position) and
    XMP (a place name)."""
    noise = _noise(size)
    gradients = (
        Image.linear_gradient("L"),
        Image.radial_gradient("L"),
        Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90),
    )
    turns = (None, Image.Transpose.ROTATE_180, Image.Transpose.FLIP_LEFT_RIGHT)
    bands = [
        ImageChops.add(g.resize(size), noise if t is None else noise.transpose(t), 1.0, -128)
        for g, t in zip(gradients, turns, strict=True)
    ]
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "Bench camera"
    exif[0x8825] = {1: "N", 2: (52.0, 22.0, 3.5), 3: "E", 4: (4.0, 53.0, 1.2)}
    buffer = io.BytesIO()
    Image.merge("RGB", bands).save(buffer, format="JPEG", quality=90, exif=exif.tobytes(), xmp=_XMP)
    return buffer.getvalue()


def make_bomb(size: tuple[int, int]) -> bytes:
    """A 1-bit PNG of `size`, all black, streamed through zlib: tiny on disk, huge decoded."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    width, height = size
    row = b"\x00" * (1 + (width + 7) // 8)
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


def output_problems(data: bytes, t: Transform, size: tuple[int, int]) -> list[str]:
    """What is wrong with one output: format, size (the derived side within a pixel of its
    exact value), EXIF or XMP left in it, a progressive JPEG that is not."""
    problems: list[str] = []
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        if image.format != _FORMATS[t.fm]:
            problems.append(f"format {image.format}, not {_FORMATS[t.fm]}")
        if any(abs(a - b) > 1 for a, b in zip(image.size, size, strict=True)):
            problems.append(f"size {image.size}, not {size}")
        if len(image.getexif()) or "exif" in image.info:
            problems.append("EXIF left in the output")
        if "xmp" in image.info or "XML:com.adobe.xmp" in image.info:
            problems.append("XMP left in the output")
        if t.progressive and not image.info.get("progressive"):
            problems.append("not progressive")
    return problems


def installed_mb(*distributions: str) -> float:
    """The files the distributions installed (their RECORD), in MB."""
    total = 0
    for name in distributions:
        for file in metadata.distribution(name).files or []:
            path = Path(str(file.locate()))
            if path.is_file():
                total += path.stat().st_size
    return total / 1e6


def _measure(engine: str, transform: str, source: Path, output: Path, runs: int) -> Any:
    arguments = ["-m", "bench.image_transforms", engine, transform, str(source), str(output)]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return last_json_line([*arguments, str(runs)], environment, timeout=300)


def _case_rows(case: Case, sources: dict[str, Path], scratch: Path) -> list[Row]:
    results: dict[str, Any] = {}
    problems: list[str] = []
    for engine in ENGINES:
        output = scratch / f"{engine}-{case.transform}-{case.source}"
        results[engine] = _measure(engine, case.transform, sources[case.source], output, case.runs)
        if results[engine]["refused"]:
            problems.append(f"{engine}: refused: {results[engine]['refused']}")
            continue
        found = output_problems(output.read_bytes(), TRANSFORMS[case.transform], case.size)
        problems.extend(f"{engine}: {p}" for p in found)
    if problems:
        print(f"{case.label}: " + "; ".join(problems), file=sys.stderr)
    return _timing_rows(case, results, problems)


def _timing_rows(case: Case, results: dict[str, Any], problems: list[str]) -> list[Row]:
    rows: list[Row] = []
    medians: dict[tuple[str, str], float] = {}
    for engine, result in results.items():
        name = NAMES[engine]
        wall = statistics.median(result.get("wall_ms") or [0.0])
        cpu = statistics.median(result.get("cpu_ms") or [0.0])
        medians[engine, "wall"], medians[engine, "cpu"] = wall, cpu
        rows.append(Row(BENCHMARK, case.label, f"{name}, median of {case.runs}", wall, "ms"))
        rows.append(Row(BENCHMARK, case.label, f"  {name}, its CPU time", cpu, "ms"))
        if case.memory:
            peak = result["peak_mb"]
            rows.append(
                Row(
                    BENCHMARK,
                    case.label,
                    f"  {name}, peak RSS of its process",
                    peak,
                    "MB",
                    target=f"<= {MEMORY_MB:g} MB",
                    meets_target=peak <= MEMORY_MB,
                )
            )
    for kind in ("wall", "cpu"):
        ratio = medians["pyvips", kind] / max(medians["pillow", kind], 1e-9)
        rows.append(Row(BENCHMARK, case.label, f"pyvips / Pillow, {kind} time", ratio, "x"))
    rows.append(
        Row(
            BENCHMARK,
            case.label,
            "outputs wrong (format, size, EXIF or XMP left, progressive)",
            len(problems),
            "outputs",
            target="= 0",
            meets_target=not problems,
        )
    )
    return rows


def _bomb_rows(bomb: Path, scratch: Path) -> list[Row]:
    label = "400 MP PNG header, 50 MP cap"
    rows: list[Row] = []
    for engine in ENGINES:
        name = NAMES[engine]
        result = _measure(engine, "webp_300", bomb, scratch / f"{engine}-bomb", 1)
        refused = bool(result["refused"])
        rows.append(
            Row(
                BENCHMARK,
                label,
                f"{name}: refused from the header",
                int(refused),
                "refusals",
                target="= 1",
                meets_target=refused,
            )
        )
        growth = result["peak_mb"] - result["after_import_mb"]
        rows.append(Row(BENCHMARK, label, f"  {name}, peak RSS over its import", growth, "MB"))
    return rows


def _size_rows() -> list[Row]:
    label = "installed size (site-packages)"
    sizes = {engine: installed_mb(*dists) for engine, dists in ENGINES.items()}
    rows = [
        Row(BENCHMARK, label, " + ".join(f"{d} {metadata.version(d)}" for d in dists), mb, "MB")
        for (engine, dists), mb in zip(ENGINES.items(), sizes.values(), strict=True)
    ]
    rows.append(Row(BENCHMARK, label, "pyvips / Pillow", sizes["pyvips"] / sizes["pillow"], "x"))
    return rows


def run(stack: LocalStack | None = None) -> list[Row]:
    rows = _size_rows()
    with tempfile.TemporaryDirectory(prefix="image-engines-") as tmp:
        scratch = Path(tmp)
        sources = {
            "photo": scratch / "photo-12mp.jpg",
            "large": scratch / "photo-50mp.jpg",
            "bomb": scratch / "bomb-400mp.png",
        }
        sources["photo"].write_bytes(make_photo(PHOTO, orientation=6))
        sources["large"].write_bytes(make_photo(LARGE, orientation=1))
        sources["bomb"].write_bytes(make_bomb(BOMB))
        for case in CASES:
            rows.extend(_case_rows(case, sources, scratch))
        rows.extend(_bomb_rows(sources["bomb"], scratch))
    return rows
