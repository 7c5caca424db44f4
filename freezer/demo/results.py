"""The demo's stored results: two models' lm-eval runs of bbh_v1 and bbh_v2, so the site shows a
leaderboard out of the box.

Each run is a results JSON in the shape lm-eval 0.4.8 writes with ``--output_path`` (``results``
with the group's mean beside each task, ``groups``, ``group_subtasks``, ``configs``, ``versions``,
``n-shot``, ``higher_is_better``, ``n-samples``, ``config``, ``git_hash``, ``date``,
``lm_eval_version``, ``model_name``), imported and stored by ``freezer results add``'s own code.
The scores are illustrative, fixed so every demo is the same; the files are written to a
temporary folder (a stored run keeps their names and sha256, never the files).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from freezer.query import storeresults
from freezer.registry.config import RegistryConfig

_METRIC = "exact_match,final-answer"
_STDERR = "exact_match_stderr,final-answer"
_TASKS = ("alphabetical_order", "boolean_logic", "bracket_closing", "calendar_steps", "item_tally")
# model → version → each task's score, in _TASKS's order (20 samples a task)
SCORES = {
    "EleutherAI/pythia-160m": {"bbh_v1": (0.35, 0.55, 0.2, 0.3, 0.25), "bbh_v2": (0.45, 0.6, 0.4, 0.35, 0.5)},
    "EleutherAI/pythia-410m": {"bbh_v1": (0.5, 0.7, 0.35, 0.45, 0.4), "bbh_v2": (0.6, 0.75, 0.55, 0.5, 0.65)},
}
_DATE = {"bbh_v1": 1776942000.0, "bbh_v2": 1777028400.0}  # a day after each cut's drafts


def _config(name: str, task: str) -> dict[str, object]:
    """The task's config as lm-eval records the one it ran (the fields these files say; lm-eval
    records every one, and import says which it could not compare)."""
    return {
        "task": name,
        "dataset_path": "freezer-examples/bbh-slice",
        "dataset_name": task,
        "test_split": "test",
        "output_type": "generate_until",
        "num_fewshot": 0,
    }


def _results_json(model: str, version: str) -> dict[str, object]:
    names = [f"bbh_slice_{task}" for task in _TASKS]
    scores = dict(zip(names, SCORES[model][version], strict=True))
    group = round(sum(scores.values()) / len(scores), 4)
    results: dict[str, object] = {"bbh_slice": {"alias": "bbh_slice", _METRIC: group, _STDERR: "N/A"}}
    for name, score in scores.items():
        results[name] = {"alias": f" - {name}", _METRIC: score, _STDERR: 0.1}
    return {
        "results": results,
        "groups": {"bbh_slice": results["bbh_slice"]},
        "group_subtasks": {"bbh_slice": names},
        "configs": {name: _config(name, task) for name, task in zip(names, _TASKS, strict=True)},
        "versions": {"bbh_slice": 1.0, **dict.fromkeys(names, 1.0)},
        "n-shot": dict.fromkeys(names, 0),
        "higher_is_better": {name: {"exact_match": True} for name in ["bbh_slice", *names]},
        "n-samples": {name: {"original": 20, "effective": 20} for name in names},
        "config": {"model": "hf", "model_args": f"pretrained={model}", "batch_size": 1, "limit": None},
        "git_hash": "b2a1e7c",
        "date": _DATE[version],
        "lm_eval_version": "0.4.8",
        "model_name": model,
    }


def store(config: RegistryConfig) -> list[str]:
    """Store every demo run in the registry at ``config``; the stored files, relative to it."""
    stored: list[str] = []
    with tempfile.TemporaryDirectory(prefix="freezer-demo-runs-") as folder:
        for model in SCORES:
            for version in ("bbh_v1", "bbh_v2"):
                path = Path(folder) / f"{model.split('/')[-1]}-{version}" / "results.json"
                path.parent.mkdir()
                path.write_text(json.dumps(_results_json(model, version), indent=2), encoding="utf-8")
                added = storeresults.add(config, "lm-eval", [path], version=version)
                if not added.ok or added.stored is None:
                    problems = "; ".join(str(p) for p in added.imported.problems)
                    raise RuntimeError(f"the demo's own {version} run was refused: {problems}")
                stored.append(added.stored)
    return stored
