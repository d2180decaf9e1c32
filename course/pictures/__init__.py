"""Pictures the lessons draw with matplotlib, which is imported on the first drawing (see `lazy`)."""
