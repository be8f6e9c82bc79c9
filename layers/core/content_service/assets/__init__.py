"""Asset helpers: image parameters and transforms, pure and free of routes (D125)."""
