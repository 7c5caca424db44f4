"""freezer: a frozen-version registry for benchmark fixture sets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from freezer.domain.release import __version__

if TYPE_CHECKING:
    from freezer.api import Comparable, FrozenSet, comparable, load
    from freezer.domain.errors import FreezerError, IntegrityError

__all__ = ["Comparable", "FreezerError", "FrozenSet", "IntegrityError", "__version__", "comparable", "load"]


def __getattr__(name: str) -> object:
    # Imported lazily so `freezer --version` and plain imports stay cheap.
    if name in ("load", "FrozenSet", "comparable", "Comparable"):
        from freezer import api  # start-up time: the API loads the whole core; `import freezer` does not

        return getattr(api, name)
    if name in ("FreezerError", "IntegrityError"):
        from freezer.domain import errors  # start-up time, as above

        return getattr(errors, name)
    raise AttributeError(f"module 'freezer' has no attribute {name!r}")
