"""lm-eval task YAML read as data: !function kept as a reference, includes resolved, nothing executed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from freezer.parse.lmeval import MAX_INCLUDE_DEPTH, LmEvalTask, TaskReader
from freezer.parse.lmevalyaml import FunctionRef, load_bytes

# A module that leaves a mark when imported: freezer must never import it.
TRAP = "import pathlib\npathlib.Path(__file__).with_name('IMPORTED').write_text('ran')\ndef process_docs(d): return d\n"


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def read(root: Path, name: str) -> LmEvalTask:
    return TaskReader(root).read(root / name)


def relatives(task: LmEvalTask) -> list[str]:
    return [dependency.relative for dependency in task.dependencies]


def problems(task: LmEvalTask) -> list[str]:
    return [str(problem) for problem in task.problems]


def test_function_tags_become_references_and_their_modules_dependencies(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "drafts",
        {
            "bbh/boolean.yaml": "task: bbh_boolean\nprocess_docs: !function utils.process_docs\n"
            "filter_list:\n  - filter: [!function utils.extract, {x: 1}]\n",
            "bbh/utils.py": TRAP,
        },
    )
    task = read(root, "bbh/boolean.yaml")
    assert task.problems == []
    assert (task.kind, task.name) == ("task", "bbh_boolean")
    assert task.merged["process_docs"] == FunctionRef("utils", "process_docs", "utils.process_docs")
    assert task.merged["filter_list"][0]["filter"][0] == FunctionRef("utils", "extract", "utils.extract")
    assert relatives(task) == ["bbh/utils.py"]  # named twice, depended on once
    assert task.files == ((root / "bbh/utils.py").resolve(),)
    assert not (root / "bbh" / "IMPORTED").exists()  # read, never imported


def test_a_file_without_function_tags_loads_as_plain_yaml() -> None:
    result = load_bytes(b"task: plain\nnum_fewshot: 3\n", "plain.yaml")
    assert result.problems == [] and result.document is not None
    assert result.document.data == {"task": "plain", "num_fewshot": 3}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("task: t\nx: !!python/object:os.system ls\n", "YAML tag !!python/object:os.system is not allowed"),
        ("task: t\nx: !include other.yaml\n", "YAML tag !include is not allowed"),
        ("task: t\nf: !function utils.f\nx: !functions utils.f\n", "YAML tag !functions is not allowed"),
        ("task: t\nx: !function {a: 1}\n", "YAML tag !function is not allowed"),  # a mapping is not a name
        ("task: t\nx: !function &a utils.f\n", "YAML anchor &a is not allowed"),
        ("task: t\n? !function utils.f\n: 1\n", "a !function cannot be a mapping key"),
    ],
)
def test_every_other_tag_is_still_refused_located(text: str, words: str) -> None:
    result = load_bytes(text.encode(), "t.yaml")
    assert result.document is None
    assert any(words in problem.message and problem.line is not None for problem in result.problems)


def test_a_syntax_error_beside_a_function_tag_is_located_and_the_tag_not_blamed() -> None:
    result = load_bytes(b"task: t\nf: !function utils.f\nx: [1, 2\n", "t.yaml")
    assert result.document is None
    assert [p.message.startswith("YAML syntax") for p in result.problems] == [True]
    assert result.problems[0].line == 4 or result.problems[0].line == 3


def test_a_shared_template_is_included_recursively_and_overridden(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "drafts",
        {
            "_shared/_base.yaml": "dataset_path: example/bbh\nnum_fewshot: 3\noutput_type: generate_until\n",
            "_shared/_template.yaml": "include: _base.yaml\nnum_fewshot: 5\n"
            "process_results: !function metrics.score\ntask_list: [x]\n",
            "_shared/metrics.py": "def score(d, r): return {}\n",
            "bbh/a.yaml": "include: ../_shared/_template.yaml\ntask: bbh_a\noutput_type: multiple_choice\n",
            "bbh/b.yaml": "include: [../_shared/_template.yaml]\ntask: bbh_b\n",
        },
    )
    reader = TaskReader(root)
    a, b = reader.read(root / "bbh/a.yaml"), reader.read(root / "bbh/b.yaml")
    assert a.problems == [] and b.problems == []
    assert a.merged == {
        "dataset_path": "example/bbh",
        "num_fewshot": 5,  # the template overrides its base
        "output_type": "multiple_choice",  # the task overrides both
        "process_results": FunctionRef("metrics", "score", "metrics.score"),
        "task": "bbh_a",
    }  # no include: key, and no task_list inherited
    assert b.merged["output_type"] == "generate_until" and b.merged["num_fewshot"] == 5
    # The module is resolved beside the template that names it, not beside the task.
    assert relatives(a) == ["_shared/_template.yaml", "_shared/metrics.py", "_shared/_base.yaml"]
    assert relatives(b) == relatives(a)
    assert [d.named_by for d in a.dependencies] == ["bbh/a.yaml", "_shared/_template.yaml", "_shared/_template.yaml"]


def test_a_later_include_overrides_an_earlier_one_and_the_conflict_is_named(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "one.yaml": "num_fewshot: 1\nmetric: acc\nsame: x\n",
            "two.yaml": "num_fewshot: 2\nmetric: f1\nsame: x\n",
            "t.yaml": "include: [one.yaml, two.yaml]\ntask: t\nmetric: em\n",
        },
    )
    task = read(root, "t.yaml")
    assert task.merged["num_fewshot"] == 2 and task.merged["metric"] == "em"
    assert task.order_dependent == ("num_fewshot",)  # metric is the task's own; same agrees


def test_a_diamond_of_includes_is_not_a_cycle(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {"d.yaml": "x: 1\n", "b.yaml": "include: d.yaml\n", "c.yaml": "include: d.yaml\n"}
        | {"t.yaml": "include: [b.yaml, c.yaml]\ntask: t\n"},
    )
    task = read(root, "t.yaml")
    assert task.problems == [] and task.merged == {"x": 1, "task": "t"}
    assert [path.name for path in task.files] == ["b.yaml", "d.yaml", "c.yaml"]


@pytest.mark.parametrize(
    ("files", "where", "cycle"),
    [
        ({"t.yaml": "task: t\ninclude: t.yaml\n"}, "t.yaml:2:1: $.include:", "t.yaml -> t.yaml"),
        (
            {"t.yaml": "include: [a.yaml]\ntask: t\n", "a.yaml": "include: b.yaml\n", "b.yaml": "include: a.yaml\n"},
            "b.yaml:1:1: $.include:",
            "a.yaml -> b.yaml -> a.yaml",
        ),
    ],
)
def test_an_include_cycle_is_refused_where_it_closes(
    tmp_path: Path, files: dict[str, str], where: str, cycle: str
) -> None:
    task = read(tree(tmp_path, files), "t.yaml")
    found = problems(task)
    assert len(found) == 1
    assert found[0].endswith(f"include cycle: {cycle}; no file may include itself, directly or through others")
    assert found[0].split(" ", 1)[0].endswith(where.split(" ", 1)[0])


def test_includes_deeper_than_the_limit_are_refused(tmp_path: Path) -> None:
    count = MAX_INCLUDE_DEPTH + 3
    files = {f"f{n}.yaml": f"include: f{n + 1}.yaml\nk{n}: {n}\n" for n in range(count)} | {
        f"f{count}.yaml": "end: 1\n"
    }
    found = problems(read(tree(tmp_path, files), "f0.yaml"))
    assert len(found) == 1 and f"includes nested deeper than {MAX_INCLUDE_DEPTH} files" in found[0]


def test_includes_that_leave_the_root_or_name_no_file_are_refused_located(tmp_path: Path) -> None:
    root = tree(tmp_path / "drafts", {"ok.yaml": "x: 1\n"})
    (tmp_path / "outside.yaml").write_text("secret: 1\n")
    (root / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    (root / "inner-link.yaml").symlink_to(root / "ok.yaml")
    (root / "folder.yaml").mkdir()
    tree(
        root,
        {
            "t.yaml": "task: t\ninclude:\n  - ../outside.yaml\n  - /etc/passwd\n  - missing.yaml\n  - link.yaml\n"
            "  - inner-link.yaml\n  - folder.yaml\n  - 7\n  - ok.yaml\n"
        },
    )
    task = read(root, "t.yaml")
    found = {problem.line or 0: problem.message for problem in task.problems}
    assert sorted(found) == [3, 4, 5, 6, 7, 8, 9]
    assert "include '../outside.yaml' leaves the drafts" in found[3]
    assert "is an absolute path" in found[4]
    assert "include 'missing.yaml' names no file (looked for missing.yaml" in found[5]
    assert "leaves the drafts" in found[6]  # a link out of the drafts
    assert "is a symbolic link" in found[7]  # a link inside them: files are frozen as they are
    assert "not a regular file" in found[8]
    assert "names a file" in found[9]
    assert all(problem.file.endswith("t.yaml") and problem.col == 5 for problem in task.problems)
    assert relatives(task) == ["ok.yaml"] and task.merged["x"] == 1
    assert not any("secret" in str(value) for value in task.merged.values())


def test_a_task_file_outside_the_root_or_linked_is_refused(tmp_path: Path) -> None:
    tree(tmp_path, {"drafts/real.yaml": "task: real\n", "elsewhere/t.yaml": "task: t\n"})
    (tmp_path / "drafts/linked.yaml").symlink_to(tmp_path / "drafts/real.yaml")
    reader = TaskReader(tmp_path / "drafts")
    outside, linked = reader.read(tmp_path / "elsewhere/t.yaml"), reader.read(tmp_path / "drafts/linked.yaml")
    assert outside.kind is None and "is outside" in problems(outside)[0]
    assert linked.kind is None and "is a symbolic link" in problems(linked)[0]
    assert reader.read(tmp_path / "drafts/real.yaml").name == "real"


def test_function_modules_that_are_missing_or_leave_the_root_are_refused_located(tmp_path: Path) -> None:
    root = tree(tmp_path / "drafts", {"tasks/real.py": "def f(d): return d\n"})
    (tmp_path / "evil.py").write_text(TRAP)
    (root / "tasks/linked.py").symlink_to(tmp_path / "evil.py")
    tree(
        root,
        {
            "tasks/t.yaml": "task: t\n"
            "a: !function missing.process_docs\n"
            "b: !function linked.process_docs\n"
            "c: !function process_docs\n"
            "d: !function ..evil.process_docs\n"
            "e: !function real.f\n"
            "f: !function lm_eval.tasks.installed.utils.f\n",
        },
    )
    task = read(root, "tasks/t.yaml")
    found = {problem.path: (problem.line, problem.message) for problem in task.problems}
    assert sorted(found) == [("a",), ("b",), ("c",), ("d",), ("f",)]
    assert found[("a",)][0] == 2 and "names no file: looked for tasks/missing.py" in found[("a",)][1]
    assert "leaves the drafts" in found[("b",)][1]
    assert "does not name a function as module.function" in found[("c",)][1]
    assert "does not name a function as module.function" in found[("d",)][1]
    assert "lm_eval/tasks/installed/utils.py or tasks/lm_eval.tasks.installed.utils.py" in found[("f",)][1]
    assert relatives(task) == ["tasks/real.py"]
    assert not (tmp_path / "IMPORTED").exists()


def test_a_dotted_module_is_the_file_either_lm_eval_reads(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "t/pkg/mod.py": "def f(d): return d\n",
            "t/old.style.py": "def f(d): return d\n",
            "t/a.yaml": "task: a\nx: !function pkg.mod.f\ny: !function old.style.f\n",
        },
    )
    task = read(root, "t/a.yaml")
    assert task.problems == []
    assert relatives(task) == ["t/pkg/mod.py", "t/old.style.py"]


def test_group_files_and_templates_are_told_apart_from_tasks(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "_bbh.yaml": "group: bbh\ntask:\n  - bbh_a\n  - bbh_b\naggregate_metric_list:\n  - metric: exact_match\n",
            "_template_yaml": "output_type: generate_until\n",
            "listed.yaml": "task: [a, b]\n",
            "numbered.yaml": "task: 12\n",
            "scalar.yaml": "- task: a\n",
        },
    )
    reader = TaskReader(root)
    group, template = reader.read(root / "_bbh.yaml"), reader.read(root / "_template_yaml")
    assert (group.kind, group.name, group.problems) == ("group", "bbh", [])
    assert (template.kind, template.name, template.problems) == ("template", None, [])
    listed = problems(reader.read(root / "listed.yaml"))
    assert listed == [f"{listed[0].split(':', 1)[0]}:1:1: $.task: task: is a list, but the file names no group:"]
    assert "task: names the task" in problems(reader.read(root / "numbered.yaml"))[0]
    assert "is a mapping" in problems(reader.read(root / "scalar.yaml"))[0]


def test_a_broken_included_file_is_reported_in_that_file(tmp_path: Path) -> None:
    root = tree(tmp_path, {"t.yaml": "include: bad.yaml\ntask: t\n", "bad.yaml": "a: 1\na: 2\n"})
    task = read(root, "t.yaml")
    assert len(task.problems) == 1
    assert task.problems[0].file.endswith("bad.yaml") and task.problems[0].line == 2
    assert "duplicate key" in task.problems[0].message


def test_a_lattice_of_includes_is_bounded(tmp_path: Path) -> None:
    # Each level includes the next twice over: 2**12 visits without a bound.
    files = {f"l{n}.yaml": f"include: [l{n + 1}.yaml, l{n + 1}b.yaml]\n" for n in range(12)}
    files |= {f"l{n + 1}b.yaml": f"include: l{n + 1}.yaml\n" for n in range(12)} | {"l12.yaml": "x: 1\n"}
    files["l12b.yaml"] = "y: 1\n"
    task = read(tree(tmp_path, files), "l0.yaml")
    # One problem, naming the limit the walk met first (it stops there).
    [message] = problems(task)
    assert "more than 256 files, repeats counted" in message or "nested deeper than 16 files" in message, message
    assert os.path.basename(str(task.path)) == "l0.yaml"
