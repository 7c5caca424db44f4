"""An lm-eval suite whose four tasks read two Hugging Face datasets with no revision, and a hub
cache laid out as huggingface_hub lays it out, for the tests of ``freezer lock`` on datasets."""

from __future__ import annotations

from pathlib import Path

from freezer.demo.registry import LMEVAL_CONFIG
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from nocode_helpers import write

LOCK = "drafts/bbh/freezer.lock.json"
REASONING, LOGIC = "freezer-tests/toy-reasoning", "freezer-tests/toy-logic"
# Which dataset each task reads: the arith tasks through the template they include.
READS = {"arith-add": REASONING, "arith-sub": REASONING, "logic-and": LOGIC, "logic-or": LOGIC}
TEMPLATE = f"dataset_path: {REASONING}\noutput_type: generate_until\ntest_split: test\n"


def point(cache: Path, dataset: str, commit: str, ref: str = "main") -> None:
    """The hub cache after ``hf download --repo-type dataset <dataset>``: the ref file
    holding the commit, and that commit's snapshot folder."""
    repo = cache / f"datasets--{dataset.replace('/', '--')}"
    write(repo / "refs" / ref, commit)  # huggingface_hub writes the 40 hex with no newline
    write(repo / "snapshots" / commit / "test.jsonl", '{"input": "1+1", "target": "2"}\n')


def registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    write(root / "freezer.yaml", "suites:\n" + LMEVAL_CONFIG)
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    drafts(root, 1)
    return root


def drafts(root: Path, number: int) -> None:
    bbh = root / "drafts" / "bbh"
    write(
        bbh / "version.yaml",
        f"suite: bbh\nversion: {number}\ntitle: Toy reasoning\npurpose: >-\n  Two toy datasets, four tasks.\n",
    )
    write(bbh / "tasks" / "_template.yaml", TEMPLATE)
    for task, dataset in READS.items():
        head = "include: _template.yaml\n" if dataset == REASONING else f"dataset_path: {dataset}\ntest_split: test\n"
        write(bbh / "tasks" / f"{task}.yaml", f"{head}task: {task}\ndoc_to_text: 'Q: {{{{input}}}} ({task})'\n")
