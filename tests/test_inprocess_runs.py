"""The in-process runs of the CLI (conftest.run_inprocess) keep only caches that depend on content alone:
each kept name must still be such a cache, so a rename cannot silently make every run recompile again."""

from __future__ import annotations

import importlib

from conftest import KEPT_CACHES


def test_every_kept_cache_is_a_cache_freezer_still_has() -> None:
    for name in sorted(KEPT_CACHES):
        module, attribute = name.rsplit(".", 1)
        cached = getattr(importlib.import_module(module), attribute, None)
        assert callable(getattr(cached, "cache_clear", None)), f"{name} is no longer a cache"
