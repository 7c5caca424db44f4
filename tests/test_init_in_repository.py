"""``freezer init DIR`` inside an existing git repository writes the pre-commit config and the GitHub
workflow at the repository's top, where pre-commit and GitHub read them, naming the registry's folder;
one already there is kept as it is and init prints what to add to it. The validate hook fires on any
file of the drafts (a task.toml, a .jsonl, a !function module), not only YAML. Real git, the real
pre-commit running the hooks as written, freezer on PATH as the hooks' `language: system` needs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from freezer.git.gitrepo import DETERMINISTIC_ENV

from conftest import run_inprocess

BIN = Path(sys.executable).parent
PRE_COMMIT = shutil.which("pre-commit") or str(BIN / "pre-commit")
needs_pre_commit = pytest.mark.skipif(not Path(PRE_COMMIT).exists(), reason="pre-commit is not installed")


def _repository(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    (path / "README.md").write_text("the project\n")
    return path


def _pre_commit(top: Path, tmp_path: Path, *files: str) -> str:
    """pre-commit's own run of the hooks on ``files`` (staged), as a commit of them would run them."""
    env = {**os.environ, **DETERMINISTIC_ENV, "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    subprocess.run(["git", "add", "-A"], cwd=top, check=True, env=env)
    ran = subprocess.run([PRE_COMMIT, "run", "--files", *files], cwd=top, env=env, capture_output=True, text=True)
    assert "Traceback" not in ran.stdout + ran.stderr and "Executable `freezer` not found" not in ran.stdout
    return ran.stdout


def _fired(said: str, hook: str) -> bool:
    """Whether pre-commit ran ``hook`` (what it then found is validate's business, not the hook's wiring)."""
    return re.search(rf"^{re.escape(hook)}\.+(Passed|Failed)$", said, re.M) is not None


@needs_pre_commit
@pytest.mark.parametrize(
    ("kind", "drafts_file"),
    [
        ("folders", "tasks/fix-bug/task.toml"),
        ("records", "instances/tasks.jsonl"),
        ("lm-eval", "tasks/utils.py"),
        ("generic", "fixtures/example-task.yaml"),
        ("generic", "fixtures/helper.py"),
    ],
)
def test_init_in_a_subfolder_writes_the_guard_where_pre_commit_reads_it(
    tmp_path: Path, kind: str, drafts_file: str
) -> None:
    top = _repository(tmp_path / "project")
    made = run_inprocess("init", "benchmarks/reg", "--kind", kind, cwd=top)
    assert made.code == 0, made.text
    assert not (top / "benchmarks/reg/.pre-commit-config.yaml").exists()
    assert not (top / "benchmarks/reg/.github").exists()
    assert "../../.pre-commit-config.yaml" in made.out and "../../.github/workflows/freezer.yml" in made.out
    config = yaml.safe_load((top / ".pre-commit-config.yaml").read_text())
    hooks = config["repos"][0]["hooks"]
    assert [hook["args"] for hook in hooks] == [["-C", "benchmarks/reg"]] * 2
    path = top / "benchmarks/reg/drafts/bench" / drafts_file
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# a file of the drafts\n")
    said = _pre_commit(top, tmp_path, str(path.relative_to(top)))
    assert _fired(said, "freezer validate") and _fired(said, "freezer check"), said
    elsewhere = _pre_commit(top, tmp_path, "README.md")  # a file of the project, not of the registry
    assert not _fired(elsewhere, "freezer validate") and _fired(elsewhere, "freezer check"), elsewhere


@needs_pre_commit
def test_init_in_an_empty_folder_writes_the_guard_at_the_registry_s_top(tmp_path: Path) -> None:
    made = run_inprocess("init", "reg", "--kind", "records", cwd=tmp_path)
    assert made.code == 0, made.text
    root = tmp_path / "reg"
    assert (root / ".git").is_dir() and (root / ".github/workflows/freezer.yml").is_file()
    hooks = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    assert all("args" not in hook for hook in hooks)
    (root / "drafts/bench/instances").mkdir()
    (root / "drafts/bench/instances/tasks.jsonl").write_text('{"instance_id": "a"}\n')
    said = _pre_commit(root, tmp_path, "drafts/bench/instances/tasks.jsonl")
    assert re.search(r"^freezer validate\.+Passed$", said, re.M) and re.search(
        r"^freezer check\.+Passed$", said, re.M
    ), said


def test_a_guard_file_already_at_the_top_is_kept_and_init_says_what_to_add(tmp_path: Path) -> None:
    top = _repository(tmp_path / "project")
    ours = "repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks: [{id: black}]\n"
    (top / ".pre-commit-config.yaml").write_text(ours)
    made = run_inprocess("init", "reg", cwd=top)
    assert made.code == 0, made.text
    assert (top / ".pre-commit-config.yaml").read_text() == ours
    assert (top / ".github/workflows/freezer.yml").is_file()  # the one that was not there is written
    assert "../.pre-commit-config.yaml" in made.out and "kept as it was" in made.out
    said = made.out.split("add this to ../.pre-commit-config.yaml, merging it with what is there:\n", 1)[1]
    snippet = yaml.safe_load(said.split("once freezer's Action", 1)[0])
    assert [hook["id"] for hook in snippet["repos"][0]["hooks"]] == ["freezer-validate", "freezer-check"]
    assert snippet["repos"][0]["hooks"][0]["args"] == ["-C", "reg"]
    as_json = run_inprocess("init", "reg2", "--format", "json", cwd=top)
    assert as_json.code == 0, as_json.text
    assert "../.pre-commit-config.yaml" in as_json.out and "to_add" in as_json.out


def test_a_refused_init_in_a_subfolder_leaves_the_repository_as_it_was(tmp_path: Path) -> None:
    top = _repository(tmp_path / "project")
    (top / ".github").symlink_to(tmp_path)  # a committed link: init never writes through one
    made = run_inprocess("init", "reg", cwd=top)
    assert made.code == 2, made.text
    assert "never through a link" in made.err
    assert sorted(p.name for p in top.iterdir()) == [".git", ".github", "README.md"]
