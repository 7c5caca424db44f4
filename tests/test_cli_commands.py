"""The root command's table of commands (freezer.cli.app.COMMAND_MODULES): it names every command
the command modules define, a command is built only when it runs (cut imports no other command
module), and a failure while building one is freezer's own fault, not a mistyped command."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import typer

from freezer.cli import app as app_mod
from freezer.cli.app import COMMAND_MODULES, root_command

from conftest import REPO, run_inprocess, run_probe

CLI = REPO / "freezer" / "cli"


def _defined() -> dict[str, str]:
    """Each command a module of freezer.cli defines (a typer app of its own), and that module."""
    found: dict[str, str] = {}
    for path in sorted(CLI.glob("*.py")):
        if path.stem == "app":
            continue
        module = importlib.import_module(f"freezer.cli.{path.stem}")
        if isinstance(getattr(module, "results_app", None), typer.Typer):
            found["results"] = path.stem
        commands = getattr(module, "commands", None)
        if isinstance(commands, typer.Typer):
            for info in commands.registered_commands:
                assert info.callback is not None
                found[info.name or typer.main.get_command_name(info.callback.__name__)] = path.stem
    return found


def test_the_table_names_each_command_and_its_module() -> None:
    assert _defined() == COMMAND_MODULES


def test_the_root_group_lists_and_builds_each_command_of_the_table() -> None:
    root = root_command()
    assert list(root.commands) == list(COMMAND_MODULES)  # --help lists them in this order (typer >= 0.12.4)
    assert set(root.list_commands(None)) == set(COMMAND_MODULES)
    for name in COMMAND_MODULES:
        assert root.get_command(None, name).name == name
    assert root.get_command(None, "no-such-command") is None


def test_cut_imports_no_other_command_module(tmp_path: Path) -> None:
    probe = (
        "import io, sys\n"
        "from freezer.cli import main\n"
        "sys.stdout = io.StringIO()\n"
        "code = main(['cut', '--help'])\n"
        "sys.stdout = sys.__stdout__\n"
        "print(code, sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('freezer.cli.')))\n"
    )
    out = run_probe(probe, tmp_path)
    code, modules = out.splitlines()[-1].split(" ", 1)
    assert code == "0", out
    assert "drafts" in modules, out
    for other in ("browse", "guard", "signing", "results", "lockcmd"):
        assert f"'{other}'" not in modules, out


def test_a_command_that_fails_to_build_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(module_name: str) -> typer.Typer:
        raise KeyError(module_name)

    monkeypatch.setattr(app_mod, "_BUILT", [])
    monkeypatch.setattr(app_mod, "_module_commands", broken)
    result = run_inprocess("cut", "--help")
    assert result.code == 3, result.text
    assert "Traceback" not in result.text
    assert "internal error (KeyError: 'drafts'); this is a bug in freezer" in result.err
    assert "No such command" not in result.text
