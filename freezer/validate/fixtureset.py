"""What validate found in one folder: a version draft, its fixtures and its assets.

Below :mod:`freezer.validate.validate` (which builds it) and :mod:`freezer.validate.drafts`
(which reads and hashes what it names), so that each can import it without importing the other.
"""

from __future__ import annotations

from pathlib import Path

from freezer.parse.document import YamlDocument


class FixtureSet:
    """A version draft and its fixtures, as found in one folder."""

    def __init__(
        self,
        root: Path | None,
        fixtures: list[YamlDocument] | None = None,
        assets: dict[str, Path] | None = None,  # by path relative to the drafts folder
    ) -> None:
        self.root = root
        self.version: YamlDocument | None = None
        self.fixtures = [] if fixtures is None else fixtures
        self.files: dict[str, Path] = {}
        self.unreadable = 0
        self.assets = {} if assets is None else assets
        # Only some files of the folder were named (validate PATH): its counts are not the folder's.
        self.partial = False
