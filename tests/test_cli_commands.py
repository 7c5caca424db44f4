"""The root command's table of commands (freezer.cli.app.COMMAND_MODULES): it names every command
the command modules define, and a command imports and builds only its own module."""

from __future__ import annotations

import importlib
from pathlib import Path

import typer

from freezer.cli.app import COMMAND_MODULES, root_command

from conftest import REPO, run_probe

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
    assert root.list_commands(None) == list(COMMAND_MODULES)
    for name in COMMAND_MODULES:
        assert root.get_command(None, name).name == name
    assert root.get_command(None, "no-such-command") is None


def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
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
