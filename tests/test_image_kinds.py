"""Issue 26: the image a benchmark's own task fields name, for the kinds that read them (records:
an ``image`` field of the record; folders: task.toml ``[environment] docker_image``, and the
Dockerfile in the folder). A changed image of one kept fixture excludes that fixture alone
(comparability format 4), with a reason naming the image; the others stay comparable."""

from __future__ import annotations

import json
from pathlib import Path

from freezer.demo.registry import OWN_FORMAT_CONFIG
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import run_inprocess
from nocode_helpers import DIGEST_A, DIGEST_B, drafts, ok, registry, write
from registry_helpers import commit_all, compare_arms, cut_suite

DIGEST_C = "sha256:" + "c" * 64
VERSION = "suite: {suite}\nversion: {number}\ntitle: Images\npurpose: >-\n  Environments a task names.\n"
# The demo's two suites in the benchmarks' own formats: tb (folders) and swe (records).
CONFIG = "suites:\n" + OWN_FORMAT_CONFIG
IDS = ("orbit__orbit-101", "orbit__orbit-102", "orbit__orbit-103")
TASKS = ("count-lines", "fix-permissions", "parse-logs")


def _registry(tmp_path: Path, config: str) -> Path:
    root = tmp_path / "registry"
    write(root / "freezer.yaml", config)
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    return root


def _records(root: Path, number: int, images: dict[str, str]) -> None:
    folder_root = root / "drafts" / "swe"
    write(folder_root / "version.yaml", VERSION.format(suite="swe", number=number))
    lines = [
        json.dumps({"instance_id": task, "problem_statement": f"Fix {task}.", "image": images[task]}) for task in IDS
    ]
    write(folder_root / "instances" / "all.jsonl", "\n".join(lines) + "\n")
    commit_all(root, f"swe drafts v{number}")


def test_a_records_suite_reads_the_image_field_and_attributes_its_change(tmp_path: Path) -> None:
    root = _registry(tmp_path, CONFIG)
    first = {IDS[0]: f"swebench/orbit-101@{DIGEST_A}", IDS[1]: f"swebench/orbit-102@{DIGEST_A}", IDS[2]: "x:1"}
    _records(root, 1, first)
    text = cut_suite(root, "swe", "swe_v1").text
    assert f"fixture {IDS[2]} names image x:1 by tag alone (drafts/swe/instances/all.jsonl::$.image)" in text, text
    assert f"fixture {IDS[0]}" not in text
    manifest = json.loads((root / "versions/swe_v1/manifest.json").read_bytes())
    assert manifest["environment_images"][IDS[0]] == [
        {"name": "swebench/orbit-101", "digest": DIGEST_A, "where": "$.image"}
    ]
    assert manifest["comparability"]["arms"]["all"][-1] == "environment"
    _records(root, 2, {**first, IDS[0]: f"swebench/orbit-101@{DIGEST_B}", IDS[2]: f"x@{DIGEST_C}"})
    cut_suite(root, "swe", "swe_v2")
    arm = compare_arms(root, "swe_v1", "swe_v2", "swe")["all"]
    assert arm["moved"] == [] and arm["comparable"] == [IDS[1]]
    excluded = arm["excluded"]
    assert isinstance(excluded, dict)
    assert (
        f"its environment moved: its image swebench/orbit-101@{DIGEST_A} → swebench/orbit-101@{DIGEST_B} ($.image)"
        in excluded[IDS[0]]
    )
    # a tag-only image at the older end leaves that record's environment unknown, and it moved too
    assert f"its image x:1 → x@{DIGEST_C} ($.image)" in excluded[IDS[2]]
    assert "cannot tell whether its environment moved: swe_v1 names its image x:1 by tag alone" in excluded[IDS[2]]
    frozen = json.loads((root / "versions/swe_v2/comparability.json").read_bytes())
    assert frozen["comparability_format"] == 6  # format 4 brought per-fixture attribution; 5 and 6 keep it
    ok(run_inprocess("audit", "--suite", "swe", cwd=root))


def _folders(root: Path, number: int, images: dict[str, str], base: str) -> None:
    folder_root = root / "drafts" / "tb"
    for old in sorted(folder_root.rglob("*"), reverse=True) if folder_root.exists() else []:
        old.unlink() if old.is_file() else old.rmdir()
    write(folder_root / "version.yaml", VERSION.format(suite="tb", number=number))
    for task in TASKS:
        folder = folder_root / "tasks" / task
        write(folder / "task.toml", f'[environment]\ndocker_image = "{images[task]}"\nbuild_timeout_sec = 600\n')
        write(folder / "instruction.md", f"# {task}\n\nDo {task} in /app.\n")
        if task == TASKS[1]:
            write(folder / "environment" / "Dockerfile", f"ARG BASE={base}\nFROM ${{BASE}}\nWORKDIR /app\n")
    commit_all(root, f"tb drafts v{number}")


def test_a_folders_suite_reads_environment_docker_image_and_its_dockerfile(tmp_path: Path) -> None:
    root = _registry(tmp_path, CONFIG)
    first = {task: f"ghcr.io/acme/{task}@{DIGEST_A}" for task in TASKS}
    _folders(root, 1, first, f"ubuntu:24.04@{DIGEST_A}")
    text = cut_suite(root, "tb", "tb_v1").text
    assert "by tag alone" not in text and "cannot be known" not in text
    images = json.loads((root / "versions/tb_v1/manifest.json").read_bytes())["environment_images"]
    assert images[TASKS[1]] == [
        {"name": f"ghcr.io/acme/{TASKS[1]}", "digest": DIGEST_A, "where": "$.environment.docker_image"},
        {"name": "ubuntu:24.04", "digest": DIGEST_A, "where": f"tasks/{TASKS[1]}/environment/Dockerfile:2"},
    ]
    # v2: one task's image moves in task.toml, another's through its Dockerfile's ARG default
    _folders(root, 2, {**first, TASKS[0]: f"ghcr.io/acme/{TASKS[0]}@{DIGEST_B}"}, f"ubuntu:24.04@{DIGEST_C}")
    cut_suite(root, "tb", "tb_v2")
    arm = compare_arms(root, "tb_v1", "tb_v2", "tb")["all"]
    assert arm["moved"] == [] and arm["comparable"] == [TASKS[2]]
    excluded = arm["excluded"]
    assert isinstance(excluded, dict)
    assert f"its image ghcr.io/acme/{TASKS[0]}@{DIGEST_A} → ghcr.io/acme/{TASKS[0]}@{DIGEST_B}" in excluded[TASKS[0]]
    assert (
        f"its image ubuntu:24.04@{DIGEST_A} → ubuntu:24.04@{DIGEST_C} (tasks/{TASKS[1]}/environment/Dockerfile:2)"
        in excluded[TASKS[1]]
    )
    delta = json.loads((root / "versions/tb_v2/delta.json").read_bytes())
    assert "environment" in delta["moved"]  # §Delta still says the suite's environment moved, by fixture
    assert [c["path"] for c in delta["environment"]] == [
        f"{TASKS[0]} $.environment.docker_image",
        f"{TASKS[1]} tasks/{TASKS[1]}/environment/Dockerfile:2",
    ]
    text = ok(run_inprocess("compare", "tb_v1", "tb_v2", "--suite", "tb", cwd=root)).out
    assert f"its image ubuntu:24.04@{DIGEST_A} → ubuntu:24.04@{DIGEST_C}" in text
    ok(run_inprocess("audit", "--suite", "tb", cwd=root))


def test_the_generic_schema_has_no_image_field_a_dockerfile_asset_names_it(tmp_path: Path) -> None:
    """Generic fixtures name their image through a Dockerfile among their assets; the built-in
    schema refuses ``image:`` (its hash, frozen by every generic suite, stays as it was)."""
    root = registry(tmp_path)
    drafts(root, 1, fixtures={"capital-city": "image: python:3.12\n", "river-length": "image: node:20\n"})
    result = run_inprocess("validate", "--suite", "qa", cwd=root)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    for task in ("capital-city", "river-length"):
        assert f"fixtures/{task}.yaml" in result.text
    assert "image" in result.text


def test_a_tag_only_image_of_a_task_file_field_names_the_task_file(tmp_path: Path) -> None:
    root = _registry(tmp_path, CONFIG)
    images = {task: f"ghcr.io/acme/{task}@{DIGEST_A}" for task in TASKS}
    _folders(root, 1, {**images, TASKS[2]: "ghcr.io/acme/parse-logs:latest"}, f"ubuntu:24.04@{DIGEST_A}")
    text = cut_suite(root, "tb", "tb_v1").text
    assert (
        f"fixture {TASKS[2]} names image ghcr.io/acme/parse-logs:latest by tag alone "
        f"(drafts/tb/tasks/{TASKS[2]}/task.toml::$.environment.docker_image)"
    ) in text, text
