"""lm-eval results tied to the frozen task they claim (issue 37): every scored task is read, plain
tasks as well as a group's, and the task config lm-eval records is compared field by field with
the frozen task (its includes resolved), a contradiction refused with both values and where.

The results JSON is written in lm-eval 0.4's shape: ``results``, ``groups``, ``group_subtasks``
(a group's subtasks; an EMPTY list for each plain task named on the command line), ``configs``
(each task's TaskConfig as run), ``versions``, ``n-shot``, ``n-samples``, ``config``, ``task_hashes``.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import run_inprocess

GROUPED = ["bbh_slice_boolean_logic", "bbh_slice_item_tally", "bbh_slice_calendar_steps"]
PLAIN = ["bbh_slice_alphabetical_order", "bbh_slice_bracket_closing"]
TEMPLATE: dict[str, Any] = {  # drafts/bbh/tasks/_template_yaml of `freezer demo`, as lm-eval dumps a TaskConfig
    "dataset_path": "freezer-examples/bbh-slice",
    "dataset_kwargs": {"revision": "5e0c3b1a9d7f2468ace13579bdf02468ace13579"},
    "test_split": "test",
    "doc_to_target": "{{target}}",
    "target_delimiter": " ",
    "fewshot_delimiter": "\n\n",
    "num_fewshot": 0,
    "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True, "ignore_case": True}],
    "output_type": "generate_until",
    "generation_kwargs": {"until": ["\n\nQ:", "</s>"], "do_sample": False, "max_gen_toks": 256},
    "repeats": 1,
    "filter_list": [
        {"name": "final-answer",
         "filter": [{"function": "regex", "regex_pattern": "[Aa]nswer: *(.+?)\\.?$"}, {"function": "take_first"}]}
    ],
    "should_decontaminate": False,
    "metadata": {"version": 1.0, "pretrained": "EleutherAI/pythia-160m"},
}  # fmt: skip


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("lmeval-evidence") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _task_config(demo: Path, task: str) -> dict[str, Any]:
    """The task's config as lm-eval records it: the template merged under the task's own keys."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: None)  # lm-eval's functions: not compared
    source = demo / "versions" / "bbh_v2" / "tasks" / f"{task.removeprefix('bbh_slice_')}.yaml"
    own = yaml.load(source.read_text(), Loader=Loader)
    return {
        "task": task,
        **copy.deepcopy(TEMPLATE),
        **{k: v for k, v in own.items() if k != "include" and v is not None},
    }


def _results(demo: Path, folder: Path, *, grouped: list[str], plain: list[str], edit: Any = None) -> Path:
    """lm-eval's results JSON for a run of the group over ``grouped`` and the plain tasks ``plain``."""
    tasks = grouped + plain
    results: dict[str, Any] = {}
    if grouped:
        results["bbh_slice"] = {
            "alias": "bbh_slice",
            "exact_match,final-answer": 0.5,
            "exact_match_stderr,final-answer": "N/A",
        }
    for i, task in enumerate(tasks):
        alias = task if task in plain else f" - {task}"
        score = [1.0, 0.5, 0.0][i % 3]
        results[task] = {"alias": alias, "exact_match,final-answer": score, "exact_match_stderr,final-answer": 0.1}
    configs = {task: _task_config(demo, task) for task in tasks}
    document: dict[str, Any] = {
        "results": results,
        "groups": {"bbh_slice": results["bbh_slice"]} if grouped else {},
        "group_subtasks": {**({"bbh_slice": grouped} if grouped else {}), **{task: [] for task in plain}},
        "configs": configs,
        "versions": {**({"bbh_slice": 1.0} if grouped else {}), **{task: 1.0 for task in tasks}},
        "n-shot": {task: 0 for task in tasks},
        "higher_is_better": {task: {"exact_match": True} for task in tasks},
        "n-samples": {task: {"original": 20, "effective": 20} for task in tasks},
        "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m", "batch_size": 1, "limit": None},
        "git_hash": "4f5e6d7",
        "date": 1764583200.0,
        "task_hashes": {task: f"{n:064x}" for n, task in enumerate(tasks)},
        "model_name": "EleutherAI/pythia-160m",
        "lm_eval_version": "0.4.8",
    }
    if edit is not None:
        edit(document)
    path = folder / "results_2026-12-01T10-00-00.json"
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False))
    return path


def _import(demo: Path, path: Path, *more: str) -> Any:
    result = run_inprocess("results", "import", "--from", "lm-eval", str(path), "--version", "bbh_v2", *more, cwd=demo)
    assert "Traceback" not in result.err and "internal error" not in result.err
    return result


def test_plain_tasks_named_on_the_command_line_are_scored_beside_a_groups(demo: Path, tmp_path: Path) -> None:
    path = _results(demo, tmp_path, grouped=GROUPED, plain=PLAIN)
    result = _import(demo, path)
    assert result.code == 0, result.out + result.err
    rows = [json.loads(line) for line in result.out.splitlines() if line.startswith("{")]
    assert sorted(r["task_id"] for r in rows) == sorted(GROUPED + PLAIN)


def test_a_plain_task_run_at_another_version_on_another_dataset_is_refused(demo: Path, tmp_path: Path) -> None:
    def other(document: dict[str, Any]) -> None:
        for task in PLAIN:
            document["versions"][task] = 2.0
            document["configs"][task]["dataset_path"] = "someone-else/bbh"

    path = _results(demo, tmp_path, grouped=GROUPED, plain=PLAIN, edit=other)
    for command in ("import", "check"):
        result = run_inprocess("results", command, "--from", "lm-eval", str(path), "--version", "bbh_v2", cwd=demo)
        assert result.code == 1, result.out + result.err
        assert f"$.versions.{PLAIN[0]}: {PLAIN[0]} ran at version 2.0; bbh_v2 froze it at version 1.0" in result.out
        assert f"$.configs.{PLAIN[1]}.dataset_path:" in result.out
        assert "can be compared" not in result.out


@pytest.mark.parametrize(
    ("field", "value", "where", "shown"),
    [
        (
            ("generation_kwargs", "do_sample"),
            True,
            "generation_kwargs.do_sample",
            "ran with generation_kwargs.do_sample true; bbh_v2 froze false",
        ),
        (("generation_kwargs", "max_gen_toks"), 32, "generation_kwargs.max_gen_toks", "32; bbh_v2 froze 256"),
        (
            ("generation_kwargs", "until"),
            ["\n"],
            "generation_kwargs.until",
            'until ["\\n"]; bbh_v2 froze ["\\n\\nQ:","</s>"]',
        ),
        (
            ("generation_kwargs", "temperature"),
            0.7,
            "generation_kwargs.temperature",
            "temperature 0.7; bbh_v2 froze none",
        ),
        (("num_fewshot",), 3, "num_fewshot", "ran with num_fewshot 3; bbh_v2 froze 0"),
        (("dataset_name",), "word_sorting", "dataset_name", '"word_sorting"; bbh_v2 froze "boolean_logic"'),
        (
            ("dataset_kwargs", "revision"),
            "0" * 40,
            "dataset_kwargs.revision",
            'froze "5e0c3b1a9d7f2468ace13579bdf02468ace13579"',
        ),
        (
            ("metric_list",),
            [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
            "metric_list",
            "ignore_case",
        ),
        (
            ("filter_list",),
            [{"name": "final-answer", "filter": [{"function": "take_first"}]}],
            "filter_list",
            "regex_pattern",
        ),
        (("doc_to_text",), "Q: {{input}}\nA:", "doc_to_text", '"Q: {{input}}\\nA:"'),
        (("doc_to_target",), "{{answer}}", "doc_to_target", '"{{answer}}"; bbh_v2 froze "{{target}}"'),
    ],
)
def test_a_config_that_contradicts_the_frozen_task_is_refused_with_both_values(
    demo: Path, tmp_path: Path, field: tuple[str, ...], value: Any, where: str, shown: str
) -> None:
    task = GROUPED[0]

    def contradict(document: dict[str, Any]) -> None:
        config = document["configs"][task]
        for key in field[:-1]:
            config = config[key]
        config[field[-1]] = value
        if field == ("num_fewshot",):
            document["n-shot"][task] = value

    path = _results(demo, tmp_path, grouped=GROUPED, plain=[], edit=contradict)
    result = _import(demo, path)
    assert result.code == 1, result.out + result.err
    assert f"{path}:" in result.out and f"$.configs.{task}.{where}:" in result.out, result.out
    assert shown in result.out, result.out
    assert "nothing imported" in result.out


def test_config_fields_the_run_did_not_record_are_shown_as_not_recorded(demo: Path, tmp_path: Path) -> None:
    def forget(document: dict[str, Any]) -> None:
        del document["configs"][GROUPED[0]]["generation_kwargs"]
        del document["configs"][GROUPED[1]]["dataset_kwargs"]
        del document["configs"][GROUPED[2]]

    path = _results(demo, tmp_path, grouped=GROUPED, plain=[], edit=forget)
    result = _import(demo, path)
    assert result.code == 0, result.out + result.err
    assert f"{GROUPED[0]}'s generation_kwargs not recorded" in result.err
    assert f"{GROUPED[1]}'s dataset_kwargs not recorded" in result.err
    assert f"no configs entry for {GROUPED[2]}" in result.err


def test_a_config_that_agrees_with_the_frozen_task_in_lmevals_own_spelling_is_accepted(
    demo: Path, tmp_path: Path
) -> None:
    def respell(document: dict[str, Any]) -> None:
        config = document["configs"][GROUPED[0]]
        config["num_fewshot"] = 0.0  # lm-eval may write a float where the YAML has an int
        config["generation_kwargs"]["max_gen_toks"] = 256.0

    path = _results(demo, tmp_path, grouped=GROUPED, plain=PLAIN, edit=respell)
    result = _import(demo, path)
    assert result.code == 0, result.out + result.err
    assert "not recorded" not in result.err


def test_a_field_frozen_as_a_function_is_not_compared_with_the_source_lmeval_records(
    demo: Path, tmp_path: Path
) -> None:
    """bbh_v3, cut by the real CLI, renders boolean_logic's prompt with ``!function utils.with_target``;
    lm-eval records that field as the function's source, which is not the frozen reference."""
    import subprocess

    root = tmp_path / "demo"
    shutil.copytree(demo, root, symlinks=True)
    drafts = root / "drafts" / "bbh"
    version = drafts / "version.yaml"
    version.write_text(version.read_text().replace("\nversion: 2\n", "\nversion: 3\n"))
    task_file = drafts / "tasks" / "boolean_logic.yaml"
    lines = task_file.read_text().splitlines()
    task_file.write_text(
        "\n".join(
            "doc_to_text: !function utils.with_target" if line.startswith("doc_to_text:") else line for line in lines
        )
        + "\n"
    )
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "bbh v3: a prompt made by a function"], cwd=root, check=True)
    assert run_inprocess("cut", "bbh_v3", cwd=root).code == 0

    def source(document: dict[str, Any]) -> None:
        document["configs"][GROUPED[0]]["doc_to_text"] = "def with_target(dataset):\n    return dataset\n"

    path = _results(demo, tmp_path, grouped=GROUPED, plain=[], edit=source)
    result = run_inprocess("results", "import", "--from", "lm-eval", str(path), "--version", "bbh_v3", cwd=root)
    assert result.code == 0, result.out + result.err
    assert f"{GROUPED[0]}'s doc_to_text not compared: a !function" in result.err
