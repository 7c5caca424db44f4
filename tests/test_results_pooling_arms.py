"""``results check`` pools rows by what their arm depends on, not by the arm's name (issue 37): an
arm renamed or added between versions, with the same dependencies, is one pool, compared across the
versions with those dependencies; arms that depend on different things are never pooled.

The registry is ``freezer demo``'s: tb_v1 cut with the default arm ``all``, and a tb_v2 cut by the
real CLI after freezer.yaml declared the arm ``agent`` with the dependencies of tb_v1's ``all``
(the arm renamed) and ``shell`` with fewer (an arm added), from a commit that edits one task.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import freezer

from conftest import run_inprocess

TB = ["count-words", "rotate-logs", "fix-csv-header"]
ALL = ["run", "assets", "record", "environment"]  # tb_v1's arm 'all', as its manifest recorded it


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("pooling-arms") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    assert freezer.load("tb_v1", registry=root).manifest["comparability"]["arms"] == {"all": ALL}
    config = root / "freezer.yaml"
    text = config.read_text()
    declared = f"    arms:\n      agent: [{', '.join(ALL)}]\n      shell: [record]\n"
    config.write_text(text.replace("    task_file: task.toml\n", "    task_file: task.toml\n" + declared, 1))
    drafts = root / "drafts" / "tb"
    version = drafts / "version.yaml"
    version.write_text(version.read_text().replace("\nversion: 1\n", "\nversion: 2\n"))
    with (drafts / "tasks" / "count-words" / "instruction.md").open("a") as out:
        out.write("Count the words of every file.\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    message = "tb v2: the arm all is now agent; count-words says more"
    subprocess.run(["git", "commit", "-qm", message], cwd=root, check=True)
    cut = run_inprocess("cut", "tb_v2", cwd=root)
    assert cut.code == 0, cut.text
    return root


def _rows(demo: Path, path: Path, arms: dict[str, str]) -> Path:
    """One run's rows per version: every task of ``version`` scored 1.0 under ``arms[version]``,
    except count-words, scored 0.0 in v1 (so that pooling it would move the mean)."""
    lines = []
    for name, arm in arms.items():
        frozen = freezer.load(name, registry=demo)
        for task in TB:
            score = 0.0 if (name, task) == ("tb_v1", "count-words") else 1.0
            row = {"manifest_sha256": frozen.manifest_sha256, "task_id": task, "arm": arm, "score": score,
                   "run": f"oracle {name}", "fixture_digest": frozen.fixture_digest(task)}  # fmt: skip
            lines.append(json.dumps(row) + "\n")
    path.write_text("".join(lines))
    return path


def _check(demo: Path, path: Path, *more: str) -> tuple[int, Any, str]:
    shown = run_inprocess("results", "check", str(path), *more, cwd=demo)
    assert "Traceback" not in shown.err and "internal error" not in shown.err
    as_json = run_inprocess("results", "check", str(path), "--format", "json", cwd=demo)
    return as_json.code, json.loads(as_json.out)["result"], shown.out


def test_an_arm_renamed_between_versions_is_pooled_by_its_dependencies(demo: Path, tmp_path: Path) -> None:
    path = _rows(demo, tmp_path / "runs.jsonl", {"tb_v1": "all", "tb_v2": "agent"})
    code, result, text = _check(demo, path)
    assert code == 1, text  # count-words moved between the versions: pooling it is refused
    [(pool, excluded)] = [(k, v) for k, v in result["excluded"].items() if v]
    assert set(pool.split(" = ")) == {"all", "agent"}
    assert list(excluded) == ["count-words"] and "tb_v1 → tb_v2" in excluded["count-words"]
    assert sorted(result["common"][pool]) == ["fix-csv-header", "rotate-logs"]
    runs = {(r["version"], r["arm"]): (r["fixtures"], r["mean"]) for r in result["runs"]}
    assert runs == {("tb_v1", "all"): (2, 1.0), ("tb_v2", "agent"): (2, 1.0)}
    assert "can be compared as they are" not in text
    assert "count-words: tb_v1 → tb_v2" in text


def test_an_arm_that_depends_on_something_else_is_never_pooled_with_it(demo: Path, tmp_path: Path) -> None:
    path = _rows(demo, tmp_path / "runs.jsonl", {"tb_v1": "all", "tb_v2": "shell"})
    code, result, text = _check(demo, path)
    assert code == 0, text
    assert sorted(result["common"]) == ["all", "shell"]  # two pools, each of one version, nothing compared
    assert not any(result["excluded"].values())
    assert {r["arm"]: r["fixtures"] for r in result["runs"]} == {"all": 3, "shell": 3}


def test_an_arm_of_one_name_is_still_one_pool(demo: Path, tmp_path: Path) -> None:
    graph = [freezer.load(name, registry=demo) for name in ("graph_v1", "graph_v2")]
    lines = [
        json.dumps({"manifest_sha256": v.manifest_sha256, "task_id": t["task_id"], "arm": "grep-only", "score": 1.0,
                    "run": "r"}) + "\n"
        for v in graph for t in v.landed
    ]  # fmt: skip
    path = tmp_path / "graph.jsonl"
    path.write_text("".join(lines))
    code, result, text = _check(demo, path)
    assert code == 1 and list(result["common"]) == ["grep-only"], text  # graph v2 moved an oracle
    assert result["excluded"]["grep-only"]
