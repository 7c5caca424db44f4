"""The Python API for benchmark harnesses.

    import freezer

    frozen = freezer.load("graph_v2", registry="path/to/registry")
    for fixture in frozen.landed:
        run(fixture)
    results["fixture_set"] = {"name": frozen.name, "manifest_sha256": frozen.manifest_sha256}

:func:`load` verifies the version's integrity (every hash, the chain, the
re-rendered METHOD.md) before it returns anything, and raises
:class:`freezer.errors.IntegrityError` if the check fails.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freezer import browse
from freezer import config as config_mod
from freezer.errors import UsageError


@dataclass(frozen=True)
class FrozenSet:
    """A verified frozen version."""

    name: str
    path: Path
    manifest: dict[str, Any]
    manifest_sha256: str
    version: dict[str, Any]
    fixtures: list[dict[str, Any]]

    @property
    def pinned_sha(self) -> str:
        return str(self.manifest["pinned_sha"]["full"])

    @property
    def landed(self) -> list[dict[str, Any]]:
        return [f for f in self.fixtures if f["status"] == "landed"]

    def fixture(self, task_id: str) -> dict[str, Any]:
        for fixture in self.fixtures:
            if fixture["task_id"] == task_id:
                return fixture
        raise KeyError(task_id)


def load(version: str, registry: str | os.PathLike[str] | None = None, suite: str | None = None) -> FrozenSet:
    """Load and verify frozen ``version`` (``graph_v2``, or ``v2`` when the registry has one suite)."""
    try:
        cfg = config_mod.load(Path(registry) if registry is not None else None)
        frozen = browse.find(config_mod.suite_of_label(cfg, version, suite), version)
    except UsageError as exc:
        # The CLI's hints name its options; a harness calling the API needs the argument instead.
        hint = exc.hint
        if hint and "--registry" in hint:
            hint = "pass registry='path/to/registry' (the folder with freezer.yaml) to freezer.load"
        elif hint and "--suite" in hint:
            hint = "pass suite='name' to freezer.load, or name the version as <suite>_vN"
        raise UsageError(exc.message, hint=hint) from None
    data = browse.read(frozen, verify=True, deep=True)
    return FrozenSet(
        name=frozen.name,
        path=frozen.path,
        manifest=data.manifest,
        manifest_sha256=frozen.manifest_sha256(),
        version=data.version,
        fixtures=data.fixtures,
    )
