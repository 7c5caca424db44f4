"""What ``freezer cut`` did: the outcome of one cut, a dry run included."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from freezer.domain.problems import display_path
from freezer.domain.steps import Step

CutStatus = Literal["cut", "unchanged", "dry-run"]


@dataclass
class CutResult:
    """One cut's outcome: the version it froze (or would freeze, in a dry run; or found already frozen
    with identical inputs, unchanged) and how it got there."""

    name: str
    path: Path
    status: CutStatus
    steps: list[Step] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    method: str = ""
    manifest_sha256: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    ok: bool = True  # a cut that is refused raises instead

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "name": self.name,
            "path": display_path(self.path),
            "manifest_sha256": self.manifest_sha256,
            "steps": [step.to_json() for step in self.steps],
            "warnings": self.warnings,
            "timings": self.timings,
            **({"method": self.method} if self.status == "dry-run" else {}),
        }
