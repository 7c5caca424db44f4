"""Issue 26: a Dockerfile among the suite's assets that no fixture names is the environment every
fixture shares. Its images are recorded as the suite's (``suite_images``); a change of one moves
``environment`` for every fixture of an arm that depends on it, and a tag-only one leaves every
fixture's environment unknown, while a fixture's own image still moves that fixture alone."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_inprocess
from nocode_helpers import DIGEST_A, DIGEST_B, compare, cut, drafts, frozen, manifest, ok, registry

ARMS = "    arms:\n      boxed: [record, environment]\n      plain: [record]\n"
OWN = "assets:\n  - assets/capital-city/Dockerfile\n"


def _version(root: Path, number: int, shared: str, own: str, *, claimed: bool = False) -> None:
    fixtures = {"capital-city": OWN, "river-length": "assets:\n  - harness/Dockerfile\n" if claimed else ""}
    files = {"harness/Dockerfile": f"ARG BASE={shared}\nFROM ${{BASE}}\n", "assets/capital-city/Dockerfile": own}
    drafts(root, number, fixtures=fixtures, files=files)


def test_the_suites_dockerfile_is_recorded_and_moves_every_fixture(tmp_path: Path) -> None:
    root = registry(tmp_path, ARMS)
    _version(root, 1, f"python@{DIGEST_A}", f"FROM node@{DIGEST_A}\n")
    cut(root, "v1")
    recorded = manifest(root, 1)
    assert recorded["suite_images"] == [{"name": "python", "digest": DIGEST_A, "where": "harness/Dockerfile:2"}]
    assert list(recorded["environment_images"]) == ["capital-city"]  # its own, not the suite's
    _version(root, 2, f"python@{DIGEST_B}", f"FROM node@{DIGEST_A}\n")
    cut(root, "v2")
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "environment" in delta["moved"]
    assert [c["path"] for c in delta["environment"]] == ["(suite) harness/Dockerfile:2"]
    boxed = compare(root, "qa_v1", "qa_v2")["boxed"]
    assert boxed["moved"] == ["environment"] and boxed["comparable"] == []
    for task in ("capital-city", "river-length"):
        assert (
            f"environment ((suite) harness/Dockerfile:2 python@{DIGEST_A} → python@{DIGEST_B})"
            in (boxed["excluded"][task])
        )
    assert compare(root, "qa_v1", "qa_v2")["plain"]["comparable"] == ["capital-city", "river-length"]
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))


def test_a_fixtures_own_image_beside_an_unchanged_suite_image_moves_that_fixture(tmp_path: Path) -> None:
    root = registry(tmp_path, ARMS)
    _version(root, 1, f"python@{DIGEST_A}", f"FROM node@{DIGEST_A}\n")
    cut(root, "v1")
    _version(root, 2, f"python@{DIGEST_A}", f"FROM node@{DIGEST_B}\n")
    cut(root, "v2")
    boxed = compare(root, "qa_v1", "qa_v2")["boxed"]
    assert boxed["moved"] == [] and boxed["comparable"] == ["river-length"]
    assert f"its image node@{DIGEST_A} → node@{DIGEST_B}" in boxed["excluded"]["capital-city"]


def test_a_tag_only_suite_image_is_a_warning_and_unknown_for_every_fixture(tmp_path: Path) -> None:
    root = registry(tmp_path, ARMS)
    _version(root, 1, "python:3.12", f"FROM node@{DIGEST_A}\n")
    text = cut(root, "v1").text
    assert "the suite's Dockerfile names image python:3.12 by tag alone (harness/Dockerfile:2)" in text
    _version(root, 2, "python:3.12", f"FROM node@{DIGEST_A}\n")
    cut(root, "v2")
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    [unknown] = [u for u in delta["unknown"] if u["dimension"] == "environment"]
    assert unknown["why"].startswith("qa_v2: the suite's Dockerfile names image python:3.12 by tag alone")
    boxed = compare(root, "qa_v1", "qa_v2")["boxed"]
    assert boxed["comparable"] == []
    for task in ("capital-city", "river-length"):
        assert "cannot tell whether environment moved: qa_v2: the suite's Dockerfile" in boxed["excluded"][task]


def test_a_dockerfile_a_fixture_names_is_that_fixtures_not_the_suites(tmp_path: Path) -> None:
    root = registry(tmp_path, ARMS)
    _version(root, 1, f"python@{DIGEST_A}", f"FROM node@{DIGEST_A}\n", claimed=True)
    cut(root, "v1")
    recorded = manifest(root, 1)
    assert "suite_images" not in recorded
    assert recorded["environment_images"]["river-length"] == [
        {"name": "python", "digest": DIGEST_A, "where": "harness/Dockerfile:2"}
    ]
