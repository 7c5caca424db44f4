"""Issue 36, class 1, imports written as calls: ``importlib.import_module("graders.common")`` or
``__import__("answer_util")`` with a literal module is followed like an import statement; with a
module computed at run time (``import_module(name)``) the fixture's closure is unknown, recorded as
``dynamic:<path>`` and said as "cannot tell" in ``compare``, never "did not move"."""

from __future__ import annotations

import json
from pathlib import Path

from test_closure_lmeval import _frozen_files
from test_closure_yaml import _suite
from test_delta_claims import _agree, _ok

from freezer.kinds.base import EXTERNAL_FIELD
from freezer.kinds.yamlfiles import IMPORTED_FIELD
from freezer.parse.pyimports import Imported, imports

from conftest import run_inprocess
from registry_helpers import commit_all

CALLS = {
    # the literal module of a call, from the drafts' root as the statement form would be
    "graders/grade_patch.py": (
        "import importlib\n\n\ndef grade(answer):\n"
        "    common = importlib.import_module('graders.common')\n"
        "    return 'timeout_ms' in common.words(answer)\n"
    ),
    # a module chosen at run time: what it loads cannot be known
    "graders/grade_answer.py": (
        "from importlib import import_module\n\n\ndef grade(answer, checker='answer_util'):\n"
        "    return import_module(checker).mentions(answer)\n"
    ),
}


def test_import_calls_are_read_as_imports() -> None:
    source = (
        b"import importlib\n\ndef f(name):\n    importlib.import_module('pkg.mod')\n"
        b"    import_module('.helpers', __package__)\n    __import__('util')\n    return __import__(name)\n"
    )
    found = [i for i in imports(source) or () if i.call]
    assert found == [
        Imported("pkg.mod", call=True),
        Imported("helpers", 1, call=True),
        Imported("util", call=True),
        Imported("", call=True, at_run_time=True),
    ]


def _with_calls(api: Path) -> Path:
    drafts = _suite(api)
    for rel, text in CALLS.items():
        (drafts / rel).write_text(text, encoding="utf-8")
    commit_all(api, "graders import through calls")
    return drafts


def test_a_literal_import_call_is_followed_and_a_computed_one_is_unknown(api: Path) -> None:
    drafts = _with_calls(api)
    cut = run_inprocess("cut", "api_v1", cwd=api)
    assert cut.code == 0, cut.text
    said = cut.text
    commit_all(api, "freeze api_v1")
    warned = [line for line in said.splitlines() if "imports a module named at run time" in line]
    assert len(warned) == 1 and "graders/grade_answer.py" in warned[0] and "explain-pipeline" in warned[0], said
    fixtures = _frozen_files(api, "api_v1")
    assert fixtures["add-timeout-flag"][IMPORTED_FIELD] == ["graders/common.py"]
    assert "graders/answer_util.py" not in fixtures["explain-pipeline"].get(IMPORTED_FIELD, [])
    assert "dynamic:graders/grade_answer.py" in fixtures["explain-pipeline"][EXTERNAL_FIELD]
    # only common.py changes: the fixture whose grader loads it by a literal call moves
    version_yaml = drafts / "version.yaml"
    version_yaml.write_text(version_yaml.read_text().replace("version: 1\n", "version: 2\n", 1))
    common = drafts / "graders/common.py"
    common.write_text(common.read_text() + "\n# revised\n", encoding="utf-8")
    changed, delta = _agree(api, "api")
    assert changed == {"add-timeout-flag"}
    assert "assets" not in delta["moved"], delta["moved"]
    (unknown,) = [u for u in delta["unknown"] if u["dimension"] == "fixture set"]
    assert unknown["why"].startswith("api_v2: task explain-pipeline: graders/grade_answer.py imports a module")
    method = (api / "versions/api_v2/METHOD.md").read_text(encoding="utf-8")
    assert "- **fixture set**: api_v2: task explain-pipeline: graders/grade_answer.py imports a module" in method
    arms = json.loads(_ok(api, "compare", "api_v1", "api_v2", "--format", "json"))["result"]["arms"]
    for arm in arms:
        # nothing of explain-pipeline's files changed, yet what its grader loads is unknown
        why = arm["excluded"].get("explain-pipeline", "")
        assert "cannot tell" in why and "graders/grade_answer.py" in why, arm
        assert "explain-pipeline" not in arm["comparable"]


def test_a_task_that_loads_a_module_named_at_run_time_never_reads_as_unchanged(api: Path) -> None:
    """Nothing of the fixtures' files changes between the versions: §Delta still cannot say the fixture
    set did not move, because what explain-pipeline's grader loads is chosen at run time."""
    drafts = _with_calls(api)
    assert run_inprocess("cut", "api_v1", cwd=api).code == 0
    commit_all(api, "freeze api_v1")
    version_yaml = drafts / "version.yaml"
    version_yaml.write_text(version_yaml.read_text().replace("version: 1\n", "version: 2\n", 1))

    changed, delta = _agree(api, "api")

    assert changed == set()
    assert "fixture set" not in delta["moved"] and "fixture set" not in delta["unmoved"], delta
    assert any(u["dimension"] == "fixture set" and "explain-pipeline" in u["why"] for u in delta["unknown"])
    method = (api / "versions/api_v2/METHOD.md").read_text(encoding="utf-8")
    did_not = next(line for line in method.splitlines() if line.startswith("These did not:"))
    assert "fixture set" not in did_not
