"""A task's dependency closure, kind lm-eval (issue 36, classes 1 and 2): the Python modules its
``!function`` modules import within the suite, followed file by file, and the modules a group file's
entry overrides it with, are part of the task. Changing only one of them changes exactly the tasks
that reach it, in §Delta, delta.json, ``diff``, ``compare`` and the digests; every other task stays
comparable under the default arm. Real files in a real git registry, the real CLI in process.

The family has the shape of upstream lm-evaluation-harness's ``ifeval`` (``utils.py`` imports
``instructions_registry`` by ``lm_eval.tasks.ifeval``, which imports ``instructions``, which imports
``instructions_util``), written here in a few lines of our own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import test_kind_lmeval_groups as groups
from test_delta_claims import FORMAT_4, _agree, _ok
from test_demo_own_formats import MOVED_BY_UTILS

from freezer.domain.fixturekind import CLOSURE_RULES
from freezer.domain.manifest import FixtureKindRecord
from freezer.kinds.base import EXTERNAL_FIELD, FILES_FIELD
from freezer.kinds.catalog import read_frozen

from registry_helpers import commit_all

# Every toy dataset is pinned by commit: one read at no pinned revision is unknown, so compare
# could call no task comparable, whatever file moved.
PINNED = "dataset_kwargs:\n  revision: 0123456789abcdef0123456789abcdef01234567\n"

IFEVAL = {
    "tasks/ifeval.yaml": "task: ifeval\ndataset_path: toy/ifeval\n"
    + PINNED
    + "process_results: !function utils.process_results\n",
    "tasks/utils.py": (
        "import dataclasses\n\nfrom lm_eval.tasks.ifeval import instructions_registry\n\n\n"
        "def process_results(doc, results):\n    return instructions_registry.check(doc, results)\n"
    ),
    "tasks/instructions_registry.py": (
        "from lm_eval.tasks.ifeval import instructions\n\n\n"
        "def check(doc, results):\n    return instructions.follow(doc, results)\n"
    ),
    "tasks/instructions.py": (
        "import langdetect\n\nfrom lm_eval.tasks.ifeval import instructions_util\n\n\n"
        "def follow(doc, results):\n    return instructions_util.count_words(results[0]) > 3\n"
    ),
    "tasks/instructions_util.py": (
        "import functools\n\n\ndef count_words(text):\n    import nltk\n\n    return len(nltk.word_tokenize(text))\n"
    ),
    # lm-eval's sys.path idiom: the module's folder on the path, then a plain import of a sibling.
    "tasks/logic.yaml": "task: logic\ndataset_path: toy/logic\n"
    + PINNED
    + "process_results: !function logic_utils.score\n",
    "tasks/logic_utils.py": (
        "import os\nimport sys\n\nsys.path.append(os.path.dirname(__file__))\n\nimport helpers  # noqa: E402\n\n\n"
        "def score(doc, results):\n    return {'acc': helpers.same(doc, results)}\n"
    ),
    "tasks/helpers.py": "def same(doc, results):\n    return doc['target'] == results[0]\n",
    # A package beside the task, importing its sibling relatively.
    "tasks/arith.yaml": "task: arith\ndataset_path: toy/arith\n"
    + PINNED
    + "process_docs: !function pkg.scoring.clean\n",
    "tasks/pkg/__init__.py": "",
    "tasks/pkg/scoring.py": "from . import common\n\n\ndef clean(dataset):\n    return common.strip(dataset)\n",
    "tasks/pkg/common.py": "def strip(dataset):\n    return dataset\n",
    # A group overriding one task's process_results with a module of its own (class 2).
    "tasks/boolean.yaml": "task: boolean\ndataset_path: toy/boolean\n" + PINNED,
    "tasks/plain.yaml": "task: plain\ndataset_path: toy/plain\n" + PINNED,
    "tasks/_toy.yaml": (
        "group: toy\ntask:\n  - task: boolean\n    process_results: !function group_utils.exact_tokens\n  - plain\n"
    ),
    "tasks/group_utils.py": (
        "import tokens\n\n\ndef exact_tokens(doc, results):\n    return tokens.same(doc, results)\n"
    ),
    "tasks/tokens.py": "def same(doc, results):\n    return doc == results\n",
}
EXPECTED_FILES = {
    "ifeval": [
        "tasks/instructions.py",
        "tasks/instructions_registry.py",
        "tasks/instructions_util.py",
        "tasks/utils.py",
    ],
    "logic": ["tasks/helpers.py", "tasks/logic_utils.py"],
    "arith": ["tasks/pkg/__init__.py", "tasks/pkg/common.py", "tasks/pkg/scoring.py"],
    "boolean": ["tasks/group_utils.py", "tasks/tokens.py"],
    "plain": [],
}


def _family(tmp_path: Path) -> Path:
    return groups._registry(tmp_path, IFEVAL)


def _frozen_files(root: Path, name: str, closure: int | None = None) -> dict[str, dict[str, Any]]:
    """The parsed fixtures of a frozen version read from its bytes as audit reads them; ``closure``
    reads them under other closure rules than the manifest's."""
    version = root / "versions" / name
    manifest = json.loads((version / "manifest.json").read_text(encoding="utf-8"))
    listed = [*manifest["contents"]["fixtures"], *manifest["contents"]["assets"]]
    data = {rel: (version / rel).read_bytes() for rel in listed}
    record = FixtureKindRecord.of_manifest(manifest)
    if closure is not None:
        record = FixtureKindRecord(record.kind, record.fixtures, closure=closure)
    found = read_frozen(record, data, manifest["contents"]["fixtures"])
    assert found.problems == []
    return {fixture.task_id: fixture.data for fixture in found.fixtures}


def test_a_task_depends_on_every_module_its_modules_import_and_its_group_overrides(tmp_path: Path) -> None:
    root = _family(tmp_path)
    assert groups._problems(root) == []
    _ok(root, "cut", "bbh_v1")
    manifest = json.loads((root / "versions/bbh_v1/manifest.json").read_text(encoding="utf-8"))
    assert manifest["dependency_closure"] == CLOSURE_RULES == 2
    fixtures = _frozen_files(root, "bbh_v1")
    assert {task: data[FILES_FIELD] for task, data in fixtures.items()} == EXPECTED_FILES
    # What the closure needs from outside the suite is kept by name, never dropped.
    assert fixtures["ifeval"][EXTERNAL_FIELD] == ["dataclasses", "functools", "langdetect", "nltk"]
    assert fixtures["logic"][EXTERNAL_FIELD] == ["os", "sys"]
    assert EXTERNAL_FIELD not in fixtures["plain"] and EXTERNAL_FIELD not in fixtures["arith"]
    commit_all(root, "freeze bbh_v1")
    _ok(root, "audit", "bbh_v1")


@pytest.mark.parametrize(
    ("sibling", "expected"),
    [
        ("tasks/instructions_util.py", {"ifeval"}),  # three imports away, by lm_eval.tasks.ifeval
        ("tasks/instructions_registry.py", {"ifeval"}),
        ("tasks/helpers.py", {"logic"}),  # after the sys.path idiom
        ("tasks/pkg/common.py", {"arith"}),  # from . import common
        ("tasks/group_utils.py", {"boolean"}),  # a group's override of one task (class 2)
        ("tasks/tokens.py", {"boolean"}),  # what the override module imports
    ],
)
def test_changing_only_a_sibling_module_changes_exactly_the_tasks_that_reach_it(
    tmp_path: Path, sibling: str, expected: set[str]
) -> None:
    root = _family(tmp_path)
    drafts = root / "drafts/bbh"
    _ok(root, "cut", "bbh_v1")
    commit_all(root, "freeze bbh_v1")
    digests_v1 = _digests(root, "bbh_v1")
    (drafts / "version.yaml").write_text(groups.VERSION.format(number=2), encoding="utf-8")
    (drafts / sibling).write_text((drafts / sibling).read_text(encoding="utf-8") + "\n# revised\n")
    changed, delta = _agree(root, "bbh")  # §Delta, delta.json, diff, compare and audit agree
    assert changed == expected
    assert {c["task_id"] for c in delta["fixtures"]["changed_through_files"]} == expected
    assert "assets" not in delta["moved"], delta["moved"]
    assert delta["assets"]["claimed"] == {sibling: sorted(expected)}
    digests_v2 = _digests(root, "bbh_v2")
    assert {task for task in digests_v1 if digests_v1[task] != digests_v2[task]} == expected
    # The default arm (every dimension, assets among them): every other task stays comparable.
    [arm] = json.loads(_ok(root, "compare", "bbh_v1", "bbh_v2", "--format", "json"))["result"]["arms"]
    assert set(arm["excluded"]) == expected, arm
    assert set(arm["comparable"]) == set(EXPECTED_FILES) - expected, arm


def _digests(root: Path, name: str) -> dict[str, Any]:
    shown = json.loads(_ok(root, "show", name, "--format", "json"))
    return {task: record["score"] for task, record in shown["result"]["fixture_digests"].items()}


def test_a_version_cut_before_the_closure_is_read_by_its_own_rules(tmp_path: Path) -> None:
    """A manifest without ``dependency_closure`` (every version freezer 0.4 cut) reads as it was
    cut: each task depends on the files it names, so its recorded digests and delta stand."""
    root = _family(tmp_path)
    _ok(root, "cut", "bbh_v1")
    manifest = json.loads((root / "versions/bbh_v1/manifest.json").read_text(encoding="utf-8"))
    del manifest["dependency_closure"]
    assert FixtureKindRecord.of_manifest(manifest).closure == 0
    named = _frozen_files(root, "bbh_v1", closure=0)
    assert named["ifeval"][FILES_FIELD] == ["tasks/utils.py"]
    assert named["boolean"][FILES_FIELD] == [] and EXTERNAL_FIELD not in named["ifeval"]


def test_the_audit_of_a_version_cut_before_the_closure_says_once_that_its_record_stands(tmp_path: Path) -> None:
    """freezer 0.4's bbh versions (tests/cases/format-4-registry): their tasks named utils.py, which
    imports ``re``; today's rules would list it, so the audit passes and says so, once per version."""
    root = tmp_path / "old"
    shutil.copytree(FORMAT_4, root)
    audited = json.loads(_ok(root, "audit", "--no-code", "--format", "json"))
    versions = {v["name"]: v for v in audited["result"]["versions"]}
    assert all(v["ok"] for v in versions.values()), versions
    for name in ("bbh_v1", "bbh_v2"):
        notes = [json.dumps(check) for check in versions[name]["checks"] if "followed Python imports" in str(check)]
        assert len(notes) == 1, versions[name]["checks"]
        assert all(task in notes[0] for task in MOVED_BY_UTILS), notes
    for name in ("tb_v1", "tb_v2"):  # a kind whose tasks name every file they use: nothing to say
        assert "followed Python imports" not in json.dumps(versions[name]["checks"])
