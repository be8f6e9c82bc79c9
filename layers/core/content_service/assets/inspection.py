"""What an uploaded file really is, read from the head of its bytes, never from the claim.

One function, `inspect(head, size, claimed_type, settings)`, is the whole seam: it runs in the
API's process when `MEDIA_FUNCTION_NAME` is empty; otherwise (on AWS, and in the local stack
as there) in the python3.12 media function, which `assets/remote_inspection.py` invokes, because
Pillow has no wheel for the python3.11 layer (docs/decisions.md, D122, D125 and D130). The
type is sniffed with `puremagic` (pure Python, the file's magic numbers as data); an image's
size is read by Pillow from its header alone (`Image.open` with the one format the bytes
claim, no decode), turned as its EXIF orientation displays it, and held to the pixel cap.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

import puremagic

from content_service.settings import Settings

if TYPE_CHECKING:
    from PIL.Image import Exif

HEAD_BYTES = 1024 * 1024
"""How much of an upload processing reads: the magic numbers and an image's header (a JPEG's
EXIF segments come before its size)."""

PILLOW_FORMATS = {
    "image/jpeg": "JPEG",
    "image/png": "PNG",
    "image/gif": "GIF",
    "image/webp": "WEBP",
    "image/avif": "AVIF",
}
TEXT_TYPES = frozenset({"text/plain", "text/csv", "application/json"})
# Markup is never plain text, CSV or JSON: a browser would render it.
MARKUP_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "image/svg+xml", "application/xml", "text/xml"}
)
# EXIF orientations 5 to 8 turn the image a quarter: width and height swap on display.
_QUARTER_TURNS = frozenset({5, 6, 7, 8})
_ORIENTATION_TAG = 0x0112
_CONTROL = frozenset(range(32)) - {9, 10, 12, 13}


class Rejected(Exception):
    """The file cannot be an asset; `reason` is shown to the client (the asset's `reason`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Inspection:
    """An accepted file: its type (as read) and, for images, its size as displayed."""

    content_type: str
    width: int | None = None
    height: int | None = None


def inspect(head: bytes, size: int, claimed_type: str, settings: Settings) -> Inspection:
    """The file's type and size; raises `Rejected` for a type outside the allow-list, bytes of
    another type than the claimed one, or an image over the pixel cap or unreadable."""
    allowed = settings.assets_allowed_types
    if claimed_type not in allowed:
        raise Rejected(f"{claimed_type} is not an allowed type (allowed: {', '.join(allowed)})")
    sniffed = sniff(head)
    if claimed_type in TEXT_TYPES:
        _check_text(head, size, claimed_type, sniffed)
    elif claimed_type not in sniffed:
        raise Rejected(f"the file's bytes are {_described(sniffed)}, not {claimed_type}")
    if claimed_type not in PILLOW_FORMATS:
        return Inspection(claimed_type)
    width, height = _image_size(head, PILLOW_FORMATS[claimed_type], settings.assets_max_pixels)
    return Inspection(claimed_type, width, height)


def sniff(head: bytes) -> frozenset[str]:
    """Every media type the head's magic numbers fit (puremagic lists candidates: a ZIP also
    fits the Office formats built on it)."""
    if not head:
        return frozenset()
    try:
        matches = puremagic.magic_string(head)
    except puremagic.PureError:
        return frozenset()
    return frozenset(m.mime_type for m in matches if m.mime_type)


def _described(sniffed: frozenset[str]) -> str:
    if not sniffed:
        return "of no type this service recognises"
    shown = sorted(sniffed)
    return " or ".join(shown[:3]) + (" (or others)" if len(shown) > 3 else "")


def _check_text(head: bytes, size: int, claimed_type: str, sniffed: frozenset[str]) -> None:
    """Text is UTF-8 without control characters and without markup; JSON starts as JSON."""
    markup = sniffed & MARKUP_TYPES
    if markup:
        raise Rejected(f"the file's bytes are {_described(markup)}, not {claimed_type}")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        # The head may end inside a character when it is not the whole file.
        if len(head) == size or error.start < len(head) - 3:
            raise Rejected(f"the file is not UTF-8 text, so not {claimed_type}") from None
        text = head[: error.start].decode("utf-8")
    if any(ord(c) in _CONTROL for c in text):
        raise Rejected(f"the file holds binary data, so it is not {claimed_type}")
    if claimed_type == "application/json" and text.lstrip("\ufeff \t\r\n")[:1] not in ("{", "["):
        raise Rejected("the file does not start as a JSON object or array")


def _image_size(head: bytes, pillow_format: str, max_pixels: int) -> tuple[int, int]:
    """Width and height as displayed, from the header alone. Pillow is imported here: the
    python3.11 layer has none, and the API's other routes must load without it."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(head), formats=[pillow_format]) as image:
            width, height = image.size
            exif = image.info.get("exif")
    except Image.DecompressionBombError:
        raise Rejected(_too_many_pixels(None, max_pixels)) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as error:
        raise Rejected(
            f"the image's header could not be read in its first {HEAD_BYTES:,} bytes ({error})"
        ) from None
    if width * height > max_pixels:
        raise Rejected(_too_many_pixels((width, height), max_pixels))
    if _orientation(exif, Image.Exif()) in _QUARTER_TURNS:
        return height, width
    return width, height


def _too_many_pixels(size: tuple[int, int] | None, max_pixels: int) -> str:
    shown = f" ({size[0]} x {size[1]})" if size else ""
    return f"the image has more than {max_pixels:,} pixels{shown}, the most an asset may have"


def _orientation(exif: object, parsed: Exif) -> int | None:
    """EXIF's orientation tag from the raw segment the header carried (never decoding)."""
    if not isinstance(exif, bytes) or not exif:
        return None
    try:
        parsed.load(exif)
        value = parsed.get(_ORIENTATION_TAG)
    except (OSError, SyntaxError, ValueError, KeyError, IndexError):
        return None
    return value if isinstance(value, int) else None
