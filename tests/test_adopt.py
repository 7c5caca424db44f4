"""``freezer init --adopt PATH``: a benchmark in its own format (Harbor task folders, an lm-eval task
family, a SWE-bench JSON array) frozen where it stands, with no hand edit: init says what it
guessed, validate, cut and audit pass, and no file of the benchmark is rewritten or moved. The real
CLI in a process of its own, real files in the benchmark's own git repository."""

from __future__ import annotations

import json
from pathlib import Path

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import assert_clean_failure, run_forked, run_inprocess
from registry_helpers import commit_all, snapshot, write_own_prose

DOCKERFILE = "FROM ubuntu:24.04\nRUN apt-get update\n"
TASK_TOML = 'version = "1.0"\n\n[metadata]\ndifficulty = "{level}"\n\n[verifier]\ntimeout_sec = 120.0\n'
# The Harbor cookbook's layout: tasks/<task>/ with task.toml, instruction.md, environment/, solution/, tests/.
HARBOR = {
    "README.md": "# A cookbook of tasks\n",
    **{
        f"tasks/{name}/{rel}": text
        for name, level in (("hello-world", "easy"), ("fix-permissions", "medium"))
        for rel, text in {
            "task.toml": TASK_TOML.format(level=level),
            "instruction.md": f"Do {name}.\n",
            "environment/Dockerfile": DOCKERFILE,
            "solution/solve.sh": "#!/bin/sh\necho done\n",
            "tests/test.sh": "#!/bin/sh\nexit 0\n",
        }.items()
    },
}
# Upstream lm-eval's leaderboard family: a group file named leaderboard.yaml (no '_'), groups and
# templates named with '_', tasks in subfolders, a !function module.
LEADERBOARD = "lm_eval/tasks/leaderboard"
LM_EVAL = {
    ".pre-commit-config.yaml": "repos: []\n",  # the harness's own: kept as it is
    f"{LEADERBOARD}/README.md": "# Leaderboard\n",
    f"{LEADERBOARD}/leaderboard.yaml": "group: leaderboard\ntask:\n  - leaderboard_bbh\n  - leaderboard_gpqa\n",
    f"{LEADERBOARD}/bbh_mc/_leaderboard_bbh.yaml": (
        "group: leaderboard_bbh\ntask:\n  - leaderboard_bbh_boolean_expressions\n  - leaderboard_bbh_navigate\n"
    ),
    f"{LEADERBOARD}/bbh_mc/_fewshot_template_yaml": (
        "dataset_path: SaylorTwift/bbh\noutput_type: multiple_choice\ntest_split: test\n"
    ),
    f"{LEADERBOARD}/bbh_mc/boolean_expressions.yaml": (
        "dataset_name: boolean_expressions\ninclude: _fewshot_template_yaml\n"
        "task: leaderboard_bbh_boolean_expressions\n"
    ),
    f"{LEADERBOARD}/bbh_mc/navigate.yaml": (
        "dataset_name: navigate\ninclude: _fewshot_template_yaml\ntask: leaderboard_bbh_navigate\n"
    ),
    f"{LEADERBOARD}/gpqa/_leaderboard_gpqa.yaml": "group: leaderboard_gpqa\ntask:\n  - leaderboard_gpqa_main\n",
    f"{LEADERBOARD}/gpqa/gpqa_main.yaml": (
        "dataset_path: Idavidrein/gpqa\ntask: leaderboard_gpqa_main\noutput_type: multiple_choice\n"
        "process_docs: !function utils.process_docs\n"
    ),
    f"{LEADERBOARD}/gpqa/utils.py": "def process_docs(dataset):\n    return dataset\n",
}
SWE_BENCH = [
    {
        "repo": "astropy/astropy",
        "instance_id": f"astropy__astropy-{number}",
        "base_commit": "3832210580d516365ddae1a62071001faf94d416",
        "problem_statement": f"Issue {number}: a wrong unit.\n",
        "FAIL_TO_PASS": '["astropy/units/tests/test_units.py::test_unit"]',
        "PASS_TO_PASS": "[]",
    }
    for number in (12907, 13033, 13236)
]


def _repository(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "the benchmark")
    return root


def _freezes_in_place(root: Path, benchmark: str, drafts: str) -> str:
    """Adopt ``benchmark`` in ``root``: say what was guessed, rewrite no file, then validate, cut and audit."""
    before = snapshot(root)
    made = run_forked("init", ".", "--adopt", benchmark, "--suite", "bench", cwd=root)
    assert made.code == 0, made.text
    after = snapshot(root)
    assert {rel: data for rel, data in after.items() if rel in before} == before  # nothing rewritten or moved
    assert f"{drafts}/version.yaml" in set(after) - set(before)
    write_own_prose(root / drafts / "version.yaml")  # its purpose: init's next step
    for step in (["validate"], ["cut", "v1"]):
        result = run_inprocess(*step, cwd=root)
        assert result.code == 0, result.text
    commit_all(root, "freeze bench_v1")
    audited = run_inprocess("audit", cwd=root)
    assert audited.code == 0, audited.text
    return made.out


def _manifest(root: Path) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((root / "versions/bench_v1/manifest.json").read_text())
    return loaded


def test_adopting_harbor_task_folders_freezes_them_in_place(tmp_path: Path) -> None:
    root = _repository(tmp_path / "cookbook", HARBOR)
    said = _freezes_in_place(root, "tasks", "tasks")
    assert "guessed: kind folders: 2 Harbor task folder(s), each with task.toml and instruction.md" in said
    assert "task_file 'task.toml', task id: each folder's name" in said
    assert "guessed: drafts 'tasks', fixtures '*/': the benchmark stays where it is" in said
    config = (root / "freezer.yaml").read_text()
    assert 'drafts: "tasks"' in config and 'fixtures: "*/"' in config
    contents = _manifest(root)["contents"]
    assert isinstance(contents, dict)
    assert "hello-world/environment/Dockerfile" in contents["fixtures"]


def test_adopting_the_repository_top_finds_the_task_folders_below_it(tmp_path: Path) -> None:
    root = _repository(tmp_path / "cookbook", HARBOR)
    said = _freezes_in_place(root, ".", "tasks")
    assert "kind folders" in said
    assert "guessed: drafts 'tasks', fixtures '*/'" in said  # the glob as freezer.yaml holds it
    assert 'drafts: "tasks"' in (root / "freezer.yaml").read_text()


def test_adopting_an_lm_eval_family_with_a_group_file_named_without_underscore(tmp_path: Path) -> None:
    root = _repository(tmp_path / "harness", LM_EVAL)
    said = _freezes_in_place(root, LEADERBOARD, LEADERBOARD)
    assert "guessed: kind lm-eval: 3 task file(s)" in said
    assert "3 group file(s)" in said
    assert ".pre-commit-config.yaml" in said and "kept as it was" in said
    assert (root / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    contents = _manifest(root)["contents"]
    assert isinstance(contents, dict)
    tasks = ["bbh_mc/boolean_expressions.yaml", "bbh_mc/navigate.yaml", "gpqa/gpqa_main.yaml"]
    assert sorted(contents["fixtures"]) == tasks
    assert "leaderboard.yaml" in contents["assets"]


def test_adopting_a_swe_bench_json_array_names_records_by_instance_id(tmp_path: Path) -> None:
    root = _repository(tmp_path / "swe", {"data/swe-bench-lite.json": json.dumps(SWE_BENCH, indent=1)})
    said = _freezes_in_place(root, "data/swe-bench-lite.json", "data")
    assert "guessed: kind records: 1 .json file(s) of JSON objects, each named by 'instance_id'" in said
    config = (root / "freezer.yaml").read_text()
    assert 'task_id: "instance_id"' in config and 'fixtures: "swe-bench-lite.json"' in config
    assert _manifest(root)["contents"] == {"fixtures": ["swe-bench-lite.json"], "assets": []}
    manifest = (root / "versions/bench_v1/manifest.json").read_text()
    assert all(f'"{record["instance_id"]}"' in manifest for record in SWE_BENCH)


def _refused(root: Path, code: int, *args: str) -> str:
    """``freezer init . ARGS`` in ``root`` fails with ``code`` and writes nothing; its error text."""
    before = snapshot(root)
    result = run_forked("init", ".", *args, cwd=root)
    assert_clean_failure(result, code=code)
    assert snapshot(root) == before
    return result.err


def test_an_unrecognised_folder_is_refused_saying_what_was_looked_for(tmp_path: Path) -> None:
    root = _repository(tmp_path / "notes", {"docs/a.md": "# notes\n", "docs/b.txt": "text\n"})
    err = _refused(root, 1, "--adopt", "docs")
    assert "no benchmark freezer can adopt: looked for Harbor task folders" in err
    assert "hint:" in err


def test_an_existing_freezer_yaml_is_never_overwritten(tmp_path: Path) -> None:
    root = _repository(tmp_path / "cookbook", {**HARBOR, "freezer.yaml": "suites: {}\n"})
    err = _refused(root, 2, "--adopt", "tasks")
    assert "freezer.yaml" in err and "never overwrites" in err


def test_task_folders_at_the_registry_top_are_refused_with_what_to_do(tmp_path: Path) -> None:
    flat = {rel.removeprefix("tasks/"): text for rel, text in HARBOR.items()}
    root = _repository(tmp_path / "flat", flat)
    err = _refused(root, 1, "--adopt", ".")
    assert "lie at the top of the registry folder" in err and "the folder above" in err


def test_code_repo_beside_adopt_is_refused(tmp_path: Path) -> None:
    root = _repository(tmp_path / "cookbook", HARBOR)
    assert "--code-repo" in _refused(root, 2, "--adopt", "tasks", "--code-repo", ".")
