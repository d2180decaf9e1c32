"""From lessons to what students get: source notebooks, the release's leak scan, the student bundle, and synthetic students for tests, the demo and benchmarks."""
