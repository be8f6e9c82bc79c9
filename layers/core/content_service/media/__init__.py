"""File delivery: the files of `asset` entries served by URL, and their image transforms."""
