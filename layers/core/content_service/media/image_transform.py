"""Image transforms with Pillow (D122): decode one of the five formats, refuse a decompression
bomb before decoding, turn the image upright from its EXIF orientation, resize per `fit` and
`f`, encode per `fm`, `q` and `fl`.

A derived image carries no metadata: no EXIF (so no GPS position), no XMP, no comment or text
chunk; only the ICC colour profile is kept, so colours stay right. Pillow writes some of what
the decoded image's `info` holds unless told otherwise (a GIF's comment, a PNG's ICC profile,
in some versions a WebP's EXIF), so the encoder is given a fresh `info` and exactly what to write.

Pillow is imported here only, and this module only when a transform is asked for: the API's
python3.11 layer has no Pillow (its wheels need a python3.12 runtime, D126).
"""

from __future__ import annotations

import io
import warnings
from typing import IO, Any

from PIL import Image, ImageOps, UnidentifiedImageError

from content_service.errors import ServiceError
from content_service.media.image_params import Format, ImageParams

PILLOW_FORMATS: dict[Format, str] = {
    "jpg": "JPEG",
    "png": "PNG",
    "webp": "WEBP",
    "avif": "AVIF",
    "gif": "GIF",
}
DECODERS = list(PILLOW_FORMATS.values())
ALPHA_FORMATS: frozenset[Format] = frozenset({"png", "webp", "avif", "gif"})
DEFAULT_QUALITY: dict[Format, int] = {"jpg": 80, "webp": 80, "avif": 60}
WHITE = (255, 255, 255)


class ImageNotTransformable(ServiceError):
    """The stored file cannot be transformed: too many pixels, or not a readable image."""

    status = 422
    code = "image_not_transformable"


def transform(source: IO[bytes], params: ImageParams, max_pixels: int) -> bytes:
    """The derived image's bytes, in `params.format`."""
    image = _decode(source, params, max_pixels)
    upright = ImageOps.exif_transpose(image)
    resized = _resize(_normalised_mode(upright), params)
    return _encode(resized, params, image.info.get("icc_profile"))


def _decode(source: IO[bytes], params: ImageParams, max_pixels: int) -> Image.Image:
    """The first frame, decoded only once its header's size is known to be under the cap."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(source, formats=DECODERS)
            width, height = image.size
            if width * height > max_pixels:
                raise ImageNotTransformable(
                    f"the image has {width} x {height} pixels, more than the "
                    f"{max_pixels:,} this service transforms; ask for the original instead"
                )
            if params.width or params.height:
                # A JPEG decodes at 1/2, 1/4 or 1/8 scale when the output is that much smaller.
                image.draft("RGB", _draft_size(image.size, params))
            image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as error:
        raise ImageNotTransformable(f"the file is not a readable image ({error})") from None
    except Image.DecompressionBombError as error:
        raise ImageNotTransformable(str(error)) from None
    return image


def _draft_size(size: tuple[int, int], params: ImageParams) -> tuple[int, int]:
    """A square at least as large as every side the resize needs, whichever way the EXIF
    orientation turns the image, so the draft never decodes below the output."""
    if params.fit == "crop":
        return size
    side = max(params.width or 0, params.height or 0)
    if params.width is None or params.height is None:
        side = side * max(size) // max(1, min(size)) + 1
    return (side, side)


def _normalised_mode(image: Image.Image) -> Image.Image:
    """RGB, or RGBA when the image has transparency (CMYK, 16-bit and palettes converted)."""
    if image.mode in ("RGB", "RGBA"):
        return image
    alpha = image.has_transparency_data
    return image.convert("RGBA" if alpha else "RGB")


def _target(image: Image.Image, params: ImageParams) -> tuple[int, int]:
    """The box asked for; a missing side follows the image's aspect ratio (for crop: its
    own side)."""
    width, height = image.size
    if params.fit == "crop":
        return (params.width or width, params.height or height)
    if params.width and params.height:
        return (params.width, params.height)
    if params.width:
        return (params.width, max(1, round(height * params.width / width)))
    assert params.height
    return (max(1, round(width * params.height / height)), params.height)


def _offset(free_x: int, free_y: int, focus: str) -> tuple[int, int]:
    """Where a box with this much room on each axis is placed for a focus area."""
    x = 0 if "left" in focus else free_x if "right" in focus else free_x // 2
    y = 0 if "top" in focus else free_y if "bottom" in focus else free_y // 2
    return (x, y)


def _resize(image: Image.Image, params: ImageParams) -> Image.Image:
    if params.width is None and params.height is None:
        return image
    box = _target(image, params)
    if params.fit == "scale":
        return image.resize(box, Image.Resampling.LANCZOS, reducing_gap=3.0)
    if params.fit in ("fill", "thumb"):
        return _fill(image, box, params.focus)
    if params.fit == "crop":
        return _crop(image, box, params.focus)
    inside = _inside(image, box)
    if params.fit == "pad":
        return _pad(inside, box, params)
    return inside


def _inside(image: Image.Image, box: tuple[int, int]) -> Image.Image:
    """The whole image resized to fit inside the box, its aspect ratio kept."""
    width, height = image.size
    ratio = min(box[0] / width, box[1] / height)
    size = (max(1, round(width * ratio)), max(1, round(height * ratio)))
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def _fill(image: Image.Image, box: tuple[int, int], focus: str) -> Image.Image:
    """Resized to cover the box, what overflows cut off around the focus area."""
    width, height = image.size
    ratio = max(box[0] / width, box[1] / height)
    region_w, region_h = min(width, box[0] / ratio), min(height, box[1] / ratio)
    left, top = _offset(round(width - region_w), round(height - region_h), focus)
    region = (left, top, left + region_w, top + region_h)
    return image.resize(box, Image.Resampling.LANCZOS, box=region, reducing_gap=3.0)


def _crop(image: Image.Image, box: tuple[int, int], focus: str) -> Image.Image:
    """A part of the original at its own scale, the box's size at most the image's."""
    width, height = image.size
    crop_w, crop_h = min(box[0], width), min(box[1], height)
    left, top = _offset(width - crop_w, height - crop_h, focus)
    return image.crop((left, top, left + crop_w, top + crop_h))


def _pad(image: Image.Image, box: tuple[int, int], params: ImageParams) -> Image.Image:
    """The fitted image on a canvas of the box's size: `bg`, else transparent where the output
    format has transparency and white where it has not."""
    if params.background is not None:
        colour: tuple[int, ...] = (*params.background, 255)
    elif params.format in ALPHA_FORMATS:
        colour = (0, 0, 0, 0)
    else:
        colour = (*WHITE, 255)
    canvas = Image.new("RGBA", box, colour)
    free_x, free_y = box[0] - image.width, box[1] - image.height
    canvas.alpha_composite(image.convert("RGBA"), _offset(free_x, free_y, params.focus))
    return canvas


def _encode(image: Image.Image, params: ImageParams, icc_profile: bytes | None) -> bytes:
    if params.format == "jpg" and image.mode == "RGBA":
        flat = Image.new("RGB", image.size, WHITE)
        flat.paste(image, mask=image.getchannel("A"))
        image = flat
    image.info = {}
    options: dict[str, Any] = {}
    if icc_profile and params.format != "gif":
        options["icc_profile"] = icc_profile
    if params.format in DEFAULT_QUALITY:
        options["quality"] = params.quality or DEFAULT_QUALITY[params.format]
    if params.progressive:
        options["progressive"] = True
    out = io.BytesIO()
    image.save(out, format=PILLOW_FORMATS[params.format], **options)
    return out.getvalue()
