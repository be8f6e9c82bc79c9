"""Points PynamoDB models at the tables and endpoint named by Settings.

PynamoDB reads table name and host from each model's Meta and caches a connection per class;
binding rewrites Meta and drops the cached connection, so a late-chosen emulator port or a
deployed stack's generated table names take effect.
"""

from __future__ import annotations

from collections.abc import Iterable

from pynamodb.models import Model

from content_service.settings import Settings


def bind_models(models: Iterable[tuple[type[Model], str]], settings: Settings) -> None:
    for model, table_name in models:
        model.Meta.table_name = table_name
        model.Meta.host = settings.aws_endpoint_url
        model.Meta.region = settings.region
        model._connection = None
