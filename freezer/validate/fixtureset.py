"""What validate found in one folder: a version draft, its fixtures and its assets.

Below :mod:`freezer.validate.validate` (which builds it) and :mod:`freezer.validate.drafts`
(which reads and hashes what it names), so that each can import it without importing the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from freezer.parse.document import YamlDocument


@dataclass
class FixtureSet:
    """A version draft and its fixtures, as found in one folder."""

    root: Path | None
    version: YamlDocument | None = None
    fixtures: list[YamlDocument] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)
    unreadable: int = 0
    assets: dict[str, Path] = field(default_factory=dict)  # by path relative to the drafts folder
    # Only some files of the folder were named (validate PATH): its counts are not the folder's.
    partial: bool = False
