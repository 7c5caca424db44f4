"""A new version's own .gitattributes switches off every checkout conversion git has."""

from __future__ import annotations

import subprocess
from pathlib import Path

from freezer.freeze.assemble import GITATTRIBUTES_TEXT


def _attributes(repo: Path, path: str) -> dict[str, str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "check-attr", "text", "filter", "ident", "working-tree-encoding", "eol", "--", path],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {line.split(": ")[1]: line.split(": ")[2] for line in out.splitlines()}


def test_root_attributes_cannot_convert_frozen_files(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitattributes").write_text("* text eol=crlf filter=x ident working-tree-encoding=UTF-16\n")
    version = tmp_path / "versions" / "graph_v1"
    version.mkdir(parents=True)
    (version / ".gitattributes").write_bytes(GITATTRIBUTES_TEXT)
    seen = _attributes(tmp_path, "versions/graph_v1/fixtures/a.yaml")
    assert seen["text"] == "unset", seen
    assert seen["filter"] == "unset", seen
    assert seen["ident"] == "unset", seen
    assert seen["working-tree-encoding"] == "unspecified", seen
    # Outside the version the root attributes still apply: the version's file is what switched them off.
    outside = _attributes(tmp_path, "drafts/a.yaml")
    assert outside["filter"] == "x" and outside["ident"] == "set", outside
