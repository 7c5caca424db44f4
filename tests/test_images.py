"""Issue 26: container images a fixture names (a Dockerfile FROM among its assets, an ``image:``
field, Harbor's task.toml ``[environment]``) are recorded in the manifest; a digest pins one; a
tag-only image in a landed fixture is a warning at cut and unknown in METHOD.md; a changed digest
moves the ``environment`` dimension."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from freezer.compare import comparability
from freezer.domain.images import ImageRef
from freezer.freeze.environment import fixture_images as fixture_images_of_set
from freezer.freeze.environment import unpinned_warnings
from freezer.parse.document import YamlDocument
from freezer.parse.tomlload import load_bytes as load_toml
from freezer.registry.config import load as load_config
from freezer.registry.model import Suite
from freezer.registry.record import read
from freezer.resolve.images import dockerfile_images, field_images, fixture_images, image_ref, is_dockerfile
from freezer.validate.fixtureset import FixtureSet

from conftest import run_inprocess
from nocode_helpers import DIGEST_A, DIGEST_B, compare, cut, drafts, frozen, manifest, ok, registry

ARMS = "    arms:\n      boxed: [record, environment]\n      plain: [record]\n"
DOCKERFILE = "assets/{task}/Dockerfile"


# --- the pure extraction ------------------------------------------------------------------------


def test_dockerfile_from_lines() -> None:
    text = (
        "# syntax=docker/dockerfile:1\n"
        f"FROM --platform=linux/amd64 python:3.12-slim@{DIGEST_A} AS build\n"
        "RUN pip install x\n"
        "FROM build AS test\n"
        "from \\\n  ubuntu:24.04\n"
        "FROM scratch\n"
        "FROM ${BASE}\n"
    )
    assert dockerfile_images("env/Dockerfile", text.encode()) == [
        ImageRef("python:3.12-slim", DIGEST_A, "env/Dockerfile:2"),
        ImageRef("ubuntu:24.04", None, "env/Dockerfile:5"),
        ImageRef(
            "${BASE}",
            None,
            "env/Dockerfile:8",
            "no ARG BASE is declared before the first FROM: its value is given at build time, if at all",
        ),
    ]


def test_fields_and_harbor_task_toml() -> None:
    text = f'[environment]\ndocker_image = "ghcr.io/acme/tb@{DIGEST_B}"\nbuild_timeout_sec = 60\n'
    document = load_toml(text.encode(), "task.toml").document
    assert document is not None
    task = document.data
    assert field_images(task) == [ImageRef("ghcr.io/acme/tb", DIGEST_B, "$.environment.docker_image")]
    assert field_images({"image": "redis:7"}) == [ImageRef("redis:7", None, "$.image")]
    assert field_images({"image": 7, "environment": "x"}) == []


@pytest.mark.parametrize(
    ("text", "digest"),
    [
        (f"alpine@{DIGEST_A}", DIGEST_A),
        ("alpine@sha256:abc", None),  # not a whole digest: not pinned
        ("alpine:latest", None),
        (f"alpine@{DIGEST_A.upper()}", None),
    ],
)
def test_only_a_whole_sha256_digest_pins(text: str, digest: str | None) -> None:
    assert image_ref(text, "$.image").digest == digest


def test_fixture_images_reads_only_dockerfiles() -> None:
    files = {
        "environment/Dockerfile": b"FROM debian:12\n",
        "tests/test.sh": b"FROM not-an-image\n",
        "build.Dockerfile": f"FROM node@{DIGEST_A}\n".encode(),
    }
    found = fixture_images({"image": "debian:12"}, files)
    # sorted by image, then by where it is named
    assert [i.where for i in found] == ["$.image", "environment/Dockerfile:1", "build.Dockerfile:1"]
    assert [is_dockerfile(p) for p in ("a/Dockerfile", "Containerfile", "Dockerfile.gpu", "docker.md")] == [
        True,
        True,
        True,
        False,
    ]


# --- a cut --------------------------------------------------------------------------------------


def _fixtures(image_a: str, image_b: str) -> tuple[dict[str, str], dict[str, str]]:
    fixtures = {"capital-city": f"assets:\n  - {DOCKERFILE.format(task='capital-city')}\n", "river-length": ""}
    files = {
        DOCKERFILE.format(task="capital-city"): f"FROM {image_a}\nRUN true\n",
    }
    if image_b:
        fixtures["river-length"] = f"assets:\n  - {DOCKERFILE.format(task='river-length')}\n"
        files[DOCKERFILE.format(task="river-length")] = f"FROM {image_b}\n"
    return fixtures, files


def _records(root: Path, *, record_format: int) -> dict[str, dict[str, Any]]:
    """qa_v1 → qa_v2 as comparability ``record_format`` gives it (audit recomputes a frozen one so)."""
    suite = load_config(root).suites["qa"]
    chain = [read(v).side() for v in Suite.of(suite).versions()]
    entry = chain[-1].manifest.comparability
    assert entry is not None
    meanings = dict(chain[-1].manifest.checks.dimensions or {})
    pairs = comparability.compare(chain, meanings, entry.arms, entry.groups, record_format=record_format)
    return {pair.arm: pair.to_json() for pair in pairs}


def _two(tmp_path: Path, first: tuple[str, str], second: tuple[str, str], arms: str = ARMS) -> tuple[Path, str]:
    root = registry(tmp_path, arms)
    fixtures, files = _fixtures(*first)
    drafts(root, 1, fixtures=fixtures, files=files)
    cut(root, "v1")
    fixtures, files = _fixtures(*second)
    drafts(root, 2, fixtures=fixtures, files=files)
    return root, cut(root, "v2").text


def test_a_changed_digest_moves_environment(tmp_path: Path) -> None:
    root, text = _two(tmp_path, (f"python@{DIGEST_A}", f"node@{DIGEST_A}"), (f"python@{DIGEST_B}", f"node@{DIGEST_A}"))
    assert "by tag alone" not in text
    images = manifest(root, 2)["environment_images"]
    assert images["capital-city"] == [
        {"name": "python", "digest": DIGEST_B, "where": "assets/capital-city/Dockerfile:1"}
    ]
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "environment" in delta["moved"]
    assert delta["environment"] == [
        {
            "path": "capital-city assets/capital-city/Dockerfile:1",
            "change": "changed",
            "old": f"python@{DIGEST_A}",
            "new": f"python@{DIGEST_B}",
        }
    ]
    records = compare(root, "qa_v1", "qa_v2")
    # Comparability format 4: the image is capital-city's own, so it moves capital-city alone.
    assert records["boxed"]["moved"] == [] and records["boxed"]["comparable"] == ["river-length"]
    assert (
        f"its environment moved: its image python@{DIGEST_A} → python@{DIGEST_B} (assets/capital-city/Dockerfile:1)"
        in records["boxed"]["excluded"]["capital-city"]
    )
    # Format 3, which versions cut before froze, moved the environment of every fixture of the arm.
    old = _records(root, record_format=3)
    assert old["boxed"]["moved"] == ["environment"] and old["boxed"]["comparable"] == []
    assert "moved for arm boxed: environment (capital-city" in old["boxed"]["excluded"]["river-length"]
    # the Dockerfile is capital-city's asset, so its new content changes that fixture for every arm
    assert records["plain"]["comparable"] == ["river-length"]
    assert "its file assets/capital-city/Dockerfile changed" in records["plain"]["excluded"]["capital-city"]
    method = (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")
    assert "## Environment images" in method and "### Environment images" in method
    assert "unknown" not in method.lower()
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))


def test_pinned_images_that_stay_keep_scores_comparable(tmp_path: Path) -> None:
    pinned = (f"python@{DIGEST_A}", f"node@{DIGEST_B}")
    root, _ = _two(tmp_path, pinned, pinned)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "environment" in delta["unmoved"] and "environment" not in delta
    assert compare(root, "qa_v1", "qa_v2")["boxed"]["comparable"] == ["capital-city", "river-length"]
    assert "each pinned by digest, did not change" in (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")


def test_a_tag_only_image_is_a_warning_and_unknown(tmp_path: Path) -> None:
    root, text = _two(tmp_path, (f"python@{DIGEST_A}", ""), ("python:3.12", "node:latest"))
    assert "fixture capital-city names image python:3.12 by tag alone" in text
    assert "fixture river-length names image node:latest by tag alone" in text
    method = (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")
    table = method.split("## Environment images", 1)[1].split("\n## ", 1)[0]
    assert "| capital-city | `python:3.12` | unknown (tag only) |" in table
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    [unknown] = [u for u in delta["unknown"] if u["dimension"] == "environment"]
    assert "qa_v2: fixture capital-city names image python:3.12 by tag alone" in unknown["why"]
    assert "(and 1 more)" in unknown["why"]
    # the digest that went away is a change too
    assert "environment" in delta["moved"]
    boxed = compare(root, "qa_v1", "qa_v2")["boxed"]
    assert boxed["comparable"] == []


def test_tag_only_on_both_sides_is_unknown_not_unmoved(tmp_path: Path) -> None:
    loose = ("python:3.12", "")
    root, _ = _two(tmp_path, loose, loose)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "environment" not in delta["moved"] and "environment" not in delta["unmoved"]
    assert any(u["dimension"] == "environment" for u in delta["unknown"])
    boxed = compare(root, "qa_v1", "qa_v2")["boxed"]
    assert boxed["excluded"]["capital-city"] == (
        "cannot tell whether its environment moved: qa_v2 names its image python:3.12 by tag alone "
        "(assets/capital-city/Dockerfile:1)"
    )
    assert boxed["comparable"] == ["river-length"]  # it names no image: its environment is not unknown
    assert (
        "cannot tell whether environment moved" in _records(root, record_format=3)["boxed"]["excluded"]["capital-city"]
    )
    assert compare(root, "qa_v1", "qa_v2")["plain"]["comparable"] == ["capital-city", "river-length"]
    method = (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")
    assert "The environment is unknown: qa_v2: fixture capital-city" in method


def test_a_dropped_fixture_with_a_tag_only_image_is_no_warning(tmp_path: Path) -> None:
    root = registry(tmp_path)
    fixtures, files = _fixtures("python:3.12", "")
    fixtures["capital-city"] = fixtures["capital-city"] + "dropped:\n  stage: drafting\n  reason: ambiguous\n"
    drafts(root, 1, fixtures=fixtures, files=files)
    folder = root / "drafts/qa/fixtures/capital-city.yaml"
    folder.write_text(folder.read_text(encoding="utf-8").replace("status: landed", "status: dropped"), "utf-8")
    text = cut(root, "v1").text
    assert "by tag alone" not in text
    assert manifest(root, 1)["environment_images"]["capital-city"][0]["digest"] is None


def test_the_default_arm_depends_on_environment_when_a_fixture_names_an_image(tmp_path: Path) -> None:
    root, _ = _two(tmp_path, (f"python@{DIGEST_A}", ""), (f"python@{DIGEST_B}", ""), arms="")
    assert manifest(root, 2)["comparability"]["arms"]["all"][-1] == "environment"
    assert manifest(root, 1)["comparability"]["environment"] != manifest(root, 2)["comparability"]["environment"]
    # The Dockerfile is the fixture's own asset: it moves that fixture, not the suite's assets, and
    # its image that fixture's environment, not the suite's (format 4; format 3 moved environment).
    assert compare(root, "qa_v1", "qa_v2")["all"]["moved"] == []
    assert _records(root, record_format=3)["all"]["moved"] == ["environment"]


def test_a_suite_without_images_records_none(tmp_path: Path) -> None:
    root = registry(tmp_path)
    drafts(root, 1)
    cut(root, "v1")
    assert "environment_images" not in manifest(root, 1)
    assert "Environment images" not in (frozen(root, 1) / "METHOD.md").read_text(encoding="utf-8")


def test_a_fixture_made_of_files_names_the_images_of_its_dockerfiles_and_task_file(tmp_path: Path) -> None:
    """What a folder fixture gives (its task file's fields and a ``files`` list): the entry point the
    folders kind feeds."""
    drafts_root = tmp_path / "drafts"
    for rel, text in {
        "tasks/a/environment/Dockerfile": f"FROM python@{DIGEST_A}\n",
        "tasks/b/environment/Dockerfile": "FROM python:3.12\n",
        "tasks/b/tests/test.sh": "FROM nothing\n",
    }.items():
        (drafts_root / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts_root / rel).write_text(text, encoding="utf-8")
    docs = [
        YamlDocument("a", {"task_id": "a", "status": "landed", "files": ["tasks/a/environment/Dockerfile"]}),
        YamlDocument(
            "b",
            {
                "task_id": "b",
                "status": "landed",
                "environment": {"docker_image": f"ghcr.io/x/b@{DIGEST_B}"},
                "files": ["tasks/b/environment/Dockerfile", "tasks/b/tests/test.sh", "../outside/Dockerfile"],
            },
        ),
    ]
    fixture_set = FixtureSet(drafts_root, fixtures=docs)
    images = fixture_images_of_set(fixture_set)
    assert images == {
        "a": (ImageRef("python", DIGEST_A, "tasks/a/environment/Dockerfile:1"),),
        "b": (
            ImageRef("ghcr.io/x/b", DIGEST_B, "$.environment.docker_image"),
            ImageRef("python:3.12", None, "tasks/b/environment/Dockerfile:1"),
        ),
    }
    [warning] = unpinned_warnings(fixture_set, images)
    assert warning.startswith("fixture b names image python:3.12 by tag alone (tasks/b/environment/Dockerfile:1)")
