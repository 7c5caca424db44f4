"""Kind lm-eval, issue 26: one resolver for the drafts and a frozen version, group files named
``_x.yaml`` read as groups (never silently an asset), and a cut warning for each key whose value
depends on the order of a task's includes. Real files in a real git registry, no code under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.domain.manifest import FixtureKindRecord
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.kinds.base import FILES_FIELD
from freezer.kinds.catalog import read_frozen
from freezer.parse.lmeval import TaskReader
from freezer.registry.config import load_config
from freezer.validate.validate import validate_suite

from conftest import EXAMPLES, assert_clean_failure, run_inprocess
from registry_helpers import commit_all

CONFIG = """\
suites:
  bbh:
    kind: lm-eval
    drafts: drafts/bbh
    fixtures: "{glob}"
    versions: versions
"""
VERSION = """\
suite: bbh
version: {number}
title: A toy reasoning slice
purpose: >-
  Measure multi-step reasoning on a few toy tasks, with no code under test.
"""
# Two layouts: tasks beside their template and module; tasks in folders that include a shared
# template two folders away, whose !function names a dotted module beside it.
FLAT = {
    "tasks/_template.yaml": "output_type: generate_until\nprocess_docs: !function utils.clean\n",
    "tasks/utils.py": "def clean(d):\n    return d\n\ndef score(d, r):\n    return {}\n",
    "tasks/alpha.yaml": "include: _template.yaml\ntask: alpha\n",
    "tasks/beta.yaml": "include: _template.yaml\ntask: beta\nprocess_results: !function utils.score\n",
    "tasks/gamma.yaml": "task: gamma\noutput_type: multiple_choice\n",
}
NESTED = {
    "shared/_base.yaml": "dataset_path: toy/set\nnum_fewshot: 3\n",
    "shared/_template.yaml": "include: _base.yaml\nfilter: !function pkg.rules.first\n",
    "shared/pkg/rules.py": "def first(r):\n    return r[:1]\n",
    "tasks/logic/and.yaml": "include: ../../shared/_template.yaml\ntask: logic-and\n",
    "tasks/logic/or.yaml": "include: [../../shared/_base.yaml]\ntask: logic-or\n",
    "tasks/math/add.yaml": "include: ../../shared/_template.yaml\ntask: math-add\nx: !function helpers.h\n",
    "tasks/math/helpers.py": "def h(d):\n    return d\n",
}


def _registry(tmp_path: Path, files: dict[str, str], glob: str = "tasks/*.yaml") -> Path:
    root = tmp_path / "registry"
    drafts = root / "drafts" / "bbh"
    for rel, text in {"version.yaml": VERSION.format(number=1), **files}.items():
        (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts / rel).write_text(text, encoding="utf-8")
    (root / "freezer.yaml").write_text(CONFIG.format(glob=glob), encoding="utf-8")
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "drafts")
    return root


def _problems(root: Path) -> list[str]:
    return [str(p) for p in validate_suite(load_config(root / "freezer.yaml").suites["bbh"]).problems]


@pytest.mark.parametrize(
    ("files", "glob", "expected"),
    [
        (
            FLAT,
            "tasks/*.yaml",
            {
                "alpha": ["tasks/_template.yaml", "tasks/utils.py"],
                "beta": ["tasks/_template.yaml", "tasks/utils.py"],
                "gamma": [],
            },
        ),
        (
            NESTED,
            "tasks/*/*.yaml",
            {
                "logic-and": ["shared/_base.yaml", "shared/_template.yaml", "shared/pkg/rules.py"],
                "logic-or": ["shared/_base.yaml"],
                "math-add": [
                    "shared/_base.yaml",
                    "shared/_template.yaml",
                    "shared/pkg/rules.py",
                    "tasks/math/helpers.py",
                ],
            },
        ),
    ],
)
def test_drafts_and_their_frozen_version_resolve_to_the_same_files(
    tmp_path: Path, files: dict[str, str], glob: str, expected: dict[str, list[str]]
) -> None:
    root = _registry(tmp_path, files, glob)
    drafts = root / "drafts" / "bbh"
    # The drafts on disk, read by the reader over a folder.
    reader = TaskReader(drafts)
    on_disk = {}
    for rel in files:
        task = reader.read(drafts / rel)
        if task.kind == "task" and not rel.rsplit("/", 1)[-1].startswith("_"):
            on_disk[task.name] = task.relatives
    # The drafts as validate reads them (the kind over the Files view of the drafts walk).
    suite = load_config(root / "freezer.yaml").suites["bbh"]
    report = validate_suite(suite)
    assert report.problems == []
    validated = {doc.data["task_id"]: doc.data[FILES_FIELD] for doc in report.sets[0].fixtures}
    # The frozen version, read from its bytes as audit reads them.
    assert run_inprocess("cut", "v1", cwd=root).code == 0
    version = root / "versions" / "bbh_v1"
    manifest = json.loads((version / "manifest.json").read_text(encoding="utf-8"))
    listed = [*manifest["contents"]["fixtures"], *manifest["contents"]["assets"]]
    frozen_bytes = {rel: (version / rel).read_bytes() for rel in listed}
    record = FixtureKindRecord(manifest["fixture_kind"]["kind"], manifest["fixture_kind"]["fixtures"])
    found = read_frozen(record, frozen_bytes, manifest["contents"]["fixtures"])
    assert found.problems == []
    frozen = {fixture.task_id: fixture.data[FILES_FIELD] for fixture in found.fixtures}
    assert on_disk == validated == frozen == expected
    assert run_inprocess("audit", "bbh_v1", cwd=root).code == 0


GROUP = "group: toy\ntask:\n  - alpha\n  - task: beta\n    num_fewshot: 0\n  - reasoning\naggregate_metric_list:\n"
GROUP += "  - metric: exact_match\n"


def test_a_group_file_named_with_an_underscore_is_a_group_frozen_as_a_suite_asset(tmp_path: Path) -> None:
    files = {**FLAT, "tasks/gamma.yaml": "task: gamma\ntag: [reasoning]\n", "tasks/_toy.yaml": GROUP}
    files["tasks/_all.yaml"] = "group: all\ntask: [toy, gamma]\n"  # a group of a group and a task
    root = _registry(tmp_path, files)
    assert _problems(root) == []
    assert run_inprocess("cut", "v1", cwd=root).code == 0
    manifest = json.loads((root / "versions/bbh_v1/manifest.json").read_text(encoding="utf-8"))
    assert manifest["contents"]["fixtures"] == ["tasks/alpha.yaml", "tasks/beta.yaml", "tasks/gamma.yaml"]
    assert {"tasks/_toy.yaml", "tasks/_all.yaml"} <= set(manifest["contents"]["assets"])
    assert sorted(manifest["comparability"]["fixtures"]) == ["alpha", "beta", "gamma"]
    assert run_inprocess("audit", "bbh_v1", cwd=root).code == 0


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("group: toy\ntask:\n  - alpha\n  - delta\n", 4, "the group 'toy' lists 'delta', which is no task"),
        (
            "group: toy\ntask:\n  - alpha\n  - task: inline\n    dataset_path: x/y\n",
            4,
            "defines the task 'inline' inline in the group 'toy'",
        ),
        ("group: toy\ntask:\n  - alpha\n  - 7\n", 4, "each entry a name, or a mapping with task: a name"),
        ("group: toy\ntask: [alpha]\nx: !function nowhere.f\n", 3, "names no file: looked for tasks/nowhere.py"),
        ("task: hidden\noutput_type: generate_until\n", 1, "names the task 'hidden', but its file name starts"),
        ("group: toy\ntask: [alpha\n", None, "YAML"),
    ],
)
def test_a_wrong_group_file_or_a_task_named_as_one_is_refused_located(
    tmp_path: Path, text: str, line: int | None, words: str
) -> None:
    root = _registry(tmp_path, {**FLAT, "tasks/_toy.yaml": text})
    problems = _problems(root)
    assert len(problems) == 1, problems
    [problem] = problems
    file, _, rest = problem.partition(".yaml:")
    assert file.endswith("/drafts/bbh/tasks/_toy") and words in rest, problem
    assert line is None or rest.startswith(f"{line}:"), problem
    if "names the task" in words:
        assert problem.endswith("rename it toy.yaml"), problem
    assert_clean_failure(run_inprocess("cut", "v1", cwd=root))


def test_a_template_or_module_outside_the_tasks_is_never_read_as_a_group(tmp_path: Path) -> None:
    # _template.yaml (no task:, no group:) and utils.py stay plain assets: nothing to refuse.
    root = _registry(tmp_path, {**FLAT, "tasks/_notes.yaml": "just: notes\n"})
    assert _problems(root) == []


TWO_INCLUDES = {
    "tasks/_one.yaml": "num_fewshot: 1\nmetric: acc\nsplit: test\n",
    "tasks/_two.yaml": "num_fewshot: 2\nmetric: f1\nsplit: test\n",
    "tasks/both.yaml": "include: [_one.yaml, _two.yaml]\ntask: both\n",
    "tasks/settled.yaml": "include: [_one.yaml, _two.yaml]\ntask: settled\nnum_fewshot: 3\nmetric: em\n",
    "tasks/single.yaml": "include: _two.yaml\ntask: single\n",
}


def test_a_key_two_includes_set_differently_is_a_cut_warning_naming_the_file_and_key(tmp_path: Path) -> None:
    root = _registry(tmp_path, TWO_INCLUDES)
    assert _problems(root) == []
    result = run_inprocess("cut", "v1", "--format", "json", cwd=root)
    assert result.code == 0, result.text
    warnings = [w for w in json.loads(result.out)["result"]["warnings"] if "set differently" in w]
    assert len(warnings) == 2, warnings  # both.yaml: metric and num_fewshot; settled sets both itself
    for key in ("metric", "num_fewshot"):
        [warning] = [w for w in warnings if f"{key!r} is set differently" in w]
        assert warning.startswith("drafts/bbh/tasks/both.yaml: "), warning
        assert "by tasks/_one.yaml and tasks/_two.yaml" in warning and "(tasks/_two.yaml)" in warning
        assert f"set {key} in the task file itself" in warning
    # the text output says it too
    text = run_inprocess("cut", "v1", "--dry-run", cwd=root)
    assert text.code == 0 and "'num_fewshot' is set differently" in text.text, text.text


def test_the_repository_examples_validate_each_kind_suite_by_its_kind() -> None:
    result = run_inprocess("validate", str(EXAMPLES))
    assert result.code == 0, result.text
    for line in ("tb v1: 3 fixture(s)", "swe v1: 3 fixture(s)", "bbh v1: 5 fixture(s)", "bbh v2: 5 fixture(s)"):
        assert line in result.out, result.out


def test_a_version_folder_beside_a_kind_suites_drafts_is_read_by_that_kind(tmp_path: Path) -> None:
    root = _registry(tmp_path, FLAT)
    old = root / "earlier" / "v1"
    for rel, text in {"version.yaml": VERSION.format(number=1), **FLAT}.items():
        (old / rel).parent.mkdir(parents=True, exist_ok=True)
        (old / rel).write_text(text, encoding="utf-8")
    result = run_inprocess("validate", "earlier", cwd=root)
    assert result.code == 0 and "bbh v1: 3 fixture(s), 3 landed" in result.out, result.text
    # A problem there is the kind's, located in that folder (not a fixture schema's word on lm-eval YAML).
    (old / "tasks/beta.yaml").write_text("include: _missing.yaml\ntask: beta\n", encoding="utf-8")
    result = run_inprocess("validate", "earlier", cwd=root)
    assert_clean_failure(result)
    assert "earlier/v1/tasks/beta.yaml:1:" in result.out and "'_missing.yaml' names no file" in result.out, result.out
    assert "unknown field" not in result.out and "!function is not allowed" not in result.out, result.out
