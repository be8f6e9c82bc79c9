"""The Sync API: an initial sync of everything a token sees, then deltas (docs/api.md, "Sync")."""
