"""Apply ImageParams to an image with Pillow (D122, D125).

Only the five delivery formats are decoded, the pixel count is read from the header before any
decode (a bomb is refused, never expanded), EXIF orientation is applied, and the output is
encoded without EXIF, XMP or GPS: metadata never leaves through a transform.
"""

from __future__ import annotations

import io
from typing import BinaryIO

from PIL import Image, ImageOps, UnidentifiedImageError

from content_service.assets.image_params import ImageParams
from content_service.errors import BadRequest

PILLOW_FORMATS = {"jpg": "JPEG", "png": "PNG", "webp": "WEBP", "avif": "AVIF", "gif": "GIF"}
MEDIA_TYPES = {
    "JPEG": "image/jpeg",
    "PNG": "image/png",
    "WEBP": "image/webp",
    "AVIF": "image/avif",
    "GIF": "image/gif",
}
FOCUS_CENTRES = {
    "center": (0.5, 0.5),
    "top": (0.5, 0.0),
    "bottom": (0.5, 1.0),
    "left": (0.0, 0.5),
    "right": (1.0, 0.5),
    "top_left": (0.0, 0.0),
    "top_right": (1.0, 0.0),
    "bottom_left": (0.0, 1.0),
    "bottom_right": (1.0, 1.0),
}


_ORIENTATION = 0x0112
# EXIF orientations 5 to 8 turn the image a quarter: its width and height swap on display.
_QUARTER_TURNS = frozenset({5, 6, 7, 8})


def _too_large(max_pixels: int) -> BadRequest:
    return BadRequest(f"the image has more than {max_pixels} pixels and cannot be transformed")


def _open(source: BinaryIO, max_pixels: int) -> Image.Image:
    """The image with its header checked; pixels are not decoded yet."""
    try:
        image = Image.open(source, formats=list(PILLOW_FORMATS.values()))
    except UnidentifiedImageError as error:
        raise BadRequest("the asset is not an image in jpg, png, webp, avif or gif") from error
    except Image.DecompressionBombError as error:
        raise _too_large(max_pixels) from error
    if image.width * image.height > max_pixels:
        raise _too_large(max_pixels)
    return image


def _target(image: Image.Image, params: ImageParams) -> tuple[int, int]:
    """w and h, the missing one taken from the aspect ratio."""
    return _target_of(image.size, params)


def _target_of(size: tuple[int, int], params: ImageParams) -> tuple[int, int]:
    width, height = params.width, params.height
    if width is None and height is None:
        return size
    if width is None:
        width = max(1, round(size[0] * height / size[1]))  # type: ignore[operator]
    if height is None:
        height = max(1, round(size[1] * width / size[0]))
    return width, height


def _shrink_while_decoding(image: Image.Image, params: ImageParams) -> None:
    """A JPEG is decoded at 1/2, 1/4 or 1/8 scale when the output is at least that much
    smaller (libjpeg's DCT scaling, what the sharp-based services do), never below the size
    asked; not for `crop`, which keeps the original's scale."""
    if image.format != "JPEG" or params.fit == "crop":
        return
    if params.width is None and params.height is None:
        return
    turned = image.getexif().get(_ORIENTATION, 1) in _QUARTER_TURNS
    shown = (image.height, image.width) if turned else image.size
    width, height = _target_of(shown, params)
    image.draft(image.mode, (height, width) if turned else (width, height))


def _crop_box(
    size: tuple[int, int], box: tuple[int, int], focus: str | None
) -> tuple[int, int, int, int]:
    """The `box`-sized region of an image of `size` placed at the focus."""
    fx, fy = FOCUS_CENTRES[focus or "center"]
    left = round((size[0] - box[0]) * fx)
    top = round((size[1] - box[1]) * fy)
    return left, top, left + box[0], top + box[1]


def _resize(image: Image.Image, params: ImageParams) -> Image.Image:
    """Contentful's fit modes; no fit keeps the whole image within w and h."""
    width, height = _target(image, params)
    if params.fit == "scale":
        return image.resize((width, height))
    if params.fit in ("fill", "thumb"):
        centre = FOCUS_CENTRES[params.focus or "center"]
        return ImageOps.fit(image, (width, height), centering=centre)
    if params.fit == "crop":
        box = (min(width, image.width), min(height, image.height))
        return image.crop(_crop_box(image.size, box, params.focus))
    contained = ImageOps.contain(image, (width, height))
    if params.fit != "pad":
        return contained
    colour = "#" + params.background[4:] if params.background else "#ffffff"
    return ImageOps.pad(contained.convert("RGBA"), (width, height), color=colour)


def _encode(image: Image.Image, fmt: str, params: ImageParams) -> bytes:
    """The image in `fmt`, with no metadata carried over."""
    if fmt == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    clean = Image.new(image.mode, image.size)
    if image.mode == "P":
        clean.putpalette(image.getpalette() or [])
    clean.paste(image)
    options: dict[str, object] = {}
    if params.quality is not None and fmt in ("JPEG", "WEBP", "AVIF"):
        options["quality"] = params.quality
    if params.progressive:
        options["progressive"] = True
    if image.mode == "P" and "transparency" in image.info:
        options["transparency"] = image.info["transparency"]
    out = io.BytesIO()
    clean.save(out, format=fmt, **options)
    return out.getvalue()


def transform(
    source: BinaryIO, params: ImageParams, *, max_pixels: int = 50_000_000
) -> tuple[bytes, str]:
    """The transformed image's bytes and media type; the source's format unless `fm` says."""
    image = _open(source, max_pixels)
    fmt = PILLOW_FORMATS[params.format] if params.format else (image.format or "PNG")
    _shrink_while_decoding(image, params)
    oriented = ImageOps.exif_transpose(image)
    return _encode(_resize(oriented, params), fmt, params), MEDIA_TYPES[fmt]
