"""Assets: files uploaded straight to S3, kept as entries of the built-in `asset` type."""
