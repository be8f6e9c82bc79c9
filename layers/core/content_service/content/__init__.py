"""Content: content types, entries, the one content service both protocols call, the outbox."""
