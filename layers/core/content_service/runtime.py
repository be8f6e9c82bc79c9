"""Startup wiring shared by every handler: points all storage models at Settings' tables."""

from __future__ import annotations

from content_service.identity import models as identity_models
from content_service.settings import Settings


def configure(settings: Settings) -> None:
    identity_models.bind(settings)
