"""METHOD.md's table of environment images says why an image is unknown, as freezer recorded it
(a compose variable, a remote build context, a build argument, a Dockerfile outside the task), and
"tag only" for an image named by tag alone: never one reason for another."""

from __future__ import annotations

import json
from pathlib import Path

from test_build_references import TASKS, _harbor

from conftest import run_inprocess
from nocode_helpers import DIGEST_A, ok
from registry_helpers import cut_suite

COMPOSE = f"""\
services:
  main:
    image: ${{REGISTRY}}/serve@{DIGEST_A}
  remote:
    build: https://github.com/acme/serve.git
  cache:
    image: redis:7
"""


def _row(method: str, image: str) -> str:
    [row] = [line for line in method.splitlines() if line.startswith(f"| {TASKS[1]} | `{image}")]
    return row


def test_method_shows_the_recorded_reason_an_image_is_unknown(tmp_path: Path) -> None:
    root = _harbor(tmp_path, 1, compose=COMPOSE, dockerfile="ARG BASE\nFROM ${BASE}\n")
    cut_suite(root, "tb", "tb_v1")
    version = root / "versions/tb_v1"
    recorded = {
        image["name"]: image.get("unresolved")
        for image in json.loads((version / "manifest.json").read_bytes())["environment_images"][TASKS[1]]
    }
    method = (version / "METHOD.md").read_text(encoding="utf-8")
    variable = _row(method, "${REGISTRY}/serve")
    assert "unknown (compose fills in its variables from the environment at run time)" in variable, variable
    remote = _row(method, "https://github.com/acme/serve.git")
    assert "unknown (the build context is fetched at build time, not frozen)" in remote, remote
    assert "| unknown (tag only) |" in _row(method, "redis:7")
    for name, why in recorded.items():
        if why is not None:
            assert f"unknown ({why})" in _row(method, name)
    assert "build argument" not in variable + remote
    ok(run_inprocess("audit", "--suite", "tb", cwd=root))
