"""freezer site: the registry as a static site."""
