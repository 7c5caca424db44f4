"""A YAML fixture's dependency closure (issue 36, class 1, kind yaml): the Python modules its
graders and assets import within the suite are part of the fixture, for the drafts and a frozen
version alike. Changing only a module a grader imports changes exactly the fixtures whose graders
reach it, in §Delta, delta.json, ``diff``, ``compare`` and the digests; it is not a suite asset, so
every other fixture stays comparable. The generic example suite in a real git registry, the real
CLI in process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_closure_lmeval import _digests, _frozen_files
from test_delta_claims import FORMAT_4, _agree, _ok

from freezer.domain.fixturekind import CLOSURE_RULES
from freezer.kinds.base import EXTERNAL_FIELD
from freezer.kinds.yamlfiles import IMPORTED_FIELD

from registry_helpers import commit_all

GRADERS = {
    "graders/common.py": "import re\n\n\ndef words(text):\n    return re.findall(r'\\w+', text)\n",
    # Absolute, from the drafts' root: the harness runs the graders from there.
    "graders/grade_patch.py": (
        "from graders import common\n\n\ndef grade(answer):\n    return 'timeout_ms' in common.words(answer)\n"
    ),
    # A sibling, imported plainly (the grader's own folder on sys.path), reaching no common.py.
    "graders/grade_answer.py": (
        "import json\n\nimport answer_util\n\n\ndef grade(answer):\n    return answer_util.mentions(answer)\n"
    ),
    "graders/answer_util.py": "def mentions(answer):\n    return 'pipeline.rs' in answer\n",
}
LANDED = ("add-timeout-flag", "explain-pipeline")


def _suite(api: Path) -> Path:
    drafts = api / "drafts/api"
    for rel, text in GRADERS.items():
        (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts / rel).write_text(text, encoding="utf-8")
    for task, grader in (("add-timeout-flag", "grade_patch"), ("explain-pipeline", "grade_answer")):
        fixture = drafts / f"fixtures/{task}.yaml"
        fixture.write_text(fixture.read_text() + f"graders:\n  - graders/{grader}.py\n")
    commit_all(api, "graders")
    return drafts


def test_a_yaml_fixture_depends_on_what_its_graders_import(api: Path) -> None:
    _suite(api)
    _ok(api, "cut", "api_v1")
    manifest = json.loads((api / "versions/api_v1/manifest.json").read_text(encoding="utf-8"))
    assert manifest["dependency_closure"] == CLOSURE_RULES == 2
    fixtures = _frozen_files(api, "api_v1")  # read from the frozen bytes, as audit reads them
    assert fixtures["add-timeout-flag"][IMPORTED_FIELD] == ["graders/common.py"]
    assert fixtures["add-timeout-flag"][EXTERNAL_FIELD] == ["re"]
    assert fixtures["explain-pipeline"][IMPORTED_FIELD] == ["graders/answer_util.py"]
    assert fixtures["explain-pipeline"][EXTERNAL_FIELD] == ["json"]
    assert IMPORTED_FIELD not in fixtures["rename-crate"]  # names no Python file
    commit_all(api, "freeze api_v1")
    _ok(api, "audit", "api_v1")


@pytest.mark.parametrize(
    ("module", "expected"),
    [("graders/common.py", {"add-timeout-flag"}), ("graders/answer_util.py", {"explain-pipeline"})],
)
def test_changing_only_a_module_a_grader_imports_changes_exactly_the_fixtures_that_reach_it(
    api: Path, module: str, expected: set[str]
) -> None:
    drafts = _suite(api)
    _ok(api, "cut", "api_v1")
    commit_all(api, "freeze api_v1")
    digests_v1 = _digests(api, "api_v1")
    version_yaml = drafts / "version.yaml"
    version_yaml.write_text(version_yaml.read_text().replace("version: 1\n", "version: 2\n", 1))
    (drafts / module).write_text((drafts / module).read_text() + "\n# revised\n", encoding="utf-8")
    changed, delta = _agree(api, "api")  # §Delta, delta.json, diff, compare and audit agree
    assert changed == expected
    assert {c["task_id"] for c in delta["fixtures"]["changed_through_files"]} == expected
    assert "assets" not in delta["moved"], delta["moved"]
    assert delta["assets"]["claimed"] == {module: sorted(expected)}
    digests_v2 = _digests(api, "api_v2")
    assert {task for task in digests_v1 if digests_v1[task] != digests_v2[task]} == expected
    arms = json.loads(_ok(api, "compare", "api_v1", "api_v2", "--format", "json"))["result"]["arms"]
    for arm in arms:
        assert set(arm["excluded"]) <= expected, arm
        assert set(LANDED) - expected <= set(arm["comparable"]), arm
    assert any(set(arm["excluded"]) == expected for arm in arms), arms


def test_a_module_no_landed_fixture_reaches_moves_the_suite_assets(api: Path) -> None:
    """Only a dropped candidate's grader imports it: it is the suite's own file (class 3)."""
    drafts = _suite(api)
    (drafts / "graders/dropped_util.py").write_text("LIMIT = 600\n", encoding="utf-8")
    (drafts / "graders/grade_rename.py").write_text("import dropped_util\n", encoding="utf-8")
    dropped = drafts / "fixtures/rename-crate.yaml"
    dropped.write_text(dropped.read_text() + "graders:\n  - graders/grade_rename.py\n")
    commit_all(api, "a dropped candidate's grader")
    _ok(api, "cut", "api_v1")
    commit_all(api, "freeze api_v1")
    (drafts / "version.yaml").write_text((drafts / "version.yaml").read_text().replace("version: 1\n", "version: 2\n"))
    (drafts / "graders/dropped_util.py").write_text("LIMIT = 1000\n", encoding="utf-8")
    changed, delta = _agree(api, "api")
    assert changed == {"rename-crate"}
    assert "assets" in delta["moved"], delta["moved"]


def test_yaml_versions_cut_before_the_closure_keep_their_record_and_audit_clean(tmp_path: Path) -> None:
    """freezer 0.4's graph and generic versions (no dependency_closure): read by the files they name."""
    root = tmp_path / "old"
    shutil.copytree(FORMAT_4, root)
    audited = json.loads(_ok(root, "audit", "--no-code", "--format", "json"))
    assert all(v["ok"] for v in audited["result"]["versions"]), audited
    repo = Path(__file__).resolve().parent.parent  # this repository's own graph versions
    assert all("dependency_closure" not in (v / "manifest.json").read_text() for v in (repo / "versions").iterdir())
    _ok(repo, "audit", "--no-code")
