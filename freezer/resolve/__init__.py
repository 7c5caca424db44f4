"""Checking fixtures against the code at a commit: ground truth, Gate B by ripgrep, provenance."""
