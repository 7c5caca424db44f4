"""Harness files and registries for the stored results' tests.

``build_board``: a registry whose stored results span three versions, one step moving half the
fixtures: the demo with a records suite ``quiz`` of four fixtures cut three times (v1 → v2 moves
nothing, v2 → v3 changes the answer of two), and two models' runs stored for each version as
Inspect logs written by Inspect's own writer. ``lmeval_results``: lm-eval's results JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from conftest import run_inprocess
from registry_helpers import commit_all, cut_suite

TASKS = ["quiz-1", "quiz-2", "quiz-3", "quiz-4"]
MOVED = {"quiz-3", "quiz-4"}  # their answer changes in v3
VALUE = {"C": 1.0, "I": 0.0}
SCORES = {  # model → version → task → Inspect's score
    "mockllm/alpha": {1: "CICC", 2: "CCIC", 3: "ICCC"},
    "mockllm/beta": {1: "IICC", 2: "CICI", 3: "CCCC"},
}


def _records(folder: Path, moved: bool) -> None:
    lines = []
    for task in TASKS:
        answer = f"{task}-answer" + ("-fixed" if moved and task in MOVED else "")
        lines.append(json.dumps({"instance_id": task, "question": f"what is {task}?", "answer": answer}))
    (folder / "instances" / "quiz.jsonl").write_text("\n".join(lines) + "\n")


def _log(folder: Path, model: str, version: int) -> Path:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.scorer import Score

    spec = EvalSpec(created="2026-12-01T10:00:00+00:00", task="quiz", task_version=version,
                    dataset=EvalDataset(name="quiz", samples=4), model=model, config=EvalConfig(),
                    run_id=f"{model}-{version}", packages={"inspect_ai": "0.3.285"})  # fmt: skip
    samples = [EvalSample(id=task, epoch=1, input="?", target="", scores={"match": Score(value=value)})
               for task, value in zip(TASKS, SCORES[model][version], strict=True)]  # fmt: skip
    path = folder / f"{model.replace('/', '-')}-v{version}.eval"
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path


def build_board(base: Path, demo_build: Path) -> Path:
    """The demo with suite quiz cut three times, and both models' runs stored for each version."""
    root = base / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    config = root / "freezer.yaml"
    suite = '  quiz:\n    kind: records\n    drafts: drafts/quiz\n    fixtures: "instances/*.jsonl"\n'
    config.write_text(config.read_text() + suite + "    task_id: instance_id\n    versions: versions\n")
    drafts = root / "drafts" / "quiz"
    (drafts / "instances").mkdir(parents=True)
    meta = (root / "drafts" / "swe" / "version.yaml").read_text().replace("suite: swe", "suite: quiz")
    for version in (1, 2, 3):
        (drafts / "version.yaml").write_text(meta.replace("version: 1", f"version: {version}"))
        _records(drafts, moved=version == 3)
        commit_all(root, f"drafts: quiz v{version}")
        cut_suite(root, "quiz", f"v{version}")
    for model in SCORES:
        for version in (1, 2, 3):
            log = _log(base, model, version)
            added = run_inprocess(
                "results", "add", "--from", "inspect", str(log), "--version", f"quiz_v{version}", cwd=root
            )
            assert added.code == 0, added.text
    commit_all(root, "results: quiz")
    return root


BBH = ["bbh_slice_boolean_logic", "bbh_slice_item_tally", "bbh_slice_calendar_steps"]


def lmeval_results(folder: Path, **recorded: Any) -> Path:
    """lm-eval's results JSON for three of the demo's bbh_v2 tasks, in the shape lm-eval 0.4.8
    writes; ``recorded``: its other top-level keys (model_name, lm_eval_version, git_hash...)."""
    config = {"dataset_path": "freezer-examples/bbh-slice", "test_split": "test", "output_type": "generate_until"}
    document = {
        "results": {task: {"alias": task, "exact_match,final-answer": 0.5} for task in BBH},
        "configs": {task: {"task": task, **config, "num_fewshot": 0} for task in BBH},
        "versions": {task: 1.0 for task in BBH},
        "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m", "limit": None},
        **recorded,
    }
    path = folder / "results.json"
    path.write_text(json.dumps(document))
    return path


def built_site(base: Path, demo_build: Path) -> Path:
    """``build_board``'s registry under ``base`` and its site (``base/site``)."""
    root = build_board(base, demo_build)
    out = base / "site"
    built = run_inprocess("site", str(out), cwd=root)
    assert built.code == 0, built.text
    return out
