"""What every command returns: one typed outcome that says whether it passed and what it found.

The CLI prints ``to_json()`` as the ``result`` of the common JSON document
(:func:`freezer.cli.output.document`), and a command returns its outcome, whose ``ok`` gives the
exit code (:func:`freezer.cli.exits.exit_code`) in text and JSON alike; the text output reads the
same object's fields. ``ok`` says whether the command
succeeded on valid input (a usage error or an unreadable registry raises
instead, and never reaches an outcome)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Outcome(Protocol):
    @property
    def ok(self) -> bool:
        """Whether the command succeeded (exit 0)."""
        ...

    def to_json(self) -> dict[str, object]:
        """The command-specific part of the JSON document: its ``result``."""
        ...
