"""The image transform parameters of a file URL: Contentful's Images API, so a site moving from
Contentful changes only the host.

`w`, `h` (1 to 4,000), `fit` (`pad`, `fill`, `scale`, `crop`, `thumb`), `f` (a focus area),
`fm` (`jpg`, `png`, `webp`, `avif`, `gif`), `q` (1 to 100), `fl=progressive` and `bg`
(`rgb:RRGGBB`). Parsing is strict: an unknown, repeated, empty or out-of-range parameter, and a
combination that means nothing (a `fit` without a size, `q` on a PNG), is refused with a
message naming it, so a typo never silently serves the original.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeVar

from content_service.errors import BadRequest

Fit = Literal["default", "pad", "fill", "scale", "crop", "thumb"]
Format = Literal["jpg", "png", "webp", "avif", "gif"]

MAX_SIDE = 4000
FITS: tuple[Fit, ...] = ("pad", "fill", "scale", "crop", "thumb")
FORMATS: tuple[Format, ...] = ("jpg", "png", "webp", "avif", "gif")
FOCUS_AREAS: tuple[str, ...] = (
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
# The fits that place the image in a box of their own, where a focus area says which part.
FOCUSED_FITS: frozenset[Fit] = frozenset({"pad", "fill", "crop", "thumb"})
# The formats whose encoder takes a quality.
LOSSY: frozenset[Format] = frozenset({"jpg", "webp", "avif"})
NOT_SUPPORTED = {
    "r": "rounded corners (r) are not supported",
    "fl=png8": "8-bit PNG (fl=png8) is not supported; use fm=png or fm=webp",
    "f=face": "face detection (f=face, f=faces) is not supported; use a focus area such as f=top",
}
KNOWN = ("w", "h", "fit", "f", "fm", "q", "fl", "bg")
T = TypeVar("T", bound=str)
_COLOUR = re.compile(r"rgb:([0-9a-fA-F]{6})")


class ImageParamsError(BadRequest):
    """A parameter the API refuses; the message names it and says what it takes."""


@dataclass(frozen=True)
class ImageParams:
    """A transform, normalised: the same image asked for in two spellings is one ETag."""

    source: Format
    width: int | None = None
    height: int | None = None
    fit: Fit = "default"
    focus: str = "center"
    format: Format = "jpg"
    quality: int | None = None
    progressive: bool = False
    background: tuple[int, int, int] | None = None

    def normalised(self) -> str:
        """The canonical query: every parameter in one order, defaults spelled out."""
        parts = [
            f"w={self.width or ''}",
            f"h={self.height or ''}",
            f"fit={self.fit}",
            f"f={self.focus}",
            f"fm={self.format}",
            f"q={self.quality or ''}",
            f"fl={'progressive' if self.progressive else ''}",
            "bg=" + ("{:02x}{:02x}{:02x}".format(*self.background) if self.background else ""),
        ]
        return "&".join(parts)


def parse(pairs: Iterable[tuple[str, str]], source: Format) -> ImageParams | None:
    """The transform a query asks for, or None when it has no parameter (the original)."""
    given = _single_values(pairs)
    if not given:
        return None
    output: Format = _choice(given, "fm", FORMATS) or source
    params = ImageParams(
        source=source,
        width=_side(given, "w"),
        height=_side(given, "h"),
        fit=_choice(given, "fit", FITS) or "default",
        focus=_focus(given),
        format=output,
        quality=_quality(given),
        progressive=_progressive(given),
        background=_background(given),
    )
    _check_combination(params, given)
    return params


def _single_values(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    given: dict[str, str] = {}
    for name, value in pairs:
        if name in NOT_SUPPORTED:
            raise ImageParamsError(NOT_SUPPORTED[name])
        if name not in KNOWN:
            raise ImageParamsError(
                f"unknown image parameter {name!r}; the parameters are {', '.join(KNOWN)}"
            )
        if name in given:
            raise ImageParamsError(f"image parameter {name!r} is given more than once")
        if value == "":
            raise ImageParamsError(f"image parameter {name!r} has no value")
        given[name] = value
    return given


def _integer(given: dict[str, str], name: str, low: int, high: int) -> int | None:
    raw = given.get(name)
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or not low <= int(raw) <= high:
        raise ImageParamsError(f"{name} must be an integer from {low} to {high}, not {raw!r}")
    return int(raw)


def _side(given: dict[str, str], name: str) -> int | None:
    return _integer(given, name, 1, MAX_SIDE)


def _quality(given: dict[str, str]) -> int | None:
    return _integer(given, "q", 1, 100)


def _choice(given: dict[str, str], name: str, allowed: tuple[T, ...]) -> T | None:
    raw = given.get(name)
    if raw is None:
        return None
    for option in allowed:
        if raw == option:
            return option
    raise ImageParamsError(f"{name} must be one of {', '.join(allowed)}, not {raw!r}")


def _focus(given: dict[str, str]) -> str:
    raw = given.get("f")
    if raw in ("face", "faces"):
        raise ImageParamsError(NOT_SUPPORTED["f=face"])
    return _choice(given, "f", FOCUS_AREAS) or "center"


def _progressive(given: dict[str, str]) -> bool:
    raw = given.get("fl")
    if raw == "png8":
        raise ImageParamsError(NOT_SUPPORTED["fl=png8"])
    return _choice(given, "fl", ("progressive",)) is not None


def _background(given: dict[str, str]) -> tuple[int, int, int] | None:
    raw = given.get("bg")
    if raw is None:
        return None
    match = _COLOUR.fullmatch(raw)
    if match is None:
        raise ImageParamsError(f"bg must be a colour as rgb:RRGGBB (rgb:ffffff), not {raw!r}")
    hex_colour = match.group(1)
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (0, 2, 4))
    return (red, green, blue)


def _check_combination(params: ImageParams, given: dict[str, str]) -> None:
    if params.fit != "default" and params.width is None and params.height is None:
        raise ImageParamsError(f"fit={params.fit} needs a size: give w, h or both")
    if "f" in given and params.fit not in FOCUSED_FITS:
        raise ImageParamsError("f applies only with fit=pad, fill, crop or thumb")
    if params.background is not None and params.fit != "pad":
        raise ImageParamsError("bg applies only with fit=pad")
    if params.quality is not None and params.format not in LOSSY:
        raise ImageParamsError(
            f"q applies only to jpg, webp and avif output, not {params.format} "
            "(fm names the output format; without it the original's)"
        )
    if params.progressive and params.format != "jpg":
        raise ImageParamsError("fl=progressive applies only to jpg output (add fm=jpg)")
