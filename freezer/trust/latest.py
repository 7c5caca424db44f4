"""Which version "latest" names: the one rule that ``freezer.load("latest")`` and the site share."""

from __future__ import annotations

from collections.abc import Sequence

from freezer.registry.registry import FrozenVersion
from freezer.trust.verified import VerifiedView


def latest_usable(versions: Sequence[FrozenVersion], known: VerifiedView) -> FrozenVersion | None:
    """The newest of ``versions`` (oldest first) that no verified event yanked; a deprecated version
    still counts (it loads, with its reason shown). None when every version is yanked or there is none."""
    usable = [v for v in versions if known.of(v.name).status != "yanked"]
    return usable[-1] if usable else None
