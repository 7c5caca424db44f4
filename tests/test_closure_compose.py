"""Issue 36, class 4 in the closure: the Dockerfile a compose file's ``build:`` names, whatever its
name (``Dockerfile-cuda``), is part of what the task runs. Its change moves exactly the fixtures
whose compose file builds it, never the suite's ``assets`` (which would pool every fixture), and
the images it names are read like the main Dockerfile's."""

from __future__ import annotations

import json
from pathlib import Path

from test_build_references import TASKS, _harbor

from conftest import run_inprocess
from nocode_helpers import DIGEST_A, DIGEST_B, cut, drafts, frozen, manifest, ok, registry
from registry_helpers import commit_all, compare_arms, cut_suite

COMPOSE = "services:\n  main:\n    build:\n      context: ../docker\n      dockerfile: Dockerfile-cuda\n"


def test_a_harbor_task_moves_when_the_dockerfile_its_compose_builds_changes(tmp_path: Path) -> None:
    root = _harbor(tmp_path, 1)
    cut_suite(root, "tb", "tb_v1")
    _harbor(tmp_path, 2, dockerfile=f"FROM ubuntu:24.04@{DIGEST_B}\n")
    cut_suite(root, "tb", "tb_v2")
    arm = compare_arms(root, "tb_v1", "tb_v2", "tb")["all"]
    assert arm["comparable"] == [TASKS[0]], arm
    assert TASKS[1] in arm["excluded"]
    images = json.loads((root / "versions/tb_v2/manifest.json").read_bytes())["environment_images"][TASKS[1]]
    assert any(i["digest"] == DIGEST_B and i["where"].endswith("environment/Dockerfile-cuda:1") for i in images)


def _generic(root: Path, number: int, base: str) -> None:
    fixtures = {
        "capital-city": "assets:\n  - env/gpu/docker-compose.yaml\n",
        "river-length": "",
    }
    files = {"env/gpu/docker-compose.yaml": COMPOSE, "env/docker/Dockerfile-cuda": f"FROM {base}\n"}
    drafts(root, number, fixtures=fixtures, files=files)
    commit_all(root, f"drafts v{number}")


def test_the_dockerfile_a_compose_asset_builds_moves_only_its_fixture(tmp_path: Path) -> None:
    root = registry(tmp_path)
    config = root / "freezer.yaml"
    config.write_text(config.read_text().replace("kind: generic\n", 'kind: generic\n    fixtures: "fixtures/*.yaml"\n'))
    _generic(root, 1, f"nvidia/cuda:12.4@{DIGEST_A}")
    cut(root, "v1")
    commit_all(root, "v1")
    first = manifest(root, 1)
    [image] = first["environment_images"]["capital-city"]
    assert (image["name"], image["digest"], image["where"]) == (
        "nvidia/cuda:12.4",
        DIGEST_A,
        "env/docker/Dockerfile-cuda:1",
    )
    _generic(root, 2, f"nvidia/cuda:12.4@{DIGEST_B}")
    cut(root, "v2")
    commit_all(root, "v2")
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "assets" in delta["unmoved"], delta["moved"]
    arm = compare_arms(root, "qa_v1", "qa_v2", "qa")["all"]
    assert arm["comparable"] == ["river-length"], arm
    assert "capital-city" in arm["excluded"]
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))
