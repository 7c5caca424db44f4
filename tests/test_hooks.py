"""The typer-free path of check and validate answers exactly as typer does, and only for plain forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from freezer.cli import hooks

from conftest import Run, run_inprocess, run_probe
from registry_helpers import commit_all


@pytest.fixture
def frozen_v1(reg: Path) -> Path:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    commit_all(reg, "freeze v1")
    return reg


def _through_typer(monkeypatch: pytest.MonkeyPatch, args: list[str], cwd: Path) -> Run:
    with monkeypatch.context() as patched:
        patched.setattr(hooks, "fast_path", lambda _args, _asked: None)
        return run_inprocess(*args, cwd=cwd)


PLAIN = [
    ["check"],
    ["check", "--base", "HEAD"],
    ["check", "--base=HEAD", "-f", "json"],
    ["check", "--format", "github"],
    ["check", "-C", "."],
    ["validate"],
    ["validate", "-s", "graph", "--format", "json"],
    ["validate", "--format=github", "--registry", "."],
    ["validate", "--suite", "nosuch"],
]


@pytest.mark.parametrize("state", ["clean", "frozen file edited", "draft broken"])
def test_fast_path_answers_as_typer_does(frozen_v1: Path, monkeypatch: pytest.MonkeyPatch, state: str) -> None:
    if state == "frozen file edited":
        manifest = frozen_v1 / "versions/graph_v1/manifest.json"
        manifest.chmod(0o644)
        manifest.write_text(manifest.read_text().replace('"graph"', '"graph" ', 1))
    elif state == "draft broken":
        draft = next((frozen_v1 / "drafts").rglob("*.yaml"))
        draft.write_text(draft.read_text() + "\n: [unclosed\n")
    expected_code = {"clean": 0, "frozen file edited": 1, "draft broken": 1}[state]
    for args in PLAIN:
        assert hooks.parse(args) is not None, args
        fast = run_inprocess(*args, cwd=frozen_v1)
        typed = _through_typer(monkeypatch, args, frozen_v1)
        assert (fast.code, fast.out, fast.err) == (typed.code, typed.out, typed.err), args
        if args != ["validate", "--suite", "nosuch"] and not (state == "frozen file edited" and args[0] == "validate"):
            assert fast.code == expected_code, (args, fast.text)
    assert run_inprocess("validate", "--suite", "nosuch", cwd=frozen_v1).code == 2


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--help"],
        ["check", "--bogus"],
        ["check", "--base"],
        ["check", "--base", "HEAD", "--base", "HEAD"],
        ["check", "--format", "xml"],
        ["check", "-C=."],
        ["validate", "drafts"],
        ["validate", "-C"],
        ["audit"],
        [],
    ],
)
def test_anything_else_goes_through_typer(frozen_v1: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    assert hooks.parse(args) is None
    result = run_inprocess(*args, cwd=frozen_v1)
    typed = _through_typer(monkeypatch, args, frozen_v1)
    assert (result.code, result.out, result.err) == (typed.code, typed.out, typed.err)
    if args in (["check", "--bogus"], ["check", "--base"], ["check", "--format", "xml"], ["validate", "-C"]):
        assert result.code == 2, result.text


def test_hook_commands_do_not_import_typer(frozen_v1: Path) -> None:
    probe = (
        "import sys\n"
        "from freezer.cli import main\n"
        "codes = [main(['check']), main(['validate', '-f', 'json'])]\n"
        "print(codes, 'typer' in sys.modules, 'typer' in str(sorted(sys.modules)))\n"
    )
    out = run_probe(probe, frozen_v1)
    assert out.splitlines()[-1] == "[0, 0] False False", out
