"""Pictures the lessons draw with matplotlib."""
