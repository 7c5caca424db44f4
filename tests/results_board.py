"""A registry whose stored results span three versions, one step moving half the fixtures: the
demo with a records suite ``quiz`` of four fixtures cut three times (v1 → v2 moves nothing, v2 → v3
changes the answer of two), and two models' runs stored for each version as Inspect logs written by
Inspect's own writer. Shared by the results table's tests and the site's results page tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

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
