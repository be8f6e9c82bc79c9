"""Contentful Images API parameters: what parses, and each refusal naming its parameter."""

from __future__ import annotations

import pytest

from content_service.assets.image_params import ImageParams, parse_image_params
from content_service.errors import BadRequest


def test_all_parameters_parse_into_one_value() -> None:
    params = parse_image_params(
        [
            ("w", "300"),
            ("h", "200"),
            ("fit", "fill"),
            ("f", "top_left"),
            ("fm", "jpg"),
            ("q", "80"),
            ("fl", "progressive"),
        ]
    )
    assert params == ImageParams(
        width=300,
        height=200,
        fit="fill",
        focus="top_left",
        format="jpg",
        quality=80,
        progressive=True,
    )


def test_no_parameters_mean_the_source_as_is() -> None:
    assert parse_image_params([]) == ImageParams()
    assert ImageParams().normalised() == ""


def test_normalised_is_stable_whatever_the_query_order() -> None:
    one = parse_image_params([("fm", "webp"), ("w", "10"), ("bg", "rgb:FFAA00"), ("fit", "pad")])
    two = parse_image_params([("fit", "pad"), ("bg", "rgb:ffaa00"), ("w", "10"), ("fm", "webp")])
    assert one.normalised() == two.normalised() == "w=10&fit=pad&fm=webp&bg=rgb:ffaa00"


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([("x", "1")], "unknown image parameter 'x'"),
        ([("w", "1"), ("w", "2")], "image parameter 'w' is repeated"),
        ([("w", "0")], "image parameter 'w' must be an integer from 1 to 4000"),
        ([("w", "4001")], "image parameter 'w' must be an integer from 1 to 4000"),
        ([("h", "1.5")], "image parameter 'h' must be an integer from 1 to 4000"),
        ([("h", "-3")], "image parameter 'h' must be an integer from 1 to 4000"),
        ([("q", "0")], "image parameter 'q' must be an integer from 1 to 100"),
        ([("q", "101")], "image parameter 'q' must be an integer from 1 to 100"),
        ([("fit", "cover")], "image parameter 'fit' must be one of crop, fill, pad, scale, thumb"),
        ([("fm", "tiff")], "image parameter 'fm' must be one of avif, gif, jpg, png, webp"),
        ([("fit", "fill"), ("f", "middle")], "image parameter 'f' must be one of"),
        (
            [("fit", "thumb"), ("f", "face")],
            "image parameter 'f': focus 'face' (face detection) is not supported",
        ),
        (
            [("fit", "thumb"), ("f", "faces")],
            "image parameter 'f': focus 'faces' (face detection) is not supported",
        ),
        ([("w", "9"), ("f", "top")], "image parameter 'f' needs fit=fill, fit=crop or fit=thumb"),
        ([("fl", "png8"), ("fm", "png")], "image parameter 'fl' must be progressive"),
        ([("fl", "progressive"), ("fm", "png")], "image parameter 'fl=progressive' needs fm=jpg"),
        ([("fl", "progressive")], "image parameter 'fl=progressive' needs fm=jpg"),
        ([("fit", "pad"), ("bg", "#ffffff")], "image parameter 'bg' must be rgb:RRGGBB"),
        ([("w", "9"), ("bg", "rgb:ffffff")], "image parameter 'bg' needs fit=pad"),
    ],
)
def test_bad_parameters_are_refused_by_name(pairs: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(BadRequest) as refused:
        parse_image_params(pairs)
    assert refused.value.message.startswith(message)
