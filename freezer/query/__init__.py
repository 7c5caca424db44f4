"""Questions asked of frozen versions: list, show, diff, compare, and results check."""
