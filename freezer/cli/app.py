"""The typer application, its shared options, and the runner.

Commands live in ``drafts``, ``guard`` and ``browse``; each parses its
arguments, calls the core and prints, and returns its exit code.
:func:`freezer.cli.main` maps exceptions.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from freezer.cli import output
from freezer.domain.errors import EXIT_BROKEN_PIPE, EXIT_OK, FreezerError, UsageError

# Recent typer releases vendor click, older ones use the real package: find the
# click exception base through typer itself so either works.
_ClickException: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")

app = typer.Typer(
    name="freezer",
    help="A frozen-version registry for benchmark fixture sets: validate, cut, audit, check.\n\n"
    "freezer -C DIR COMMAND runs as if started in DIR (as git -C does).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    rich_markup_mode=None,
)

RegistryOption = Annotated[
    Optional[Path],
    typer.Option(
        "--registry", "-C", help="Registry root (folder with freezer.yaml). Default: search upwards from here."
    ),
]


def complete_format(incomplete: str) -> list[str]:
    return [name for name in output.FORMATS if name.startswith(incomplete)]


def complete_frozen(incomplete: str) -> list[str]:
    """Frozen version names of the registry around the current folder (nothing when there is none)."""
    from freezer.registry import config as config_mod
    from freezer.registry.model import Registry

    try:
        cfg = config_mod.load(None)
        names = [v.name for _, v in Registry(cfg).every_version()]
    except (FreezerError, OSError):
        return []
    return [name for name in names if name.startswith(incomplete)]


def complete_next(incomplete: str) -> list[str]:
    """The version a cut would make now, for each suite."""
    from freezer.registry import config as config_mod
    from freezer.registry.model import Registry

    try:
        cfg = config_mod.load(None)
        upcoming = [one.next_name() for one in Registry(cfg).suites.values()]
    except (FreezerError, OSError):
        return []
    return [name for name in upcoming if name.startswith(incomplete)]


FormatOption = Annotated[
    Optional[str],
    typer.Option(
        "--format",
        "-f",
        help="Output format: text, json or github (default: github under GitHub Actions).",
        autocompletion=complete_format,
    ),
]
SuiteOption = Annotated[
    Optional[str], typer.Option("--suite", "-s", help="Suite name; may be left out when only one is configured.")
]


def _version_callback(value: bool) -> None:
    if value:
        from freezer.domain.release import __version__

        typer.echo(f"freezer {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", help="Show the version and exit.", callback=_version_callback, is_eager=True),
    ] = False,
) -> None:
    """freezer: validate fixture drafts, cut immutable versions, and guard them afterwards."""


def check_format(fmt: str | None, allowed: tuple[str, ...] = output.FORMATS) -> str:
    resolved = output.resolve_format(fmt)
    if fmt is None and resolved not in allowed:
        return "text"  # GitHub annotations are for problems; a command without any prints text in CI too
    if resolved not in allowed:
        raise typer.BadParameter(f"{fmt!r} is not one of {', '.join(allowed)}", param_hint="--format")
    return resolved


def run(args: list[str]) -> int:
    """Run the CLI on ``args`` and return the exit code (never raises click errors)."""
    from freezer.cli import browse, drafts, guard, results, signing  # noqa: F401 - importing registers the commands

    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="freezer", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except _ClickException as exc:
        # Not click's own show(): the message can quote what was typed, and goes through the escaping rule.
        context = getattr(exc, "ctx", None)
        if context is not None:
            output.say(context.get_usage(), err=True)
            output.say(f"Try '{context.command_path} --help' for help.", err=True)
        message = exc.format_message()  # type: ignore[attr-defined]
        asked_json = output.json_command(args)
        if asked_json:
            output.say_json_error(asked_json, UsageError(message))
        output.say(f"freezer: error: {message}", err=True)
        return int(exc.exit_code)  # type: ignore[attr-defined]
    except typer.Abort:
        typer.echo("freezer: aborted", err=True)
        return 130
    except SystemExit:
        # typer answers a closed stdout by muting the streams and exiting 1; report it as
        # freezer.cli.main does for the hook path, not as invalid input.
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            return EXIT_BROKEN_PIPE
        raise
    except FreezerError:
        raise
    return int(result) if isinstance(result, int) else EXIT_OK
