"""freezer.runtime.programs: git and ssh-keygen are found by one rule, on the absolute entries of PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from freezer.runtime.programs import find_program


def _plant(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    return program


@pytest.mark.parametrize("name", ["git", "ssh-keygen"])
def test_a_program_in_the_current_folder_is_never_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _plant(tmp_path / "checkout", name)
    monkeypatch.chdir(tmp_path / "checkout")
    monkeypatch.setenv("PATH", os.pathsep.join(["", ".", "bin"]))
    assert find_program(name) is None


@pytest.mark.parametrize("name", ["git", "ssh-keygen"])
def test_a_program_on_an_absolute_entry_is_found_by_its_full_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _plant(tmp_path / "checkout", name)
    real = _plant(tmp_path / "tools", name)
    monkeypatch.chdir(tmp_path / "checkout")
    monkeypatch.setenv("PATH", os.pathsep.join([".", str(tmp_path / "tools")]))
    assert find_program(name) == str(real)


def test_a_changed_path_is_searched_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _plant(tmp_path / "a", "ssh-keygen"), _plant(tmp_path / "b", "ssh-keygen")
    monkeypatch.setenv("PATH", str(tmp_path / "a"))
    assert find_program("ssh-keygen") == str(first)
    monkeypatch.setenv("PATH", str(tmp_path / "b"))
    assert find_program("ssh-keygen") == str(second)
