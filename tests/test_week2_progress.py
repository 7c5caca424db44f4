"""Issue 27, item 9: a long audit shows a progress bar on a terminal, and nowhere else.

A real audit of a suite whose second version has 3,000 files, run under a pseudo-terminal
(``pty``): each version audited is one count, and the bar is drawn from those counts.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from terminal_helpers import on_terminal

from freezer.cli.terminal import BAR_AFTER_SECONDS, PROGRESS_AFTER_VARIABLE, bar_after

from conftest import run_forked, run_inprocess

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

FILES = 3000


@pytest.fixture(scope="module")
def big(demo_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("progress") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    assert run_inprocess("next", "--suite", "tb", cwd=root).code == 0
    data = root / "drafts/tb/tasks/count-words/tests/data"
    data.mkdir()
    for index in range(FILES):
        (data / f"row-{index:04d}.txt").write_text(f"row {index}\n")
    cut = run_inprocess("cut", "v2", "--suite", "tb", cwd=root, timeout=300)
    assert cut.code == 0, cut.text
    return root


def _in_terminal(args: list[str], cwd: Path) -> tuple[int, bytes]:
    """freezer on a pseudo-terminal. The bar is asked for at once: an idle machine audits these
    3,018 files in less than the default delay."""
    return on_terminal(["-m", "freezer", *args], "0", cwd)


@pytest.mark.parametrize("args", [["audit", "--suite", "tb"], ["audit", "--no-code", "--suite", "tb"]])
def test_a_long_audit_draws_a_bar_on_a_terminal(big: Path, args: list[str]) -> None:
    code, seen = _in_terminal(args, big)
    assert code == 0, seen
    assert b"auditing tb" in seen, seen[-2000:]
    assert f"{FILES + 18} data files hashed".encode() in seen  # the audit itself ran to its end
    assert b"1/2" in seen  # drawn at the first version's count, before the last


@pytest.mark.parametrize(
    "args", [["audit", "tb_v2", "--format", "json"], ["audit", "--no-code", "-s", "tb", "-f", "json"]]
)
def test_no_bar_under_format_json_even_on_a_terminal(big: Path, args: list[str]) -> None:
    code, seen = _in_terminal(args, big)
    assert code == 0, seen
    assert b"auditing" not in seen and b'"command": "audit"' in seen


@pytest.mark.parametrize("args", [["audit", "tb_v2"], ["audit", "--no-code", "--suite", "tb"]])
def test_no_bar_when_the_output_is_not_a_terminal(big: Path, args: list[str]) -> None:
    done = run_forked(*args, cwd=big, timeout=300)  # its output goes to files, never a terminal
    assert done.code == 0, done.err
    assert "auditing" not in done.err and "\x1b" not in done.err + done.out


@pytest.mark.parametrize(
    ("value", "after"),
    [
        ("", BAR_AFTER_SECONDS),
        ("0", 0.0),
        ("-5", 0.0),
        ("2.5", 2.5),
        ("soon", BAR_AFTER_SECONDS),
        ("nan", BAR_AFTER_SECONDS),
        ("inf", float("inf")),
        ("1e300", 1e300),
    ],
)
def test_the_bar_delay_follows_the_variable_and_ignores_nonsense(
    monkeypatch: pytest.MonkeyPatch, value: str, after: float
) -> None:
    monkeypatch.setenv(PROGRESS_AFTER_VARIABLE, value)
    assert bar_after() == after
