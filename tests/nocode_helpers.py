"""A registry whose suite has no code under test: generic fixtures, a version.yaml of only suite,
version, title and purpose (and sources when asked), real git, real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import compare_arms, cut_suite
from registry_helpers import ok as ok  # re-exported: the no-code tests take it from here

SQUAD_V1 = "3c2d4f1e5b6a79880d1e2f3a4b5c6d7e8f901234"
SQUAD_V2 = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64

CONFIG = """\
suites:
  qa:
    kind: generic
    drafts: drafts/qa
    versions: versions
{arms}"""

VERSION = """\
suite: qa
version: {number}
title: Reading questions
purpose: >-
  Measure reading comprehension on hand-picked questions, with no code under test.
{extra}"""

FIXTURE = """\
task_id: {task}
status: landed
class: {klass}
prompt: {prompt}
{extra}"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def registry(tmp_path: Path, arms: str = "") -> Path:
    root = tmp_path / "registry"
    root.mkdir(parents=True)
    write(root / "freezer.yaml", CONFIG.format(arms=arms))
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    return root


def drafts(
    root: Path,
    number: int,
    *,
    sources: str = "",
    fixtures: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
) -> None:
    """The drafts of version ``number``: version.yaml (with ``sources`` YAML appended), the fixtures
    (task → extra YAML lines; default: two plain ones) and asset files."""
    folder = root / "drafts" / "qa"
    for old in sorted(folder.rglob("*"), reverse=True) if folder.exists() else []:
        old.unlink() if old.is_file() else old.rmdir()
    write(folder / "version.yaml", VERSION.format(number=number, extra=sources))
    chosen = fixtures if fixtures is not None else {"capital-city": "", "river-length": ""}
    for index, (task, extra) in enumerate(sorted(chosen.items())):
        prompt = f"Answer question {task} from the passage."
        write(
            folder / "fixtures" / f"{task}.yaml",
            FIXTURE.format(task=task, klass=f"c{index % 2}", prompt=prompt, extra=extra),
        )
    for rel, text in (files or {}).items():
        write(folder / rel, text)


def cut(root: Path, label: str) -> Any:
    return cut_suite(root, "qa", label)


def frozen(root: Path, number: int) -> Path:
    return root / "versions" / f"qa_v{number}"


def manifest(root: Path, number: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((frozen(root, number) / "manifest.json").read_bytes())
    return data


def compare(root: Path, old: str, new: str) -> dict[str, dict[str, Any]]:
    return compare_arms(root, old, new, "qa")


def refused(root: Path, number: int = 1, *, sources: str) -> str:
    """The drafts of version ``number`` with ``sources`` (version.yaml lines) appended: validate must
    refuse them cleanly (exit 1); its output."""
    drafts(root, number, sources=sources)
    result = run_inprocess("validate", "--suite", "qa", cwd=root)
    assert_clean_failure(result, 1)
    return str(result.out)


def sources_yaml(*entries: tuple[str, str, str]) -> str:
    lines = ["sources:"]
    for name, kind, revision in entries:
        lines += [f"  - name: {name}", f"    kind: {kind}", f"    revision: {revision!r}"]
    return "\n".join(lines) + "\n"
