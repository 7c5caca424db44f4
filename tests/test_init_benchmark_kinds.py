"""``freezer init --kind folders|records|lm-eval``: a registry whose suite is of that kind, which
validates, cuts and audits as soon as the author adds one task in the benchmark's own format. The
real CLI in a process of its own for init, real files, the registry's own git repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import assert_clean_failure, run_forked, run_inprocess
from registry_helpers import commit_all, snapshot, write_own_prose

# One minimal real task of each kind, at the place init's output names (relative to the drafts).
ONE_TASK = {
    "folders": {
        "tasks/count-words/task.toml": 'version = "1.0"\n\n[metadata]\ndifficulty = "easy"\n',
        "tasks/count-words/instruction.md": "Count the words in /data/words.txt.\n",
        "tasks/count-words/tests/test.sh": "#!/bin/sh\ntest -f /out/count\n",
    },
    "records": {
        "instances/instances.jsonl": json.dumps({"instance_id": "toy__repo-1", "problem_statement": "It fails."})
        + "\n",
    },
    "lm-eval": {
        "tasks/toy_arith.yaml": "task: toy_arith\ndataset_path: toy/arith\noutput_type: generate_until\n",
    },
}


@pytest.mark.parametrize("kind", sorted(ONE_TASK))
def test_init_of_a_benchmark_kind_cuts_once_one_task_is_added(tmp_path: Path, kind: str) -> None:
    made = run_forked("init", "reg", "--kind", kind, "--suite", "bench", cwd=tmp_path)
    assert made.code == 0, made.text
    root = tmp_path / "reg"
    config = (root / "freezer.yaml").read_text()
    assert f"kind: {kind}" in config
    assert "code_repo" not in config  # a benchmark of its own format pins no code under test
    drafts = root / "drafts/bench"
    assert (drafts / "version.yaml").is_file()
    assert not (drafts / "fixtures").exists()  # no example in freezer's format for a benchmark's own
    first = next(iter(ONE_TASK[kind]))
    assert f"drafts/bench/{first.split('/')[0]}/" in made.out  # where the tasks go
    for rel, text in ONE_TASK[kind].items():
        (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts / rel).write_text(text, encoding="utf-8")
    validated = run_inprocess("validate", cwd=root)
    assert validated.code == 0, validated.text
    refused = run_inprocess("cut", "v1", cwd=root)
    assert refused.code == 1 and "still holds the scaffold's placeholder 'Why this version exists" in refused.err
    write_own_prose(drafts / "version.yaml")  # the purpose, as init's next step says
    cut = run_inprocess("cut", "v1", cwd=root)
    assert cut.code == 0, cut.text
    manifest = json.loads((root / "versions/bench_v1/manifest.json").read_text())
    assert manifest["fixture_kind"]["kind"] == kind
    assert manifest["contents"]["fixtures"]
    commit_all(root, "freeze bench_v1")
    audited = run_inprocess("audit", cwd=root)
    assert audited.code == 0, audited.text


def test_init_refuses_an_unknown_kind_naming_every_kind(tmp_path: Path) -> None:
    result = run_forked("init", "reg", "--kind", "harbor", cwd=tmp_path)
    assert_clean_failure(result, code=2)
    for kind in ("generic", "graph", "folders", "records", "lm-eval"):
        assert kind in result.err
    assert not (tmp_path / "reg").exists()


def test_code_repo_is_refused_for_a_benchmark_kind(tmp_path: Path) -> None:
    (tmp_path / "reg").mkdir()
    before = snapshot(tmp_path / "reg")
    result = run_inprocess("init", "reg", "--kind", "records", "--code-repo", ".", cwd=tmp_path)
    assert_clean_failure(result, code=2)
    assert "--code-repo" in result.err
    assert snapshot(tmp_path / "reg") == before


def test_the_pre_commit_hook_validates_on_any_file_of_a_benchmark_kind_drafts(tmp_path: Path) -> None:
    """A Harbor task's instruction.md or a .jsonl of records is no YAML file: the validate hook
    must still run when one of them is committed."""
    made = run_inprocess("init", "reg", "--kind", "folders", cwd=tmp_path)
    assert made.code == 0, made.text
    config = yaml.safe_load((tmp_path / "reg/.pre-commit-config.yaml").read_text())
    [validate] = [hook for hook in config["repos"][0]["hooks"] if hook["id"] == "freezer-validate"]
    pattern = re.compile(validate["files"])
    assert pattern.search("drafts/bench/tasks/count-words/instruction.md")
    assert pattern.search("freezer.yaml")
    assert not pattern.search("README.md")
