"""The demo's graph suite names the commit its harness ran at (the sample code repository's pinned
SHA, as the example's version.yaml says), so its run configuration is pinned: §Delta says what
moved, never "unknown", and the cut warns of no harness repo. An unpinned harness repo stays
unknown with its reason (tests/test_unknown_references.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from conftest import EXAMPLES


def test_the_graph_examples_pin_their_harness_to_a_sample_code_commit(demo_build: Path) -> None:
    for version in ("v1", "v2"):
        declared = yaml.safe_load((EXAMPLES / "graph" / version / "version.yaml").read_text(encoding="utf-8"))
        commit = declared["run"]["harness"]["commit"]
        shown = subprocess.run(
            ["git", "cat-file", "-t", commit],
            cwd=demo_build / "sample-code",
            capture_output=True,
            text=True,
            check=False,
        )
        assert shown.stdout.strip() == "commit", (version, commit, shown.stderr)


def test_the_demo_run_configuration_is_pinned(demo_build: Path) -> None:
    for name in ("graph_v1", "graph_v2"):
        version = demo_build / "versions" / name
        delta = json.loads((version / "delta.json").read_bytes())
        assert "run configuration" not in [u["dimension"] for u in delta["unknown"]], delta["unknown"]
        method = (version / "METHOD.md").read_text(encoding="utf-8")
        assert "names no commit" not in method
    method = (demo_build / "versions/graph_v2/METHOD.md").read_text(encoding="utf-8")
    section = method.split("### Run configuration", 1)[1].split("\n### ", 1)[0]
    assert "unknown" not in section and "changed, field by field" in section, section
    v2 = json.loads((demo_build / "versions/graph_v2/delta.json").read_bytes())
    assert "run configuration" in v2["moved"]
