"""Issue 36, class 4: a container build names images beyond its ``FROM`` lines. Harbor runs a
task's ``environment/docker-compose.yaml`` when there is one (each service's ``image:``, and the
Dockerfile its ``build:`` names, ``Dockerfile-cuda`` as much as ``Dockerfile``), and a Dockerfile
copies or mounts from images (``COPY --from=<image>``, ``RUN --mount=from=<image>``). An image
named there by tag alone is unknown, never "pinned, did not change"; an earlier build stage is no
image."""

from __future__ import annotations

import json
from pathlib import Path

from freezer.demo.registry import OWN_FORMAT_CONFIG
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.resolve.images import dockerfile_images, fixture_images

from conftest import run_inprocess
from nocode_helpers import DIGEST_A, ok, write
from registry_helpers import commit_all, compare_arms, cut_suite

VERSION = "suite: tb\nversion: {number}\ntitle: Images\npurpose: >-\n  Environments a task names.\n"
TASKS = ("count-lines", "serve-model")
PINNED = f"ubuntu:24.04@{DIGEST_A}"
COMPOSE = """\
services:
  main:
    build:
      context: .
      dockerfile: Dockerfile-cuda
    image: hb__serve-model
  cache:
    image: redis:7
"""


def _harbor(
    tmp_path: Path, number: int, compose: str = COMPOSE, dockerfile: str = f"FROM {PINNED}\n", tasks: int = 1
) -> Path:
    root = tmp_path / "registry"
    if not root.exists():
        write(root / "freezer.yaml", "suites:\n" + OWN_FORMAT_CONFIG)
        run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    drafts = root / "drafts" / "tb"
    write(drafts / "version.yaml", VERSION.format(number=number))
    for task in TASKS:
        folder = drafts / "tasks" / task
        write(folder / "task.toml", f'[environment]\ndocker_image = "ghcr.io/acme/{task}@{DIGEST_A}"\n')
        write(folder / "instruction.md", f"# {task}\n\nDo {task} in /app.\n")
    for task in TASKS[-tasks:]:
        environment = drafts / "tasks" / task / "environment"
        write(environment / "docker-compose.yaml", compose)
        write(environment / "Dockerfile-cuda", dockerfile)
    commit_all(root, f"tb drafts v{number}")
    return root


def test_a_compose_sidecar_by_tag_is_unknown_never_pinned_and_unchanged(tmp_path: Path) -> None:
    root = _harbor(tmp_path, 1)
    text = cut_suite(root, "tb", "tb_v1").text
    assert f"fixture {TASKS[1]} names image redis:7 by tag alone" in text, text
    images = json.loads((root / "versions/tb_v1/manifest.json").read_bytes())["environment_images"][TASKS[1]]
    where = f"tasks/{TASKS[1]}/environment"
    assert {
        "name": "redis:7",
        "digest": None,
        "where": f"{where}/docker-compose.yaml::$.services.cache.image",
    } in images
    # the Dockerfile the compose build names, whatever its name, is read; the built image's name is not an image
    assert {"name": "ubuntu:24.04", "digest": DIGEST_A, "where": f"{where}/Dockerfile-cuda:1"} in images
    assert all(image["name"] != "hb__serve-model" for image in images)
    _harbor(tmp_path, 2)
    cut_suite(root, "tb", "tb_v2")
    method = (root / "versions/tb_v2/METHOD.md").read_text(encoding="utf-8")
    section = method.split("### Environment images", 1)[1].split("###", 1)[0]
    assert "did not change" not in section, section
    assert "redis:7 by tag alone" in section, section
    delta = json.loads((root / "versions/tb_v2/delta.json").read_bytes())
    assert "environment" not in delta["unmoved"]
    arm = compare_arms(root, "tb_v1", "tb_v2", "tb")["all"]
    assert arm["comparable"] == [TASKS[0]]
    excluded = arm["excluded"]
    assert isinstance(excluded, dict)
    assert "cannot tell whether its environment moved: tb_v2 names its image redis:7 by tag alone" in excluded[TASKS[1]]
    ok(run_inprocess("audit", "--suite", "tb", cwd=root))


def test_a_compose_build_of_a_dockerfile_outside_the_task_is_unknown(tmp_path: Path) -> None:
    root = _harbor(tmp_path, 1, compose="services:\n  main:\n    build:\n      context: ../../shared\n")
    text = cut_suite(root, "tb", "tb_v1").text
    assert "tasks/shared/Dockerfile) is not among the fixture's files" in text, text


def test_copy_and_mount_from_an_image_name_it_and_a_stage_is_not_one() -> None:
    dockerfile = (
        f"ARG TOOLS\nFROM {PINNED} AS build\nRUN make\nFROM build\n"
        "COPY --from=build /out /app\nCOPY --from=0 /out /app\n"
        "COPY --from=nginx:1.25 /etc/nginx /etc/nginx\n"
        "RUN --mount=type=bind,from=ghcr.io/acme/wheels:latest,target=/w pip install /w/*.whl\n"
        "COPY --from=${TOOLS} /bin/tool /bin/tool\n"
    )
    found = {
        (i.name, i.where, i.pinned, i.unresolved is not None)
        for i in dockerfile_images("Dockerfile", dockerfile.encode())
    }
    assert found == {
        ("ubuntu:24.04", "Dockerfile:2", True, False),
        ("nginx:1.25", "Dockerfile:7", False, False),
        ("ghcr.io/acme/wheels:latest", "Dockerfile:8", False, False),
        ("${TOOLS}", "Dockerfile:9", False, True),
    }


def test_compose_variables_remote_contexts_and_broken_compose_files_are_unknown() -> None:
    compose = (
        "services:\n  a:\n    image: ${REGISTRY}/app@" + DIGEST_A + "\n"
        "  b:\n    build: https://github.com/acme/app.git\n"
        "  c:\n    build:\n      dockerfile_inline: |\n        FROM alpine:3\n"
    )
    found = {i.where: i for i in fixture_images({}, {"env/compose.yaml": compose.encode()})}
    assert found["env/compose.yaml::$.services.a.image"].unresolved is not None
    assert found["env/compose.yaml::$.services.b.build"].unresolved is not None
    assert found["env/compose.yaml::$.services.c.build.dockerfile_inline:1"].name == "alpine:3"
    [broken] = fixture_images({}, {"env/docker-compose.yml": b"services: [\n"})
    assert not broken.pinned and broken.unresolved is not None


def test_a_cut_warns_once_per_reference_not_once_per_task(tmp_path: Path) -> None:
    root = _harbor(tmp_path, 1, tasks=2)
    text = cut_suite(root, "tb", "tb_v1").text
    assert text.count("redis:7 by tag alone") == 1, text
    assert f"fixture {TASKS[0]} names image redis:7 by tag alone" in text
    assert f"(as do 1 other fixture: {TASKS[1]})" in text
