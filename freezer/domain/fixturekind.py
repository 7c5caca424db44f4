"""How a version's fixtures are read from its files, for the kinds whose fixture is not one YAML file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from freezer.domain.model import Raw

FixtureKindName = Literal["folders", "records", "lm-eval"]


@dataclass(frozen=True)
class FixtureKindRecord:
    """How the fixtures of a version of kind folders or records are read from its files: recorded
    in the manifest (``fixture_kind``) so that a later freezer.yaml cannot change how a frozen version
    is read. Absent from every graph and generic version, whose manifests stay as they were."""

    kind: FixtureKindName
    fixtures: str  # the glob (for folders, ending in "/": it names the fixture folders)
    task_file: str | None = None  # folders: the file in each folder holding the task's fields
    task_id: str | None = None  # the field naming a fixture; None (folders only): the folder's name
    status_field: str | None = None  # the field whose value is the status; None: landed
    dropped: tuple[str, ...] = ()  # task ids dropped by the suite (instead of a status field)

    @classmethod
    def from_data(cls, data: Raw) -> FixtureKindRecord:
        return cls(
            data["kind"],
            data["fixtures"],
            data.get("task_file"),
            data.get("task_id"),
            data.get("status_field"),
            tuple(data.get("dropped") or ()),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "fixtures": self.fixtures}
        for key, value in (
            ("task_file", self.task_file),
            ("task_id", self.task_id),
            ("status_field", self.status_field),
        ):
            if value is not None:
                out[key] = value
        if self.dropped:
            out["dropped"] = list(self.dropped)
        return out
