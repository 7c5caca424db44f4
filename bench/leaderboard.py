"""The leaderboard workload (issue 37): ``freezer results add`` and ``freezer results table`` over
about 10⁶ result rows across three frozen versions of an lm-eval suite, against a plain
``json.loads`` loop over the same files.

lm-eval writes one results JSON per run, one row per task in it, so 10⁶ rows is ``tasks`` tasks
times ``models`` runs times 3 versions (1,000 tasks by 334 models at full size). Each version's runs
are added in one ``results add`` (one stored file per version, as a leaderboard's maintainer adds a
batch); v2 moves half the tasks (the module their ``!function`` names changed), v3 a tenth (their
description), so ``results table`` computes a cross-version subset, not the whole suite.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from functools import partial
from pathlib import Path

import generate
from harness import ENV, FREEZER, PY, Bar, Result, Side, run_command

VERSIONS = ("v1", "v2", "v3")
METRIC = "exact_match,final-answer"
STDERR = "exact_match_stderr,final-answer"
TEMPLATE = """\
dataset_path: bench/leaderboard
output_type: generate_until
test_split: test
num_fewshot: 0
doc_to_target: "{{target}}"
generation_kwargs:
  until: ["\\n\\nQ:"]
  do_sample: false
  max_gen_toks: 256
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""
# Two scoring modules: half the tasks name each. v2 changes the first, so those tasks move.
UTILS = 'def exact_{name}(doc, results):\n    return {{"exact_match": float({answer} == doc["target"])}}\n'
ANSWER, CHANGED_ANSWER = "results[0].strip()", "results[0].strip().lower()"
# What the loop that stands for the limit does: parse every file, touch every row (results) or line.
LIMIT = """\
import json, sys
rows = 0
for name in sys.argv[2:]:
    with open(name, "rb") as handle:
        if sys.argv[1] == "lines":
            rows += sum(1 for line in handle for _ in [json.loads(line)])
        else:
            rows += len(json.loads(handle.read())["results"])
print(rows)
"""


def _description(index: int, version: str) -> str:
    """A task's description: v3 rewords every tenth task's, so those move at v3."""
    return f"Question set {index} ({'v3' if version == 'v3' and index % 10 == 1 else 'v1'}).\n\n"


def _task(index: int, version: str) -> str:
    module = "utils_a" if index % 2 == 0 else "utils_b"
    return (
        f"task: lb_task_{index:05}\ninclude: _template_yaml\ndataset_name: part_{index:05}\n"
        f"description: {json.dumps(_description(index, version))}\n"
        f'doc_to_text: "Q: {{{{input}}}}\\nA:"\nprocess_results: !function {module}.exact_{module}\n'
    )


def _drafts(drafts: Path, tasks: int, version: str) -> None:
    folder = drafts / "tasks"
    shutil.rmtree(drafts, ignore_errors=True)
    folder.mkdir(parents=True)
    number = VERSIONS.index(version) + 1
    (drafts / "version.yaml").write_text(
        f"suite: bench\nversion: {number}\ntitle: Synthetic lm-eval suite\n"
        "purpose: Synthetic lm-eval suite for freezer's leaderboard benchmark.\n"
    )
    (folder / "_template_yaml").write_text(TEMPLATE)
    moved = ANSWER if version == "v1" else CHANGED_ANSWER
    (folder / "utils_a.py").write_text(UTILS.format(name="utils_a", answer=moved))
    (folder / "utils_b.py").write_text(UTILS.format(name="utils_b", answer=ANSWER))
    for index in range(tasks):
        (folder / f"lb_task_{index:05}.yaml").write_text(_task(index, version))


def registry(root: Path, tasks: int) -> Path:
    """A registry (a git repository) with three frozen versions of a ``tasks``-task lm-eval suite."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / "freezer.yaml").write_text(
        "freezer: 1\nsuites:\n  bench:\n    kind: lm-eval\n    drafts: drafts\n"
        '    fixtures: "tasks/*.yaml"\n    versions: versions\n'
    )
    generate.git(root, "init", "-q", "-b", "main")
    for version in VERSIONS:
        _drafts(root / "drafts", tasks, version)
        generate.git(root, "add", "-A")
        generate.git(root, "commit", "-q", "-m", f"drafts {version}")
        subprocess.run([*FREEZER, "cut", version], cwd=root, env=ENV, check=True, capture_output=True)
        generate.git(root, "add", "-A")
        generate.git(root, "commit", "-q", "-m", f"freeze {version}")
    return root


def _config(index: int, version: str) -> dict[str, object]:
    """The task's config as lm-eval records the one it ran: every field, its includes merged."""
    return {
        "task": f"lb_task_{index:05}",
        "dataset_path": "bench/leaderboard",
        "dataset_name": f"part_{index:05}",
        "test_split": "test",
        "output_type": "generate_until",
        "num_fewshot": 0,
        "description": _description(index, version),
        "doc_to_text": "Q: {{input}}\nA:",
        "doc_to_target": "{{target}}",
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "generation_kwargs": {"until": ["\n\nQ:"], "do_sample": False, "max_gen_toks": 256},
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
        "repeats": 1,
        "should_decontaminate": False,
        "metadata": {"version": 1.0},
    }


def results_file(tasks: int, model: str, version: str, rng: random.Random) -> dict[str, object]:
    """One run's results JSON in the shape lm-eval 0.4.8 writes with ``--output_path``."""
    names = [f"lb_task_{n:05}" for n in range(tasks)]
    return {
        "results": {
            name: {"alias": name, METRIC: round(rng.random(), 4), STDERR: round(rng.uniform(0.01, 0.1), 4)}
            for name in names
        },
        "group_subtasks": {name: [] for name in names},
        "configs": {name: _config(n, version) for n, name in enumerate(names)},
        "versions": dict.fromkeys(names, 1.0),
        "n-shot": dict.fromkeys(names, 0),
        "higher_is_better": {name: {"exact_match": True} for name in names},
        "n-samples": {name: {"original": 250, "effective": 250} for name in names},
        "config": {"model": "hf", "model_args": f"pretrained={model}", "batch_size": 8, "limit": None},
        "git_hash": "b2a1e7c",
        "date": 1777028400.0 + VERSIONS.index(version) * 86400,
        "lm_eval_version": "0.4.8",
        "model_name": model,
    }


def runs(folder: Path, tasks: int, models: int) -> dict[str, list[Path]]:
    """Each version's results files, one a model, pretty-printed as lm-eval writes them."""
    rng = random.Random(37)
    out: dict[str, list[Path]] = {}
    for version in VERSIONS:
        (folder / version).mkdir(parents=True)
        out[version] = []
        for number in range(models):
            path = folder / version / f"model-{number:04}.json"
            path.write_text(json.dumps(results_file(tasks, f"bench/model-{number:04}", version, rng), indent=2))
            out[version].append(path)
    return out


def _reset(root: Path) -> None:
    shutil.rmtree(root / "results", ignore_errors=True)


def bench_stored_results(work: Path, tasks: int, models: int) -> Result:
    """``results add`` of every version's runs, then ``results table``, over tasks by models by 3 versions of rows."""
    rows = tasks * models * len(VERSIONS)
    root = registry(work / "leaderboard", tasks)
    files = runs(work / "leaderboard-runs", tasks, models)
    every = [str(p) for paths in files.values() for p in paths]
    add = [
        f"{' '.join(FREEZER)} results add --from lm-eval {' '.join(map(str, files[v]))} --version bench_{v}"
        for v in VERSIONS
    ]
    add_all = " && ".join(add)

    def stored() -> list[str]:
        return [str(p) for p in sorted((root / "results").rglob("*.jsonl"))]

    table = [*FREEZER, "results", "table", "--suite", "bench", "--format", "json"]
    sides = [
        Side("freezer", "freezer", lambda: run_command(["bash", "-c", add_all], root, partial(_reset, root))),
        Side("freezer results table", "freezer", lambda: run_command(table, root)),
        Side("json.loads of the results files", "limit", lambda: run_command([PY, "-c", LIMIT, "whole", *every], root)),
        Side(
            "json.loads of the stored lines",
            "limit",
            lambda: run_command([PY, "-c", LIMIT, "lines", *stored()], root),  # what the add side stored
        ),
    ]
    size = sum(p.stat().st_size for paths in files.values() for p in paths)
    return Result(
        f"results add of {rows:,} lm-eval rows over 3 versions ({len(every):,} files, {size >> 20} MB), then the table",
        sides,
        [
            Bar("add ≤ 10× json.loads of the files (CPU)", "json.loads of the results files", 10, "cpu_seconds"),
            Bar(
                "table ≤ 10× json.loads of the stored lines (CPU)",
                "json.loads of the stored lines",
                10,
                "cpu_seconds",
                side="freezer results table",
            ),
        ],
        notes=[f"{tasks:,} tasks × {models:,} models × 3 versions; v2 moved half the tasks, v3 a tenth"],
        most_runs=1 if rows > 100_000 else None,
    )
