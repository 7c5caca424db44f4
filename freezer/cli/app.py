"""The typer application: the root options, the commands assembled, and the runner.

Commands live in ``drafts``, ``lockcmd``, ``guard``, ``browse``, ``signing`` and
``results``, each on a ``typer.Typer`` of its own built from :mod:`freezer.cli.options`;
this module alone gathers them (no command module imports it). Each command parses
its arguments, calls the core and prints, and returns its outcome;
:mod:`freezer.cli.exits` turns that, or the exception it raised, into the exit code.

A command pays only for itself at start-up. The core stage it runs (the audit, the
cut, the site, signing) is imported in its body, marked "start-up time" (importing
every command's core here once cost each command about 25 ms), and its module is
imported, and its commands built, only when one of them is looked up
(:data:`COMMAND_MODULES`; importing and building all 26 cost a command 20-60 ms of CPU).
"""

# No `from __future__ import annotations` here: typer reads these commands' signatures on every
# start, and a string annotation costs it an eval (the CLI is built in 34 ms instead of 63).

import importlib
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from freezer.cli import flags, output
from freezer.cli.exits import Invocation
from freezer.cli.options import ClickException, ClickUsageError, Group
from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.outcome import Outcome
from freezer.domain.release import version_line

# Each command and the module of freezer.cli that defines it, in the order --help lists them: a
# version's life (drafts, lock, cut, the guard), then reading, then signing, then the results group.
# tests/test_cli_commands.py holds it to what the modules define.
COMMAND_MODULES: dict[str, str] = {
    **dict.fromkeys(("init", "validate", "status", "next", "cut", "demo"), "drafts"),
    "lock": "lockcmd",
    **dict.fromkeys(("audit", "check"), "guard"),
    **dict.fromkeys(("list", "show", "diff", "compare", "log", "schema", "site"), "browse"),
    **dict.fromkeys(("attest", "sign", "verify", "yank", "deprecate", "checkpoint"), "signing"),
    "results": "results",
}
# typer's settings for the root and for each module's commands (see _module_commands).
_SETTINGS: dict[str, Any] = {"cls": Group, "pretty_exceptions_enable": False, "rich_markup_mode": None}

_app = typer.Typer(
    name="freezer",
    help="A frozen-version registry for benchmark fixture sets: validate, cut, audit, check.\n\n"
    "freezer -C DIR COMMAND runs as if started in DIR (as git -C does).",
    # \b keeps click from re-wrapping the example block into one paragraph.
    epilog="Examples:\n\n\b\n"
    "  freezer demo /tmp/demo        a sample registry, every kind, cut and audited\n"
    "  freezer init bench            start a registry (--kind, --adopt PATH for a benchmark you have)\n"
    "  freezer validate              check the drafts\n"
    "  freezer cut v1                freeze them as versions/<suite>_v1\n"
    "  freezer check                 the pre-merge guard (pre-commit, CI)\n"
    "  freezer audit                 prove every frozen version intact\n"
    "  freezer compare v1 v2         which scores can be compared across two versions\n\n"
    "Each command's --help says more.",
    no_args_is_help=True,
    add_completion=True,
    **_SETTINGS,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


def _directory_callback(ctx: typer.Context, directory: Optional[str]) -> Optional[str]:
    if directory is not None and not ctx.resilient_parsing:
        flags.enter_directory(directory)
    return directory


@_app.callback()
def _root(
    directory: Annotated[
        Optional[str],
        typer.Option(
            *flags.DIRECTORY,
            metavar="DIR",
            help="Run as if started in DIR (as git -C does).",
            callback=_directory_callback,
            is_eager=True,
        ),
    ] = None,
    registry: Annotated[
        Optional[Path],
        typer.Option(
            *flags.ROOT_REGISTRY,
            help="Registry root (folder with freezer.yaml) for the command that follows; "
            "one given after the command wins.",
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", "-V", help="Show the version and exit.", callback=_version_callback, is_eager=True),
    ] = False,
) -> None:
    """freezer: validate fixture drafts, cut immutable versions, and guard them afterwards."""


def run(args: list[str], asked: Invocation) -> Outcome | None:
    """Run the CLI on ``args``: the command's outcome (None when it judged nothing). What click
    refuses is raised as freezer's own error, for :func:`freezer.cli.main` to say."""
    command = root_command()
    try:
        result = command.main(args=args, prog_name="freezer", standalone_mode=False, obj=asked)
    except ClickException as exc:
        raise _refusal(exc, args, asked) from None
    except typer.Abort as exc:
        # An interrupt (or stdin closed), carried past typer by Group.invoke: see options.Group.
        raise KeyboardInterrupt from exc
    except SystemExit:
        # typer answers a closed stdout by muting the streams and exiting 1; report it as the
        # reader gone away, as the hook path does, not as invalid input.
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            raise BrokenPipeError from None
        raise  # shell completion's own exit (typer's protocol with the shell)
    # Not an outcome: --help and --version, which click ends with a bare 0.
    return result if isinstance(result, Outcome) else None


_BUILT: list[Any] = []  # click.Command: typer may vendor click (see options.py)


def root_command() -> Any:
    """The command tree (click) typer builds from ``_app``, once per process (a process that runs the CLI
    more than once, as the tests do in-process thousands of times, would pay for it on every run).
    Its commands are built as they are looked up: building all of them reads every command's
    signature, which cost a command such as ``freezer show`` 70 ms of its 0.3 s."""
    if not _BUILT:
        root = typer.main.get_command(_app)
        root.commands = _Commands()  # type: ignore[attr-defined]
        _BUILT.append(root)
    return _BUILT[0]


class _Commands(Mapping[str, Any]):
    """The root group's commands by name (click.Command values), in --help's order. Looking one up
    imports its module and builds that module's commands; their names alone (a typo's suggestions)
    import nothing, while --help and completion, which read every command, build them all."""

    def __init__(self) -> None:
        self._built: dict[str, dict[str, Any]] = {}

    def __getitem__(self, name: str) -> Any:
        module = COMMAND_MODULES[name]
        if module not in self._built:
            self._built[module] = dict(typer.main.get_group(_module_commands(module)).commands)
        return self._built[module][name]

    def get(self, name: str, default: Any = None) -> Any:
        # Not Mapping's get, which takes any KeyError for a missing name: one raised while a command
        # module is imported or built is a bug in freezer, not a command the user mistyped.
        return self[name] if name in COMMAND_MODULES else default

    def __contains__(self, name: object) -> bool:
        return name in COMMAND_MODULES

    def __iter__(self) -> Iterator[str]:
        return iter(COMMAND_MODULES)

    def __len__(self) -> int:
        return len(COMMAND_MODULES)


def _module_commands(module_name: str) -> typer.Typer:
    """The commands one module of freezer.cli defines, with the root's settings."""
    module = importlib.import_module(f"freezer.cli.{module_name}")
    commands = typer.Typer(**_SETTINGS)
    if module_name == "results":
        commands.add_typer(module.results_app, name="results")
    else:
        commands.registered_commands.extend(module.commands.registered_commands)
    return commands


def _refusal(exc: Exception, args: list[str], asked: Invocation) -> FreezerError:
    """What click refused, as freezer's error (a usage error, unless click said otherwise); click's
    usage lines are said here, and ``asked`` learns whether JSON was asked for."""
    # Not click's own show(): the message can quote what was typed, and goes through the escaping rule.
    context = getattr(exc, "ctx", None)
    if context is not None:
        output.say(context.get_usage(), err=True)
        output.say(f"Try '{context.command_path} --help' for help.", err=True)
    if asked.command is not None:
        _json_despite(context, asked)
    else:
        asked.command = output.json_command(args)
        asked.fmt = "json" if asked.command is not None else None
    message = exc.format_message()  # type: ignore[attr-defined]
    return UsageError(message) if isinstance(exc, ClickUsageError) else FreezerError(message)


def _json_despite(context: Any, asked: Invocation) -> None:
    """Set the ``--format`` of a refused command line whose command click knew, when click refused the
    arguments before reaching it (an unknown option, a missing value): as the failing command's own
    parser, told to skip what it does not know, reads it."""
    if asked.fmt is None and context is not None:
        # Refused at the root once the command was known (init takes no --registry): that command's parser.
        command = context.command if context.parent is not None else context.command.get_command(context, asked.command)
        if command is None:
            return
        if not any(param.name == "fmt" for param in command.params):
            # A command without --format (a group: results) refuses it; JSON was asked for all the same.
            asked.fmt = output.asked_format(asked.args)
            return
        lenient = typer.Context(command, info_name=asked.command, resilient_parsing=True)
        lenient.ignore_unknown_options = True
        try:
            values, _, _ = command.make_parser(lenient).parse_args(args=list(asked.args))
        except ClickException:
            return
        found = values.get("fmt")
        asked.fmt = found if isinstance(found, str) else None
