"""GraphQL's `Asset`: what an asset field resolves to, with `url(transform: ...)`.

The linked asset is an entry of the built-in type `asset`, loaded like any relation target;
its fields come from `content.entries.asset_views`, as REST's `expand` does. A transform is the
image parameters of the file URLs (docs/assets.md) in GraphQL's words, validated by the same parser,
so a bad combination is the same readable error in both protocols.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import graphene

from content_service.assets.image_params import FITS, FOCUS, FORMATS, parse_image_params
from content_service.content.entries import Entry, file_of, file_url
from content_service.graphql.built import by_attribute, by_value

_PARAMETERS = {
    "width": "w",
    "height": "h",
    "fit": "fit",
    "focus": "f",
    "format": "fm",
    "quality": "q",
    "progressive": "fl",
    "background": "bg",
}


def transform_query(transform: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The file URL's query for a `transform` input (checked by the delivery's own parser)."""
    pairs: list[tuple[str, str]] = []
    for name, parameter in _PARAMETERS.items():
        value = (transform or {}).get(name)
        value = getattr(value, "value", value)  # an enum member: its REST spelling
        if value is None or value is False:
            continue
        if name == "progressive":
            pairs.append((parameter, "progressive"))
        elif name == "background":
            pairs.append((parameter, f"rgb:{value}"))
        else:
            pairs.append((parameter, str(value).lower()))
    if pairs:
        parse_image_params(pairs)
    return pairs


def resolve_url(entry: Entry, _info: Any, transform: Mapping[str, Any] | None = None) -> str | None:
    url = file_url(entry)
    pairs = transform_query(transform)
    if url is None or not pairs:
        return url
    return f"{url}?{urlencode(pairs)}"


def _file(name: str) -> Callable[[Entry, Any], Any]:
    def resolve(entry: Entry, _info: Any) -> Any:
        return file_of(entry).get(name)

    return resolve


def asset_object(
    make_enum: Callable[[str, str, list[tuple[str, str]]], Any],
    make_input: Callable[[str, str, Mapping[str, Any]], Any],
    make_object: Callable[[str, str, Mapping[str, Any]], Any],
    shared: Mapping[str, str],
    status: Any,
) -> Any:
    """The `Asset` object type, with its `AssetTransform` input and enums, made by the
    schema builder's own factories (one class per name per build)."""
    fit = make_enum(shared["AssetFit"], "How an image fills `width` x `height`.", _members(FITS))
    focus = make_enum(shared["AssetFocus"], "The focus area of a fit.", _members(FOCUS))
    image_format = make_enum(shared["AssetFormat"], "An image format.", _members(FORMATS))
    transform = make_input(
        shared["AssetTransform"],
        "Image parameters, as the file URLs take them (docs/assets.md).",
        transform_fields(fit, focus, image_format),
    )
    return make_object(
        shared["Asset"],
        "A file of the media library, linked through an asset field.",
        asset_fields(transform, status),
    )


def _members(values: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(value.upper(), value) for value in values]


def transform_fields(fit: Any, focus: Any, image_format: Any) -> dict[str, Any]:
    """The `AssetTransform` input's fields (Contentful's Images API, by name)."""
    return {
        "width": graphene.Int,
        "height": graphene.Int,
        "fit": fit,
        "focus": focus,
        "format": image_format,
        "quality": graphene.Int,
        "progressive": graphene.Boolean,
        "background": graphene.String,
    }


def asset_fields(transform: Any, status: Any) -> dict[str, Any]:
    """The `Asset` object's fields."""
    string, integer = graphene.String, graphene.Int
    return {
        "id": graphene.Field(graphene.NonNull(graphene.ID), resolver=by_attribute("id")),
        "status": graphene.Field(graphene.NonNull(status), resolver=by_attribute("status")),
        "title": graphene.Field(string, resolver=by_value("title")),
        "altText": graphene.Field(string, resolver=by_value("altText")),
        "description": graphene.Field(string, resolver=by_value("description")),
        "fileName": graphene.Field(string, resolver=_file("fileName")),
        "contentType": graphene.Field(string, resolver=_file("contentType")),
        "size": graphene.Field(integer, resolver=_file("size")),
        "width": graphene.Field(integer, resolver=_file("width")),
        "height": graphene.Field(integer, resolver=_file("height")),
        "url": graphene.Field(
            string,
            args={"transform": graphene.Argument(transform)},
            resolver=resolve_url,
            description="Where the file is served (null until the asset is published); a "
            "transform adds the image parameters (images only).",
        ),
    }
