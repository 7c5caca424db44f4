"""freezer: a frozen-version registry for benchmark fixture sets."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from freezer.api import FrozenSet, load
    from freezer.errors import FreezerError, IntegrityError

__all__ = ["FreezerError", "FrozenSet", "IntegrityError", "__version__", "load"]
__version__ = "0.2.0"


def __getattr__(name: str) -> object:
    # Imported lazily so `freezer --version` and plain imports stay cheap.
    if name in ("load", "FrozenSet"):
        from freezer import api

        return getattr(api, name)
    if name in ("FreezerError", "IntegrityError"):
        from freezer import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'freezer' has no attribute {name!r}")
