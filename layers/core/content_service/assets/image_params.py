"""Contentful Images API query parameters, parsed into one frozen value.

A site moving from Contentful changes only the host, so the names, values and refusals follow
Contentful's Images API. Every refusal is a BadRequest naming the parameter; `normalised()` is
the stable key for ETags and caches.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from content_service.errors import BadRequest

MAX_DIMENSION = 4000
# In the order the GraphQL enums (AssetFit, AssetFocus, AssetFormat) list them.
FITS = ("pad", "fill", "scale", "crop", "thumb")
FOCUS = (
    "center",
    "top",
    "right",
    "left",
    "bottom",
    "top_right",
    "top_left",
    "bottom_right",
    "bottom_left",
)
UNSUPPORTED_FOCUS = frozenset({"face", "faces"})
FORMATS = ("jpg", "png", "webp", "avif", "gif")
FOCUS_FITS = frozenset({"fill", "crop", "thumb"})
KNOWN = ("w", "h", "fit", "f", "fm", "q", "fl", "bg")
_BACKGROUND = re.compile(r"rgb:[0-9a-fA-F]{6}")


@dataclass(frozen=True)
class ImageParams:
    """What the caller asked for; None means "as the source is"."""

    width: int | None = None
    height: int | None = None
    fit: str | None = None
    focus: str | None = None
    format: str | None = None
    quality: int | None = None
    progressive: bool = False
    background: str | None = None

    def normalised(self) -> str:
        """The parameters in a fixed order, lower case, so equal requests share one key."""
        values = {
            "w": self.width,
            "h": self.height,
            "fit": self.fit,
            "f": self.focus,
            "fm": self.format,
            "q": self.quality,
            "fl": "progressive" if self.progressive else None,
            "bg": self.background,
        }
        return "&".join(f"{name}={value}" for name, value in values.items() if value is not None)


def _integer(name: str, raw: str, low: int, high: int) -> int:
    if not raw.isascii() or not raw.isdigit() or not low <= int(raw) <= high:
        raise BadRequest(f"image parameter {name!r} must be an integer from {low} to {high}")
    return int(raw)


def _choice(name: str, raw: str, allowed: Collection[str]) -> str:
    if raw not in allowed:
        raise BadRequest(f"image parameter {name!r} must be one of {', '.join(sorted(allowed))}")
    return raw


def _focus(raw: str) -> str:
    if raw in UNSUPPORTED_FOCUS:
        raise BadRequest(f"image parameter 'f': focus {raw!r} (face detection) is not supported")
    return _choice("f", raw, FOCUS)


def _background(raw: str) -> str:
    if not _BACKGROUND.fullmatch(raw):
        raise BadRequest("image parameter 'bg' must be rgb:RRGGBB (six hex digits)")
    return raw.lower()


def _single(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each parameter once, and only known ones."""
    found: dict[str, str] = {}
    for name, value in pairs:
        if name not in KNOWN:
            raise BadRequest(f"unknown image parameter {name!r}")
        if name in found:
            raise BadRequest(f"image parameter {name!r} is repeated")
        found[name] = value
    return found


def _check_combination(params: ImageParams) -> None:
    if params.focus is not None and params.fit not in FOCUS_FITS:
        raise BadRequest("image parameter 'f' needs fit=fill, fit=crop or fit=thumb")
    if params.background is not None and params.fit != "pad":
        raise BadRequest("image parameter 'bg' needs fit=pad")
    if params.progressive and params.format != "jpg":
        raise BadRequest("image parameter 'fl=progressive' needs fm=jpg")


def parse_image_params(pairs: Iterable[tuple[str, str]]) -> ImageParams:
    """The query's (name, value) pairs, in order and with repeats, as one ImageParams."""
    raw = _single(pairs)
    if "fl" in raw and raw["fl"] != "progressive":
        raise BadRequest("image parameter 'fl' must be progressive")
    params = ImageParams(
        width=_integer("w", raw["w"], 1, MAX_DIMENSION) if "w" in raw else None,
        height=_integer("h", raw["h"], 1, MAX_DIMENSION) if "h" in raw else None,
        fit=_choice("fit", raw["fit"], FITS) if "fit" in raw else None,
        focus=_focus(raw["f"]) if "f" in raw else None,
        format=_choice("fm", raw["fm"], FORMATS) if "fm" in raw else None,
        quality=_integer("q", raw["q"], 1, 100) if "q" in raw else None,
        progressive="fl" in raw,
        background=_background(raw["bg"]) if "bg" in raw else None,
    )
    _check_combination(params)
    return params
