"""A version.yaml the drafts walk refuses (a link, a FIFO) is reported once, as what it is, and
never a second time as missing (the native-formats hostile campaign, case 9)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import assert_clean_failure, run_inprocess
from nocode_helpers import drafts, registry


def _link(version: Path) -> None:
    target = version.with_name("real-version.yaml")
    version.rename(target)
    version.symlink_to(target.name)


def _fifo(version: Path) -> None:
    version.unlink()
    os.mkfifo(version)


@pytest.mark.parametrize(("make", "said"), [(_link, "symbolic link"), (_fifo, "not a regular file")])
def test_a_refused_version_file_is_reported_once(tmp_path: Path, make: object, said: str) -> None:
    root = registry(tmp_path)
    drafts(root, 1)
    version = root / "drafts" / "qa" / "version.yaml"
    make(version)  # type: ignore[operator]
    for command in (["validate", "--suite", "qa"], ["cut", "--dry-run", "--suite", "qa", "v1"]):
        result = run_inprocess(*command, cwd=root)
        assert_clean_failure(result, 1)
        text = result.out + result.err
        assert said in text, text
        assert "missing: a drafts folder needs a version.yaml" not in text, text
    assert not (root / "versions").exists() or not any((root / "versions").iterdir())
