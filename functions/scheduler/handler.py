"""Placeholder until the webhooks capability lands."""

from typing import Any


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {}
