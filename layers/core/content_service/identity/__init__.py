"""Who may do what: workspaces, users, API tokens, sessions, and the bootstrap of a fresh stack."""
