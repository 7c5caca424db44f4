"""The registry model: freezer.yaml, the suites, the frozen versions and their records."""
