"""The rules a graded notebook follows, shared by every side: nbgrader's item names and markers, what a student may not change, and how a verdict scores."""
