"""Kind lm-eval reads a group file by what it holds (``group:`` and a ``task:`` list), not only by
a leading ``_`` in its name: upstream lm-eval names many of its group files otherwise
(``leaderboard/leaderboard.yaml``). Such a file is a group, frozen as a suite asset, and a change of
it moves the suite's ``assets``; a task file named anything stays a task. Real files, the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import assert_clean_failure, run_forked, run_inprocess
from registry_helpers import commit_all

CONFIG = """\
suites:
  lb:
    kind: lm-eval
    drafts: drafts/lb
    fixtures: "**/*.yaml"
    versions: versions
"""
VERSION = """\
suite: lb
version: {number}
title: A leaderboard-shaped family
purpose: >-
  Measure a few toy tasks grouped as upstream lm-eval's leaderboard groups them.
"""
FAMILY = {
    "leaderboard.yaml": "group: leaderboard\ntask:\n  - leaderboard_alpha\n  - leaderboard_beta\n",
    "alpha/alpha.yaml": "task: leaderboard_alpha\ndataset_path: toy/alpha\noutput_type: generate_until\n",
    "beta/beta.yaml": "task: leaderboard_beta\ndataset_path: toy/beta\noutput_type: multiple_choice\n",
}


def _registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    drafts = root / "drafts" / "lb"
    for rel, text in {"version.yaml": VERSION.format(number=1), **FAMILY}.items():
        (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts / rel).write_text(text, encoding="utf-8")
    (root / "freezer.yaml").write_text(CONFIG, encoding="utf-8")
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "drafts")
    return root


def test_a_group_file_not_named_with_an_underscore_validates_and_is_frozen_as_an_asset(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    validated = run_forked("validate", cwd=root)
    assert validated.code == 0, validated.text
    cut = run_forked("cut", "v1", cwd=root)
    assert cut.code == 0, cut.text
    manifest = json.loads((root / "versions/lb_v1/manifest.json").read_text())
    contents = manifest["contents"]
    assert "leaderboard.yaml" in contents["assets"]
    assert "leaderboard.yaml" not in contents["fixtures"]
    assert sorted(contents["fixtures"]) == ["alpha/alpha.yaml", "beta/beta.yaml"]
    assert run_forked("audit", cwd=root).code == 0


def test_a_group_named_without_underscore_is_checked_as_a_group(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    (root / "drafts/lb/leaderboard.yaml").write_text("group: leaderboard\ntask:\n  - leaderboard_gamma\n")
    result = run_inprocess("validate", cwd=root)
    assert_clean_failure(result, code=1)
    assert (
        "drafts/lb/leaderboard.yaml:3:5: $.task[0]: the group 'leaderboard' lists 'leaderboard_gamma', "
        "which is no task, group or tag"
    ) in result.out


def test_editing_a_group_named_without_underscore_moves_the_assets(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    assert run_inprocess("cut", "v1", cwd=root).code == 0
    commit_all(root, "v1")
    (root / "drafts/lb/version.yaml").write_text(VERSION.format(number=2))
    (root / "drafts/lb/leaderboard.yaml").write_text("group: leaderboard\ntask:\n  - leaderboard_alpha\n")
    cut = run_inprocess("cut", "v2", cwd=root)
    assert cut.code == 0, cut.text
    delta = json.loads((root / "versions/lb_v2/delta.json").read_text())
    assert "leaderboard.yaml" in json.dumps(delta["assets"])


def test_a_task_file_holding_a_legacy_group_key_stays_a_task(tmp_path: Path) -> None:
    """Old lm-eval task files carry ``group:`` as a tag; with ``task:`` a name they are tasks."""
    root = _registry(tmp_path)
    (root / "drafts/lb/alpha/alpha.yaml").write_text(
        "group: leaderboard_legacy\ntask: leaderboard_alpha\ndataset_path: toy/alpha\n"
    )
    result = run_inprocess("cut", "v1", cwd=root)
    assert result.code == 0, result.text
    manifest = json.loads((root / "versions/lb_v1/manifest.json").read_text())
    assert "alpha/alpha.yaml" in manifest["contents"]["fixtures"]


def test_a_group_file_with_quoted_keys_is_a_group(tmp_path: Path) -> None:
    """Upstream writes some files' keys quoted (``"task": "aclue_ancient_chinese_culture"``)."""
    root = _registry(tmp_path)
    (root / "drafts/lb/leaderboard.yaml").write_text(
        '"group": "leaderboard"\n"task":\n  - "leaderboard_alpha"\n  - "leaderboard_beta"\n'
    )
    result = run_inprocess("validate", cwd=root)
    assert result.code == 0, result.text
