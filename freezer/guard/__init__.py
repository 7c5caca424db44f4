"""Guarding frozen versions: freezer audit and the pre-merge freezer check."""
