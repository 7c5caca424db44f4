"""freezer's own release: the version that every manifest, statement and JSON document records."""

__version__ = "0.3.0"
