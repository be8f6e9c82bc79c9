"""Content service core: the domain shared by the API, fan-out, delivery and scheduler handlers."""
