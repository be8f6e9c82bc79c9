"""Image transforms, checked by decoding what they make: each fit's size, focus areas, the
EXIF orientation applied, no metadata carried over, and the pixel cap before decoding."""

from __future__ import annotations

import io
from urllib.parse import parse_qsl

import pytest
from PIL import Image

from content_service.media.image_params import Format, ImageParams, parse
from content_service.media.image_transform import ImageNotTransformable, transform

RED, BLUE, GREEN = (255, 0, 0), (0, 0, 255), (0, 255, 0)
CAP = 50_000_000
GPS_IFD = 0x8825


def halves(size: tuple[int, int] = (400, 200), fmt: str = "PNG") -> bytes:
    """The left half red, the right half blue."""
    image = Image.new("RGB", size, BLUE)
    image.paste(RED, (0, 0, size[0] // 2, size[1]))
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def params_of(query: str, source: Format = "png") -> ImageParams:
    params = parse(parse_qsl(query), source)
    assert params is not None
    return params


def pixel(image: Image.Image, at: tuple[int, int]) -> tuple[int, ...]:
    found = image.getpixel(at)
    assert isinstance(found, tuple)
    return found


def run(source: bytes, query: str, fmt: Format = "png") -> Image.Image:
    body = transform(io.BytesIO(source), params_of(query, fmt), CAP)
    return Image.open(io.BytesIO(body))


@pytest.mark.parametrize(
    ("query", "size"),
    [
        ("w=100", (100, 50)),
        ("h=50", (100, 50)),
        ("w=100&h=100", (100, 50)),  # the default: inside the box, aspect kept
        ("w=100&h=100&fit=pad", (100, 100)),
        ("w=100&h=100&fit=fill", (100, 100)),
        ("w=100&h=100&fit=thumb", (100, 100)),
        ("w=100&h=100&fit=scale", (100, 100)),
        ("w=100&h=100&fit=crop", (100, 100)),
        ("w=1000&h=1000&fit=crop", (400, 200)),  # never larger than the original
        ("w=800&fit=scale", (800, 400)),
    ],
)
def test_each_fit_makes_its_size(query: str, size: tuple[int, int]) -> None:
    assert run(halves(), query).size == size


@pytest.mark.parametrize(
    ("query", "colour"),
    [
        ("w=100&h=100&fit=crop&f=left", RED),
        ("w=100&h=100&fit=crop&f=right", BLUE),
        ("w=100&h=100&fit=fill&f=left", RED),
        ("w=100&h=100&fit=fill&f=bottom_right", BLUE),
        ("w=100&h=100&fit=thumb&f=top_left", RED),
    ],
)
def test_focus_chooses_the_part_kept(query: str, colour: tuple[int, int, int]) -> None:
    image = run(halves(), query).convert("RGB")
    assert image.getpixel((10, 10)) == colour
    assert image.getpixel((90, 90)) == colour


def test_a_centred_crop_keeps_both_halves() -> None:
    image = run(halves(), "w=100&h=100&fit=crop").convert("RGB")
    assert image.getpixel((10, 50)) == RED
    assert image.getpixel((90, 50)) == BLUE


def test_pad_places_the_image_by_focus_on_the_background() -> None:
    image = run(halves(), "w=100&h=100&fit=pad&f=top&bg=rgb:00ff00&fm=jpg").convert("RGB")
    assert image.size == (100, 100)
    assert pixel(image, (10, 10))[0] > 200  # the image at the top
    assert pixel(image, (50, 90))[1] > 200  # green padding below


def test_pad_is_transparent_where_the_format_has_transparency() -> None:
    image = run(halves(), "w=100&h=100&fit=pad&fm=png")
    assert image.mode == "RGBA"
    assert pixel(image, (50, 2))[3] == 0
    assert pixel(image, (50, 50))[3] == 255


@pytest.mark.parametrize(
    ("fm", "pillow"),
    [("jpg", "JPEG"), ("png", "PNG"), ("webp", "WEBP"), ("avif", "AVIF"), ("gif", "GIF")],
)
def test_every_output_format_decodes(fm: str, pillow: str) -> None:
    image = run(halves(fmt="JPEG"), f"w=120&fm={fm}", fmt="jpg")
    assert (image.format, image.size) == (pillow, (120, 60))
    assert not image.getexif()


def exif_photo(orientation: int) -> bytes:
    """A 300 x 100 JPEG, red on its first 100 columns, with an orientation, a GPS position,
    a camera model and XMP."""
    image = Image.new("RGB", (300, 100), BLUE)
    image.paste(RED, (0, 0, 100, 100))
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x0110] = "Camera X"
    exif.get_ifd(GPS_IFD).update({1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 0.0)})
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif, xmp=xmp)
    return out.getvalue()


def test_the_fixture_carries_what_must_not_survive() -> None:
    photo = Image.open(io.BytesIO(exif_photo(6)))
    assert photo.getexif()[0x0112] == 6
    assert photo.getexif().get_ifd(GPS_IFD)
    assert "xmp" in photo.info


@pytest.mark.parametrize("fm", ["jpg", "png", "webp", "avif"])
def test_orientation_6_comes_out_rotated_with_no_metadata(fm: str) -> None:
    body = transform(io.BytesIO(exif_photo(6)), params_of(f"w=50&fm={fm}", "jpg"), CAP)
    image = Image.open(io.BytesIO(body))
    assert image.size == (50, 150)  # turned upright: 100 x 300 before the resize
    rgb = image.convert("RGB")
    assert pixel(rgb, (25, 10))[0] > 200  # the red end is now at the top
    assert pixel(rgb, (25, 140))[2] > 200
    assert not image.getexif()
    assert "exif" not in image.info
    assert "xmp" not in image.info
    assert "XML:com.adobe.xmp" not in image.info
    assert b"Camera X" not in body


def test_a_decompression_bomb_is_refused_from_its_header() -> None:
    bomb = io.BytesIO()
    Image.new("1", (10_000, 6_000)).save(bomb, format="PNG")
    with pytest.raises(ImageNotTransformable) as refused:
        transform(io.BytesIO(bomb.getvalue()), params_of("w=100"), CAP)
    assert refused.value.status == 422
    assert "10000 x 6000 pixels" in refused.value.message


def test_a_file_that_is_not_an_image_is_refused() -> None:
    with pytest.raises(ImageNotTransformable) as refused:
        transform(io.BytesIO(b"%PDF-1.7 not an image"), params_of("w=100"), CAP)
    assert refused.value.status == 422


def test_a_bmp_is_not_decoded_even_when_the_type_claims_png() -> None:
    bmp = io.BytesIO()
    Image.new("RGB", (10, 10)).save(bmp, format="BMP")
    with pytest.raises(ImageNotTransformable):
        transform(io.BytesIO(bmp.getvalue()), params_of("w=5"), CAP)
