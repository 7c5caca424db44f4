"""Kind lm-eval: task YAML files written for these tests, with a shared template and !function tags.

Four tasks: arith-add and arith-sub use ``!function utils.process_docs``; arith-add, arith-sub and
logic-and include ``_template.yaml``; logic-or does neither. A change of utils.py must move exactly
the first two, a change of the template exactly the first three. The suite's arm depends on the
code and the version record, not on the ``assets`` dimension: a changed asset moves that dimension
for the whole suite (an arm depending on it excludes every task), whereas these tests are about
which tasks a changed dependency moves.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from freezer.demo.samplecode import TOOL_SURFACE
from freezer.domain.manifest import FixtureKindRecord
from freezer.kinds.base import FILES_FIELD, Files
from freezer.kinds.catalog import kind_of
from freezer.registry.config import load_config
from freezer.validate.validate import validate_suite

from conftest import EXAMPLES, assert_clean_failure, run_inprocess
from registry_helpers import commit_all, snapshot

BBH_SUITE = """\
  bbh:
    kind: lm-eval
    drafts: drafts/bbh
    fixtures: "tasks/*.yaml"
{extra}    versions: versions
    arms:
      model: [binary, code, record]
    code_repo: sample-code
    tool_surface:
{globs}
"""
GLOBS = "\n".join(f"      - {glob!r}" for glob in TOOL_SURFACE)
TASKS = ("arith-add", "arith-sub", "logic-and", "logic-or")
USES_UTILS = ["arith-add", "arith-sub"]
USES_TEMPLATE = ["arith-add", "arith-sub", "logic-and"]

TEMPLATE = """\
# shared by the arith and logic tasks
dataset_path: freezer-tests/toy-reasoning
dataset_kwargs:
  revision: 0123456789abcdef0123456789abcdef01234567
output_type: generate_until
test_split: test
doc_to_target: "{{target}}"
generation_kwargs:
  until: ["\\n\\n"]
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
"""
UTILS = """\
def process_docs(dataset):
    return dataset.filter(lambda doc: doc["target"] != "")
"""


def _task_text(name: str) -> str:
    lines = [f"task: {name}"]
    if name in USES_TEMPLATE:
        lines.insert(0, "include: _template.yaml")
    else:
        lines += ["dataset_path: freezer-tests/toy-logic", "output_type: multiple_choice", "test_split: test"]
        lines += ["dataset_kwargs:", "  revision: 0123456789abcdef0123456789abcdef01234567"]
    lines.append(f"dataset_name: {name.replace('-', '_')}")
    lines.append(f'doc_to_text: "Q: {{{{input}}}} ({name})\\nA:"')
    if name in USES_UTILS:
        lines.append("process_docs: !function utils.process_docs")
    return "\n".join(lines) + "\n"


def _version_yaml(number: int) -> str:
    text = (EXAMPLES / "generic/v1/version.yaml").read_text(encoding="utf-8")
    text = text.replace("suite: api\n", "suite: bbh\n").replace("version: 1\n", f"version: {number}\n")
    return text.replace("reference: examples/generic/README.md", "reference: the tests")


def _bbh(reg: Path, extra: str = "") -> Path:
    config = reg / "freezer.yaml"
    config.write_text(config.read_text(encoding="utf-8") + BBH_SUITE.format(extra=extra, globs=GLOBS))
    drafts = reg / "drafts" / "bbh"
    (drafts / "tasks").mkdir(parents=True)
    (drafts / "version.yaml").write_text(_version_yaml(1), encoding="utf-8")
    (drafts / "tasks" / "_template.yaml").write_text(TEMPLATE, encoding="utf-8")
    (drafts / "tasks" / "utils.py").write_text(UTILS, encoding="utf-8")
    for name in TASKS:
        (drafts / "tasks" / f"{name}.yaml").write_text(_task_text(name), encoding="utf-8")
    commit_all(reg, "bbh drafts")
    return drafts


def _problems(reg: Path) -> list[str]:
    return [str(p) for p in validate_suite(load_config(reg / "freezer.yaml").suites["bbh"]).problems]


def _cut_v1(reg: Path) -> Path:
    drafts = _bbh(reg)
    cut = run_inprocess("cut", "bbh_v1", cwd=reg)
    assert cut.code == 0, cut.text
    commit_all(reg, "freeze bbh_v1")
    (drafts / "version.yaml").write_text(_version_yaml(2), encoding="utf-8")
    return drafts


def _delta_and_compare(reg: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    cut = run_inprocess("cut", "bbh_v2", cwd=reg)
    assert cut.code == 0, cut.text
    delta = json.loads((reg / "versions/bbh_v2/delta.json").read_text())["fixtures"]
    compared = run_inprocess("compare", "bbh_v1", "bbh_v2", "--format", "json", cwd=reg)
    assert compared.code == 0, compared.text
    [arm] = json.loads(compared.out)["result"]["arms"]
    for name in ("bbh_v1", "bbh_v2"):
        audit = run_inprocess("audit", name, cwd=reg)
        assert audit.code == 0, audit.text
    return delta, arm


def test_tasks_are_frozen_byte_for_byte_with_their_dependencies_listed(reg: Path) -> None:
    drafts = _bbh(reg)
    checked = run_inprocess("validate", "--suite", "bbh", "--format", "json", cwd=reg)
    assert checked.code == 0, checked.text
    assert json.loads(checked.out)["result"]["sets"][0]["fixtures"] == list(TASKS)
    assert run_inprocess("cut", "bbh_v1", cwd=reg).code == 0
    version = reg / "versions/bbh_v1"
    frozen = snapshot(version)
    for rel, data in snapshot(drafts).items():
        assert hashlib.sha256(frozen[rel]).hexdigest() == hashlib.sha256(data).hexdigest(), rel
    manifest = json.loads((version / "manifest.json").read_text())
    assert manifest["fixture_kind"] == {"kind": "lm-eval", "fixtures": "tasks/*.yaml"}
    assert manifest["checks"]["fixture_schema"]["kind"] == "lm-eval"
    assert manifest["contents"] == {
        "fixtures": [f"tasks/{name}.yaml" for name in TASKS],
        "assets": ["tasks/_template.yaml", "tasks/utils.py"],
    }
    assert sorted(manifest["comparability"]["fixtures"]) == list(TASKS)
    assert run_inprocess("audit", "bbh_v1", cwd=reg).code == 0
    shown = run_inprocess("show", "bbh_v1", "--format", "json", cwd=reg)
    assert shown.code == 0 and "arith-sub" in shown.out, shown.text


def test_a_changed_module_moves_exactly_the_tasks_whose_function_names_it(reg: Path) -> None:
    drafts = _cut_v1(reg)
    (drafts / "tasks/utils.py").write_text(UTILS.replace('!= ""', '.strip() != ""'), encoding="utf-8")
    delta, arm = _delta_and_compare(reg)
    through = {f["task_id"]: f["files"] for f in delta["changed_through_files"]}
    assert through == {name: ["tasks/utils.py"] for name in USES_UTILS}
    assert delta["changed"] == [] and delta["added"] == [] and delta["removed"] == []
    excluded = arm["excluded"]
    assert sorted(excluded) == USES_UTILS, excluded
    for name in USES_UTILS:
        assert "its file tasks/utils.py changed" in excluded[name], excluded
    assert arm["comparable"] == ["logic-and", "logic-or"]


def test_a_changed_template_moves_exactly_the_tasks_that_include_it(reg: Path) -> None:
    drafts = _cut_v1(reg)
    template = drafts / "tasks/_template.yaml"
    template.write_text(TEMPLATE.replace("do_sample: false", "do_sample: false\n  max_gen_toks: 64"))
    delta, arm = _delta_and_compare(reg)
    through = {f["task_id"]: f["files"] for f in delta["changed_through_files"]}
    assert through == {name: ["tasks/_template.yaml"] for name in USES_TEMPLATE}
    changed = {f["task_id"]: [c["path"] for c in f["fields"]] for f in delta["changed"]}
    # The merged task is the parsed fixture: the included key is a field change of each includer.
    assert changed == {name: ["$.generation_kwargs.max_gen_toks"] for name in USES_TEMPLATE}
    excluded = arm["excluded"]
    assert sorted(excluded) == USES_TEMPLATE
    assert arm["comparable"] == ["logic-or"]


def test_a_changed_function_reference_is_a_field_change_in_canonical_form(reg: Path) -> None:
    drafts = _cut_v1(reg)
    (drafts / "tasks/utils.py").write_text(UTILS + "\n\ndef keep_all(dataset):\n    return dataset\n")
    task = drafts / "tasks/arith-sub.yaml"
    task.write_text(task.read_text().replace("utils.process_docs", "utils.keep_all"))
    delta, _ = _delta_and_compare(reg)
    [entry] = delta["changed"]
    assert entry["task_id"] == "arith-sub"
    [field] = entry["fields"]
    assert field["path"] == "$.process_docs.!function", field
    assert "utils.keep_all" in json.dumps(field) and "utils.process_docs" in json.dumps(field), field


def test_group_files_templates_cycles_and_escaping_includes_are_refused_located(reg: Path) -> None:
    drafts = _bbh(reg)
    tasks = drafts / "tasks"
    # A group file, named without lm-eval's '_': read as a group, and its entries checked.
    (tasks / "bbh-group.yaml").write_text("group: toy\ntask:\n  - arith-add\n  - arith-mul\n")
    (tasks / "base.yaml").write_text("output_type: generate_until\n")
    (tasks / "loop-a.yaml").write_text("include: _loop_b.yaml\ntask: loop-a\n")
    (tasks / "_loop_b.yaml").write_text("output_type: generate_until\ninclude: loop-a.yaml\n")
    (tasks / "escape.yaml").write_text("task: escape\ninclude: ../../../outside.yaml\n")
    (tasks / "nomodule.yaml").write_text("task: nomodule\nprocess_docs: !function helpers.process_docs\n")
    problems = sorted(_problems(reg))
    shown = str(tasks)
    assert len(problems) == 5, problems
    by_file = {p.split(":", 1)[0]: p for p in problems}
    assert (
        by_file[f"{shown}/base.yaml"].startswith(f"{shown}/base.yaml:")
        and "a template" in by_file[f"{shown}/base.yaml"]
    )
    assert by_file[f"{shown}/bbh-group.yaml"].startswith(f"{shown}/bbh-group.yaml:4:"), problems
    assert "lists 'arith-mul', which is no task, group or tag" in by_file[f"{shown}/bbh-group.yaml"]
    cycle = by_file[f"{shown}/_loop_b.yaml"]
    assert cycle.startswith(f"{shown}/_loop_b.yaml:2:") and "include cycle" in cycle, problems
    escape = by_file[f"{shown}/escape.yaml"]
    assert escape.startswith(f"{shown}/escape.yaml:2:") and "leaves the drafts" in escape, problems
    missing = by_file[f"{shown}/nomodule.yaml"]
    assert missing.startswith(f"{shown}/nomodule.yaml:2:") and "tasks/helpers.py" in missing, problems
    assert_clean_failure(run_inprocess("cut", "bbh_v1", cwd=reg))


def test_config_rules_of_the_kind(reg: Path) -> None:
    _bbh(reg, extra="    task_id: name\n")
    result = run_inprocess("validate", "--suite", "bbh", cwd=reg)
    assert_clean_failure(result)
    assert "kind lm-eval has no task_id" in result.text
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("    task_id: name\n", "").replace('"tasks/*.yaml"', '"tasks/"'))
    result = run_inprocess("validate", "--suite", "bbh", cwd=reg)
    assert_clean_failure(result)
    assert "a glob ending in '/' names folders" in result.text


def test_dropped_tasks_by_list(reg: Path) -> None:
    _bbh(reg, extra="    dropped: [logic-or]\n")
    assert _problems(reg) == []
    assert run_inprocess("cut", "bbh_v1", cwd=reg).code == 0
    manifest = json.loads((reg / "versions/bbh_v1/manifest.json").read_text())
    assert sorted(manifest["comparability"]["fixtures"]) == ["arith-add", "arith-sub", "logic-and"]
    assert manifest["fixture_kind"]["dropped"] == ["logic-or"]
    assert run_inprocess("audit", "bbh_v1", cwd=reg).code == 0


def _read_kind(root: Path) -> tuple[list[tuple[str, list[str], object]], list[str]]:
    record = FixtureKindRecord("lm-eval", "tasks/*.yaml")
    every = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    kind = kind_of(record)
    claimed = [rel for rel in every if kind.claims(rel)]
    others = [rel for rel in every if rel not in claimed]
    found = kind.read(Files(claimed, lambda rel, _limit: (root / rel).read_bytes(), others=others))
    fixtures = [(f.task_id, f.data[FILES_FIELD], f.data.get("process_docs")) for f in found.fixtures]
    return fixtures, [str(p) for p in found.problems]


def test_a_function_in_an_included_file_names_a_module_beside_that_file(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "shared" / "pkg").mkdir(parents=True)
    (tmp_path / "shared" / "_base.yaml").write_text(
        "process_docs: !function helpers.clean\noutput_type: loglikelihood\n"
    )
    (tmp_path / "shared" / "helpers.py").write_text("def clean(d):\n    return d\n")
    (tmp_path / "shared" / "pkg" / "mod.py").write_text("def f(d):\n    return d\n")
    (tmp_path / "tasks" / "one.yaml").write_text("include: ../shared/_base.yaml\ntask: one\n")
    (tmp_path / "tasks" / "two.yaml").write_text(
        "include: ../shared/_base.yaml\ntask: two\nprocess_docs: !function x.y\n"
    )
    (tmp_path / "tasks" / "x.py").write_text("def y(d):\n    return d\n")
    (tmp_path / "tasks" / "three.yaml").write_text("task: three\nfilter: !function ../shared/pkg.mod.f\n")
    fixtures, problems = _read_kind(tmp_path)
    assert fixtures[:2] == [
        ("one", ["shared/_base.yaml", "shared/helpers.py"], {"!function": "helpers.clean"}),
        # The task's own key overrides the template's; the template's module is still a dependency.
        ("two", ["shared/_base.yaml", "shared/helpers.py", "tasks/x.py"], {"!function": "x.y"}),
    ]
    [refused] = problems  # a module name is a dotted identifier, never a path
    assert refused.startswith("tasks/three.yaml:2:") and "does not name a function" in refused, refused
    (tmp_path / "tasks" / "three.yaml").write_text("task: three\nfilter: !function ghost.f\ninclude: _none.yaml\n")
    fixtures, problems = _read_kind(tmp_path)
    assert [task for task, _, _ in fixtures] == ["one", "two"]
    assert len(problems) == 2 and all(p.startswith("tasks/three.yaml:") for p in problems), problems
    assert any("tasks/ghost.py" in p for p in problems) and any("'_none.yaml' names no file" in p for p in problems)


def test_with_the_default_arm_only_a_file_no_task_claims_moves_the_whole_suite(reg: Path) -> None:
    config = reg / "freezer.yaml"
    drafts = _bbh(reg)
    arms = "    arms:\n      model: [binary, code, record]\n"
    config.write_text(config.read_text(encoding="utf-8").replace(arms, ""))
    (drafts / "NOTES.md").write_text("how the sweep runs\n", encoding="utf-8")  # a file no task names
    commit_all(reg, "default arm")
    assert run_inprocess("cut", "bbh_v1", cwd=reg).code == 0
    commit_all(reg, "freeze bbh_v1")
    (drafts / "version.yaml").write_text(_version_yaml(2), encoding="utf-8")
    (drafts / "tasks/utils.py").write_text(UTILS.replace('!= ""', '.strip() != ""'), encoding="utf-8")
    _, arm = _delta_and_compare(reg)
    assert arm["arm"] == "all" and "assets" in arm["depends_on"], arm
    # utils.py is the two tasks' own file: it moves them, not the suite.
    assert sorted(arm["excluded"]) == USES_UTILS, arm["excluded"]
    assert arm["comparable"] == ["logic-and", "logic-or"]
    commit_all(reg, "freeze bbh_v2")
    (drafts / "version.yaml").write_text(_version_yaml(3), encoding="utf-8")
    (drafts / "NOTES.md").write_text("how the sweep runs, revised\n", encoding="utf-8")
    assert run_inprocess("cut", "bbh_v3", cwd=reg).code == 0
    compared = run_inprocess("compare", "bbh_v2", "bbh_v3", "--format", "json", cwd=reg)
    [arm] = json.loads(compared.out)["result"]["arms"]
    assert arm["comparable"] == [], arm  # a suite asset no task claims moved: every score depends on it
    assert all("assets (NOTES.md changed)" in why for why in arm["excluded"].values()), arm["excluded"]
