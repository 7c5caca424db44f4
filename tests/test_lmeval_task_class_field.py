"""An lm-eval task's ``class: !function pytask.SliceTask`` names the Python class that runs it, not
freezer's fixture class: validate, cut, the next cut (§Delta, diff, compare) read it as a task field
and never count it as a class. Real files, real git, the CLI run in-process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import REPO, run_inprocess
from registry_helpers import BBH_LMEVAL_CONFIG, commit_all, cut_suite, ok

CONFIG = BBH_LMEVAL_CONFIG
PY_TASK = "task: slice_py\nclass: !function pytask.SliceTask\n"


def _registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    root.mkdir()
    (root / "freezer.yaml").write_text(CONFIG, encoding="utf-8")
    shutil.copytree(REPO / "examples/bbh/v1", root / "drafts/bbh")
    (root / "drafts/bbh/tasks/slice_py.yaml").write_text(PY_TASK, encoding="utf-8")
    (root / "drafts/bbh/tasks/pytask.py").write_text("class SliceTask:\n    pass\n", encoding="utf-8")
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "drafts")
    return root


def test_a_task_run_by_a_python_class_validates_and_cuts(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    validated = ok(run_inprocess("validate", cwd=root))
    assert "internal error" not in validated.text
    cut_suite(root, "bbh", "v1")
    method = (root / "versions/bbh_v1/METHOD.md").read_text(encoding="utf-8")
    assert "SliceTask" not in method.split("## Delta")[0].split("classes")[-1][:200]
    ok(run_inprocess("audit", cwd=root))


def test_the_class_field_is_not_counted_by_the_acceptance_rules(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    version = root / "drafts/bbh/version.yaml"
    version.write_text(version.read_text(encoding="utf-8") + "acceptance:\n  min_landed: 1\n  min_classes: 1\n")
    result = run_inprocess("validate", "--format", "json", cwd=root)
    assert result.code == 1, result.text
    problems = json.loads(result.out)["result"]["problems"]
    assert [p["message"] for p in problems if "class(es)" in p["message"]] == [
        "landed fixtures span 0 class(es) (none); the acceptance rules need at least 1"
    ]


def test_a_change_of_the_task_class_shows_in_the_next_version(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    cut_suite(root, "bbh", "v1")
    ok(run_inprocess("next", "--suite", "bbh", cwd=root))
    task = root / "drafts/bbh/tasks/slice_py.yaml"
    task.write_text(PY_TASK.replace("SliceTask", "WholeTask"), encoding="utf-8")
    (root / "drafts/bbh/tasks/pytask.py").write_text("class WholeTask:\n    pass\n", encoding="utf-8")
    commit_all(root, "drafts v2")
    cut_suite(root, "bbh", "v2")
    delta = json.loads((root / "versions/bbh_v2/delta.json").read_text(encoding="utf-8"))
    assert "slice_py" in json.dumps(delta)
    diff = ok(run_inprocess("diff", "bbh_v1", "bbh_v2", cwd=root))
    assert "slice_py" in diff.out
    compared = ok(run_inprocess("compare", "bbh_v1", "bbh_v2", "--format", "json", cwd=root))
    assert "slice_py" in compared.out
    ok(run_inprocess("audit", cwd=root))
