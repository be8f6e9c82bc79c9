"""The GraphQL adapter: schema per grant set, resolvers over the content service, cost limits."""
