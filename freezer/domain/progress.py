"""Progress counts: how long work tells a listener how far it has come.

The core never prints; a command passes a listener and decides what a person sees. Apart from the
steps of a command (:mod:`freezer.domain.steps`, dataclasses built at import), since validate, a
pre-commit hook, takes a listener and records no step.
"""

from __future__ import annotations

from collections.abc import Callable

# Called with (done, total) as work advances.
Progress = Callable[[int, int], None]


def no_progress(done: int, total: int) -> None:
    """The default listener: nobody is watching."""


# Called with (part, done, total) as work made of parts advances (the suites of an audit): done and
# total count within the part at that index.
PartProgress = Callable[[int, int, int], None]


def no_part_progress(part: int, done: int, total: int) -> None:
    """The default listener of work in parts: nobody is watching."""
