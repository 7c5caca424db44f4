"""The typer commands. Each one parses its arguments, calls the core and prints.

Commands return their exit code; :func:`freezer.cli.main` maps exceptions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from freezer import config as config_mod
from freezer.cli import output
from freezer.errors import EXIT_INVALID, EXIT_OK, FreezerError
from freezer.problems import display_path

# Recent typer releases vendor click, older ones use the real package: find the
# click exception base through typer itself so either works.
_ClickException: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")

app = typer.Typer(
    name="freezer",
    help="A frozen-version registry for benchmark fixture sets: validate, cut, audit, check.",
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
FormatOption = Annotated[
    Optional[str],
    typer.Option("--format", "-f", help="Output format: text, json or github (default: github under GitHub Actions)."),
]
SuiteOption = Annotated[
    Optional[str], typer.Option("--suite", "-s", help="Suite name; may be left out when only one is configured.")
]


def _version_callback(value: bool) -> None:
    if value:
        from freezer import __version__

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


def _check_format(fmt: str | None, allowed: tuple[str, ...] = output.FORMATS) -> str:
    resolved = output.resolve_format(fmt)
    if resolved not in allowed:
        raise typer.BadParameter(f"{fmt!r} is not one of {', '.join(allowed)}", param_hint="--format")
    return resolved


@app.command()
def validate(
    paths: Annotated[
        Optional[list[Path]], typer.Argument(help="Files or folders. Default: the drafts of every configured suite.")
    ] = None,
    registry: RegistryOption = None,
    suite: SuiteOption = None,
    fmt: FormatOption = None,
) -> int:
    """Check drafts in three layers: YAML syntax, the JSON Schemas, and the semantic rules."""
    from freezer import validate as validate_mod

    fmt = _check_format(fmt)
    if paths:
        cfg = _optional_config(registry)
        report = validate_mod.validate_paths(list(paths), cfg)
    else:
        cfg = config_mod.load(registry)
        suites = [cfg.suite(suite)] if suite else list(cfg.suites.values())
        report = validate_mod.Report()
        for one in suites:
            part = validate_mod.validate_suite(one)
            report.files += part.files
            report.sets.extend(part.sets)
            report.problems.extend(part.problems)
    if fmt == "json":
        typer.echo(output.dumps(_report_json(report)))
        return EXIT_OK if report.ok else EXIT_INVALID
    for line in output.problem_lines(report.problems, fmt):
        typer.echo(line)
    for fixture_set in report.sets:
        typer.echo(_set_summary(fixture_set))
    if report.ok:
        typer.echo(f"✓ {report.files} file(s) valid")
        return EXIT_OK
    typer.echo(f"✗ {len(report.problems)} problem(s) in {report.files} file(s)")
    return EXIT_INVALID


def _optional_config(registry: Path | None) -> config_mod.RegistryConfig | None:
    if registry is not None:
        return config_mod.load(registry)
    root = config_mod.find_root(Path.cwd())
    return config_mod.load_config(root / config_mod.CONFIG_NAME) if root else None


def _set_summary(fixture_set: object) -> str:
    from freezer.validate import FixtureSet

    assert isinstance(fixture_set, FixtureSet)
    where = display_path(fixture_set.root) if fixture_set.root else "(loose files)"
    landed = [d.data for d in fixture_set.fixtures if d.data["status"] == "landed"]
    dropped = len(fixture_set.fixtures) - len(landed)
    classes = ", ".join(sorted({f["class"] for f in landed})) or "none"
    head = ""
    if fixture_set.version is not None:
        head = f"{fixture_set.version.data['suite']} v{fixture_set.version.data['version']}: "
    counts = f"{len(fixture_set.fixtures)} fixture(s), {len(landed)} landed, {dropped} dropped"
    return f"  {where}: {head}{counts}; classes: {classes}"


def _report_json(report: object) -> dict[str, object]:
    from freezer.validate import Report

    assert isinstance(report, Report)
    sets = []
    for fixture_set in report.sets:
        sets.append(
            {
                "root": display_path(fixture_set.root) if fixture_set.root else None,
                "suite": fixture_set.version.data["suite"] if fixture_set.version else None,
                "version": fixture_set.version.data["version"] if fixture_set.version else None,
                "fixtures": sorted(d.data["task_id"] for d in fixture_set.fixtures),
            }
        )
    return {
        "ok": report.ok,
        "files": report.files,
        "sets": sets,
        "problems": [p.to_json() for p in report.problems],
    }


def run(args: list[str]) -> int:
    """Run the CLI on ``args`` and return the exit code (never raises click errors)."""
    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="freezer", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except _ClickException as exc:
        exc.show()  # type: ignore[attr-defined]
        return int(exc.exit_code)  # type: ignore[attr-defined]
    except typer.Abort:
        typer.echo("freezer: aborted", err=True)
        return 130
    except FreezerError:
        raise
    return int(result) if isinstance(result, int) else EXIT_OK
