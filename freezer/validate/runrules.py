"""Rules for version.yaml's run configuration that its schema cannot state alone."""

from __future__ import annotations

from collections.abc import Set

from freezer.domain.problems import Problem
from freezer.parse.document import YamlDocument
from freezer.validate.rules import path_problem


def run_rules(doc: YamlDocument, assets: Set[str]) -> list[Problem]:
    """Every harness file the run configuration names is a clean relative path to a file in the
    drafts: it is frozen with the version (as an asset), so a change to it is seen."""
    run = doc.data.get("run") if isinstance(doc.data, dict) else None
    harness = run.get("harness") if isinstance(run, dict) else None
    paths = harness.get("paths") if isinstance(harness, dict) else None
    found: list[Problem] = []
    for index, rel in enumerate(paths if isinstance(paths, list) else []):
        why = path_problem(rel) if isinstance(rel, str) else "must be a path"
        if why is None and rel not in assets:
            why = f"no file {rel!r} in the drafts (harness paths are relative to the drafts folder)"
        if why:
            found.append(doc.problem(("run", "harness", "paths", index), why, "rule"))
    return found
