"""A fixture's class as freezer reads it: the word a freezer fixture's ``class`` field holds.

A benchmark's own fields may use the name for something else: an lm-eval task's
``class: !function pytask.SliceTask`` names the Python class that runs the task. That is no
fixture class, so it is neither counted against ``acceptance.min_classes`` nor listed as one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def fixture_class(fixture: Mapping[str, object]) -> str | None:
    """The fixture's class, or None where its ``class`` field is missing or is not a word."""
    value = fixture.get("class")
    return value if isinstance(value, str) and value else None


def class_counts(fixtures: Iterable[Mapping[str, object]]) -> dict[str, int]:
    """How many of ``fixtures`` are in each class, by class name."""
    counts: dict[str, int] = {}
    for fixture in fixtures:
        name = fixture_class(fixture)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))
