"""Assets: files uploaded straight to S3, kept as entries of the built-in `asset` type (D128),
and the pure image parameters and transforms their delivery applies (D125)."""
