"""The HTTP face of the service: one FastAPI app for REST, GraphQL, webhooks API and admin pages."""
