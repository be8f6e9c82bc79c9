"""Content: content types, entries, the one content service both protocols call, the outbox.

`service` is the entry point and `requests` its request objects; `store` (with `dynamo_store`)
is the one way to the tables; `values`, `rich_text` and `cache_tags` are shared by the
sub-packages, each imported from outside by its own name only (D150): `schema` (content types),
`entries` (entries as stored and read), `writes` (changing entries), `lists` (lists, the filter,
the list index) and `relations` (links between entries).
"""
