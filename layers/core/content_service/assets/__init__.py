"""Asset helpers: image parameters and transforms, pure and free of routes (issue 37, D125)."""
