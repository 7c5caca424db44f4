"""How long work reports on itself: the steps that passed (progress counts: :mod:`freezer.domain.progress`).

The core never prints; commands pass a listener and decide what a person sees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from freezer.domain.jsontypes import JsonObject


@dataclass(frozen=True)
class Step:
    """``name`` is stable (a harness may look for ``gate_b``); ``detail`` is the sentence shown."""

    name: str
    detail: str

    def __str__(self) -> str:
        return self.detail

    def to_json(self) -> JsonObject:
        return {"step": self.name, "detail": self.detail}


@dataclass
class StepLog:
    """The steps of a command, each told to ``listener`` the moment it passes."""

    listener: Callable[[Step], None] = lambda _step: None
    # Told what runs now (a step that may take a while), before it passes.
    now: Callable[[str], None] = lambda _text: None
    steps: list[Step] = field(default_factory=list)

    def append(self, step: Step) -> None:
        self.steps.append(step)
        self.listener(step)


def told(steps: list[Step]) -> str:
    return "; ".join(step.detail for step in steps)
