"""Options before the command: ``--registry PATH`` as well as ``-C DIR``, on the typer path and the hooks'
fast path alike; and the JSON document named by the command click parsed, not by a word of argv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.cli import hooks

from conftest import Run, assert_clean_failure, run_inprocess, run_probe
from registry_helpers import commit_all, make_registry


@pytest.fixture(scope="module")
def frozen_v1(tmp_path_factory: pytest.TempPathFactory, cache_root: Path) -> Path:
    """One registry with v1 frozen and committed, shared by the module: no test here changes it."""
    reg = make_registry(tmp_path_factory.mktemp("root-options"), cache_root)
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    commit_all(reg, "freeze v1")
    return reg


def _through_typer(monkeypatch: pytest.MonkeyPatch, args: list[str], cwd: Path) -> Run:
    with monkeypatch.context() as patched:
        patched.setattr(hooks, "fast_path", lambda _args, _asked: None)
        return run_inprocess(*args, cwd=cwd)


def test_registry_before_the_command_is_the_registry(frozen_v1: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    after = run_inprocess("list", "--registry", str(frozen_v1), cwd=elsewhere)
    assert after.code == 0, after.text
    for before in (["--registry", str(frozen_v1)], [f"--registry={frozen_v1}"]):
        result = run_inprocess(*before, "list", cwd=elsewhere)
        assert (result.code, result.out, result.err) == (after.code, after.out, after.err)
        assert result.out.splitlines()[1].startswith("graph_v1")
    # Not given at all: the registry is searched upwards from here, and there is none.
    assert_clean_failure(run_inprocess("list", cwd=elsewhere), code=2)


def test_the_registry_given_after_the_command_wins(frozen_v1: Path, tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    wins = run_inprocess("--registry", str(nowhere), "list", "--registry", str(frozen_v1), cwd=tmp_path)
    assert wins.code == 0, wins.text
    assert wins.out.splitlines()[1].startswith("graph_v1")
    loses = run_inprocess("--registry", str(frozen_v1), "list", "-C", str(nowhere), cwd=tmp_path)
    assert_clean_failure(loses, code=2)
    assert "no registry config here" in loses.err


def test_directory_then_registry_relative_to_it(frozen_v1: Path, tmp_path: Path) -> None:
    result = run_inprocess("-C", str(frozen_v1.parent), "--registry", frozen_v1.name, "list", cwd=tmp_path)
    assert result.code == 0, result.text
    assert result.out.splitlines()[1].startswith("graph_v1")


@pytest.mark.parametrize(
    "before",
    [
        ["--registry", "{reg}"],
        ["--registry={reg}"],
        ["-C", "{reg}", "--registry", "."],
        ["--directory={reg}"],
        ["--registry", "{reg}", "-C", "{reg}"],
    ],
)
@pytest.mark.parametrize("command", [["check"], ["validate", "-f", "json"], ["check", "--registry", "{reg}"]])
def test_hooks_take_the_options_before_the_command_as_typer_does(
    frozen_v1: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: list[str], command: list[str]
) -> None:
    args = [arg.format(reg=frozen_v1) for arg in before + command]
    assert hooks.parse(args) is not None, args
    fast = run_inprocess(*args, cwd=tmp_path)
    typed = _through_typer(monkeypatch, args, tmp_path)
    assert (fast.code, fast.out, fast.err) == (typed.code, typed.out, typed.err), args
    assert fast.code == 0, fast.text


@pytest.mark.parametrize(
    "args",
    [
        ["--registry", "check"],  # no value: typer says so
        ["--registry", ".", "--registry", ".", "check"],  # given twice
        ["-C=.", "check"],
        ["--registry", ".", "audit"],  # not a hook
        ["--bogus", "check"],
    ],
)
def test_other_options_before_a_hook_go_through_typer(
    frozen_v1: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    assert hooks.parse(args) is None
    result = run_inprocess(*args, cwd=frozen_v1)
    typed = _through_typer(monkeypatch, args, frozen_v1)
    assert (result.code, result.out, result.err) == (typed.code, typed.out, typed.err)
    assert "Traceback" not in result.text


@pytest.mark.parametrize("command", ["init", "schema", "demo"])
def test_a_command_without_a_registry_refuses_one_before_it(frozen_v1: Path, command: str) -> None:
    result = run_inprocess("--registry", ".", command, cwd=frozen_v1)
    assert_clean_failure(result, code=2)
    assert f"freezer: error: {command} takes no --registry" in result.err
    asked_json = run_inprocess("--registry", ".", command, "-f", "json", cwd=frozen_v1)
    assert asked_json.code == 2
    document = json.loads(asked_json.out)
    assert (document["command"], document["exit_code"]) == (command, 2)
    assert document["error"]["message"] == f"{command} takes no --registry"


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["--registry", "{reg}", "list", "-s", "nosuch", "-f", "json"], "list"),  # the path before it is no command
        (["--registry", "{reg}", "show", "graph_v9", "-f", "json"], "show"),  # an error inside the command
        (["--registry", "{reg}", "check", "--bogus", "-f", "json"], "check"),  # refused before --format
        (["-C", "{reg}", "results", "check", "--bogus", "--format=json"], "results"),  # a sub-command
        (["--registry", "{reg}", "validate", "-s", "nosuch", "-f", "json"], "validate"),  # the fast path
        (["nosuch", "-f", "json"], "nosuch"),  # no command known: the word where it goes
        (["--registry", "{reg}", "nosuch", "-f", "json"], "nosuch"),
    ],
)
def test_the_json_document_names_the_parsed_command(frozen_v1: Path, args: list[str], command: str) -> None:
    result = run_inprocess(*[arg.format(reg=frozen_v1) for arg in args], cwd=frozen_v1.parent)
    assert result.code != 0, result.text
    assert json.loads(result.out)["command"] == command
    assert "freezer: error:" in result.err


def test_a_value_click_read_as_another_option_s_is_not_a_format(frozen_v1: Path) -> None:
    # `--base -f json`: click reads "-f" as the base ref, so no JSON was asked for.
    result = run_inprocess("check", "--base", "-f", "json", cwd=frozen_v1)
    assert_clean_failure(result, code=2)
    assert result.out == ""


def test_hooks_with_the_registry_before_them_do_not_import_typer(frozen_v1: Path, tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from freezer.cli import main\n"
        f"codes = [main(['--registry', {str(frozen_v1)!r}, 'check']), main(['-C', {str(frozen_v1)!r}, 'validate'])]\n"
        "print(codes, 'typer' in sys.modules)\n"
    )
    out = run_probe(probe, tmp_path)
    assert out.splitlines()[-1] == "[0, 0] False", out
