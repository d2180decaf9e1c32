"""The instructor's grading package: build, release, grade, feedback, export, demo."""

__version__ = "0.1.0"
