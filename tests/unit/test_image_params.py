"""The file URL's image parameters: Contentful's Images API names and ranges, everything else
refused with a message that names what is wrong (docs/assets.md, "Delivery")."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from content_service.media.image_params import ImageParams, ImageParamsError, parse


def parsed(query: str, source: str = "jpg") -> ImageParams | None:
    return parse(parse_qsl(query, keep_blank_values=True), source)  # type: ignore[arg-type]


def test_no_parameter_is_the_original() -> None:
    assert parsed("") is None


def test_every_parameter_read_with_contentfuls_names() -> None:
    params = parsed("w=300&h=200&fit=pad&f=top_left&fm=jpg&q=55&fl=progressive&bg=rgb:FF8000")
    assert params == ImageParams(
        source="jpg",
        width=300,
        height=200,
        fit="pad",
        focus="top_left",
        format="jpg",
        quality=55,
        progressive=True,
        background=(255, 128, 0),
    )


def test_the_output_format_defaults_to_the_originals() -> None:
    params = parsed("w=10", source="png")
    assert params is not None
    assert params.format == "png"


def test_two_spellings_of_one_transform_normalise_alike() -> None:
    first = parsed("w=300&fm=webp&fit=fill&f=center")
    second = parsed("fit=fill&fm=webp&w=300")
    assert first is not None
    assert second is not None
    assert first.normalised() == second.normalised()
    third = parsed("fit=fill&fm=webp&w=301")
    assert third is not None
    assert third.normalised() != first.normalised()


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("w=0", "w must be an integer from 1 to 4000, not '0'"),
        ("h=4001", "h must be an integer from 1 to 4000, not '4001'"),
        ("w=12.5", "w must be an integer from 1 to 4000"),
        ("w=-3", "w must be an integer from 1 to 4000"),
        ("w=%D9%A3", "w must be an integer from 1 to 4000"),
        ("q=0&fm=jpg", "q must be an integer from 1 to 100"),
        ("q=101&fm=webp", "q must be an integer from 1 to 100"),
        ("w=10&w=20", "image parameter 'w' is given more than once"),
        ("w=", "image parameter 'w' has no value"),
        ("width=10", "unknown image parameter 'width'"),
        ("W=10", "unknown image parameter 'W'"),
        ("r=20", "rounded corners (r) are not supported"),
        ("fm=tiff", "fm must be one of jpg, png, webp, avif, gif, not 'tiff'"),
        ("fm=JPG", "fm must be one of jpg, png, webp, avif, gif, not 'JPG'"),
        ("w=10&fit=cover", "fit must be one of pad, fill, scale, crop, thumb, not 'cover'"),
        ("fit=fill", "fit=fill needs a size: give w, h or both"),
        ("w=10&h=10&fit=thumb&f=face", "face detection (f=face, f=faces) is not supported"),
        ("w=10&h=10&fit=fill&f=faces", "face detection (f=face, f=faces) is not supported"),
        ("w=10&h=10&fit=fill&f=middle", "f must be one of center, top, right"),
        ("w=10&f=top", "f applies only with fit=pad, fill, crop or thumb"),
        ("w=10&h=10&fit=scale&f=top", "f applies only with fit=pad, fill, crop or thumb"),
        ("w=10&h=10&fit=fill&bg=rgb:ffffff", "bg applies only with fit=pad"),
        ("w=10&h=10&fit=pad&bg=ffffff", "bg must be a colour as rgb:RRGGBB"),
        ("w=10&h=10&fit=pad&bg=rgb:fff", "bg must be a colour as rgb:RRGGBB"),
        ("fm=png&q=50", "q applies only to jpg, webp and avif output, not png"),
        ("q=50", "q applies only to jpg, webp and avif output, not png"),
        ("fm=gif&q=50", "q applies only to jpg, webp and avif output, not gif"),
        ("fl=progressive&fm=webp", "fl=progressive applies only to jpg output"),
        ("fl=progressive", "fl=progressive applies only to jpg output"),
        ("fl=png8", "8-bit PNG (fl=png8) is not supported"),
        ("fl=interlaced&fm=jpg", "fl must be one of progressive, not 'interlaced'"),
    ],
)
def test_refused_with_a_message_naming_the_parameter(query: str, message: str) -> None:
    with pytest.raises(ImageParamsError) as refused:
        parsed(query, source="png")
    assert refused.value.status == 400
    assert message in refused.value.message


def test_a_quality_on_a_jpeg_original_needs_no_fm() -> None:
    params = parsed("q=40", source="jpg")
    assert params is not None
    assert (params.format, params.quality) == ("jpg", 40)
