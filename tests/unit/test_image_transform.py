"""Image transforms with Pillow: formats, fit modes, focus, orientation, metadata, bombs."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image, ImageOps

from content_service.assets.image_params import parse_image_params
from content_service.assets.image_transform import transform
from content_service.errors import BadRequest


def image_bytes(size: tuple[int, int] = (400, 200), fmt: str = "PNG", **save: object) -> io.BytesIO:
    """Left half red, right half blue."""
    image = Image.new("RGB", size, "red")
    image.paste("blue", (size[0] // 2, 0, size[0], size[1]))
    out = io.BytesIO()
    image.save(out, format=fmt, **save)
    out.seek(0)
    return out


def run(source: io.BytesIO, **query: str) -> tuple[Image.Image, str]:
    data, media_type = transform(source, parse_image_params(list(query.items())))
    return Image.open(io.BytesIO(data)), media_type


@pytest.mark.parametrize(
    ("fm", "fmt", "media_type"),
    [
        ("jpg", "JPEG", "image/jpeg"),
        ("png", "PNG", "image/png"),
        ("webp", "WEBP", "image/webp"),
        ("avif", "AVIF", "image/avif"),
        ("gif", "GIF", "image/gif"),
    ],
)
def test_each_format_is_encoded(fm: str, fmt: str, media_type: str) -> None:
    out, got = run(image_bytes(), fm=fm, w="100")
    assert (out.format, out.size, got) == (fmt, (100, 50), media_type)


def test_default_format_is_the_sources() -> None:
    out, media_type = run(image_bytes(fmt="JPEG"), w="40")
    assert (out.format, media_type) == ("JPEG", "image/jpeg")


@pytest.mark.parametrize(
    ("fit", "size"),
    [
        (None, (100, 50)),
        ("pad", (100, 100)),
        ("fill", (100, 100)),
        ("scale", (100, 100)),
        ("crop", (100, 100)),
        ("thumb", (100, 100)),
    ],
)
def test_each_fit_mode_gives_its_size(fit: str | None, size: tuple[int, int]) -> None:
    query = {"w": "100", "h": "100"} | ({"fit": fit} if fit else {})
    out, _ = run(image_bytes(), **query)
    assert out.size == size


@pytest.mark.parametrize(("focus", "colour"), [("left", (255, 0, 0)), ("right", (0, 0, 255))])
@pytest.mark.parametrize("fit", ["fill", "crop", "thumb"])
def test_focus_keeps_that_side(fit: str, focus: str, colour: tuple[int, int, int]) -> None:
    out, _ = run(image_bytes(), w="100", h="100", fit=fit, f=focus)
    assert out.convert("RGB").getpixel((50, 50)) == colour


def test_exif_orientation_is_applied_and_no_metadata_leaves() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x8825] = {1: "N", 2: (1.0, 2.0, 3.0)}
    source = image_bytes(fmt="JPEG", exif=exif.tobytes())
    assert Image.open(source).getexif().get_ifd(0x8825)
    source.seek(0)
    out, _ = run(source, fm="jpg")
    assert out.size == (200, 400)
    assert "exif" not in out.info
    assert "xmp" not in out.info
    assert not out.getexif()


@pytest.mark.parametrize("orientation", [1, 6])
def test_a_large_jpeg_is_shrunk_while_decoding_never_below_the_size_asked(
    orientation: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1600x800 JPEG to 100 px wide is decoded at 1/8 scale (200x100), turned as its EXIF
    says first (orientation 6 shows it 800x1600, so 100 wide is 200 tall)."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    source = image_bytes((1600, 800), fmt="JPEG", exif=exif.tobytes())
    decoded: list[tuple[int, int]] = []
    real = ImageOps.exif_transpose

    def seen(image: Image.Image, **kwargs: object) -> Image.Image:
        decoded.append(image.size)
        return real(image, **kwargs)  # type: ignore[no-any-return, call-overload]

    monkeypatch.setattr(ImageOps, "exif_transpose", seen)
    out, _ = run(source, w="100")
    assert decoded == [(200, 100)]
    assert out.size == ((100, 50) if orientation == 1 else (100, 200))


def png_header(width: int, height: int) -> io.BytesIO:
    """A PNG that claims a size without the pixels for it."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )
    return io.BytesIO(data)


@pytest.mark.parametrize("side", [8000, 20000])
def test_a_bomb_header_is_refused_before_decoding(side: int) -> None:
    with pytest.raises(BadRequest) as refused:
        transform(png_header(side, side), parse_image_params([]))
    assert (
        refused.value.message == "the image has more than 50000000 pixels and cannot be transformed"
    )


def test_a_non_image_is_refused() -> None:
    with pytest.raises(BadRequest, match="not an image"):
        transform(io.BytesIO(b"<svg/>"), parse_image_params([]))
