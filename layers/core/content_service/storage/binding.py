"""Points PynamoDB models at the tables and endpoint named by Settings, through the process's
one DynamoDB client.

PynamoDB reads table name and host from each model's Meta and caches a connection per class;
binding rewrites Meta and gives each class a fresh connection, so a late-chosen emulator port or
a deployed stack's generated table names take effect. PynamoDB would build a botocore session
and client per connection (and a session per thread); `SharedClientConnection` sends through
`storage.aws`'s client instead, created at the first request, not at binding.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pynamodb.connection import Connection
from pynamodb.models import Model

from content_service.settings import Settings
from content_service.storage import aws


class SharedClientConnection(Connection):
    """PynamoDB's connection, sending through the process's one DynamoDB client."""

    @property
    def client(self) -> Any:
        return aws.client_at("dynamodb", self.region, self.host)


def bind_models(models: Iterable[tuple[type[Model], str]], settings: Settings) -> None:
    for model, table_name in models:
        model.Meta.table_name = table_name
        model.Meta.host = settings.aws_endpoint_url
        model.Meta.region = settings.region
        model._connection = None
        table = model._get_connection()
        shared = SharedClientConnection(region=settings.region, host=settings.aws_endpoint_url)
        shared.add_meta_table(table.get_meta_table())
        table.connection = shared
