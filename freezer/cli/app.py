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


@app.command()
def cut(
    version: Annotated[str, typer.Argument(help="The version to freeze, e.g. v2.")],
    suite: SuiteOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Run every check and print METHOD.md; write nothing.")
    ] = False,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> int:
    """Freeze the drafts as versions/<suite>_vN: validate, verify at the pinned SHA, check provenance, write."""
    from freezer import cut as cut_mod

    fmt = _check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    result = cut_mod.cut(cfg, cfg.suite(suite), version, dry_run=dry_run)
    if fmt == "json":
        typer.echo(
            output.dumps(
                {
                    "status": result.status,
                    "name": result.name,
                    "path": display_path(result.path),
                    "manifest_sha256": result.manifest_sha256,
                    "steps": result.steps,
                    **({"method": result.method} if dry_run else {}),
                }
            )
        )
        return EXIT_OK
    for step in result.steps:
        typer.echo(f"  ✓ {step}", err=dry_run)
    if dry_run:
        typer.echo(result.method, nl=False)
        typer.echo(f"dry run: nothing was written ({result.name} would be {display_path(result.path)})", err=True)
    elif result.status == "unchanged":
        typer.echo(f"✓ {result.name} already frozen with identical inputs; nothing changed")
    else:
        typer.echo(f"✓ froze {result.name} at {display_path(result.path)} (manifest sha256 {result.manifest_sha256})")
    return EXIT_OK


@app.command()
def demo(
    directory: Annotated[
        Optional[Path], typer.Argument(help="Folder to create (must be new or empty). Default: a new temporary folder.")
    ] = None,
) -> int:
    """Build a sample code repository and a registry, cut graph v1 and v2, and audit them."""
    from freezer.demo.registry import run_demo

    result = run_demo(directory, progress=lambda message: typer.echo(f"· {message}"))
    for cut_result in result.cuts:
        typer.echo(f"✓ froze {cut_result.name} (manifest sha256 {cut_result.manifest_sha256[:16]}…)")
    root = display_path(result.root)
    typer.echo(f"\nThe demo registry is {root} (a git repository). Look at:")
    typer.echo(f"  {root}/versions/graph_v2/METHOD.md   the rendered METHOD.md with its §Delta vs v1")
    typer.echo(f"  {root}/freezer.yaml                  the registry config")
    typer.echo(f"  {root}/sample-code                   the code under test (git log shows the tool-surface commits)")
    typer.echo(f"Then try: cd {root} && freezer audit")
    return EXIT_OK


def _select_versions(
    cfg: config_mod.RegistryConfig, labels: list[str], suite: str | None
) -> dict[str, list[str] | None]:
    """Map suite name -> version names to audit (None: all of them)."""
    from freezer import registry as registry_mod
    from freezer.errors import UsageError

    if not labels:
        names = [cfg.suite(suite).name] if suite else list(cfg.suites)
        return {name: None for name in names}
    chosen: dict[str, list[str] | None] = {}
    for label in labels:
        owner, sep, number = label.rpartition("_")
        if sep and owner in cfg.suites:
            one = cfg.suites[owner]
        else:
            one, number = cfg.suite(suite), label
        name = registry_mod.version_name(one.name, registry_mod.parse_version(number))
        if not (one.versions / name).is_dir():
            raise UsageError(f"{name} is not frozen in {display_path(one.versions)}")
        listed = chosen.setdefault(one.name, [])
        assert listed is not None
        listed.append(name)
    return chosen


@app.command()
def audit(
    versions: Annotated[
        Optional[list[str]], typer.Argument(help="Versions (graph_v2, or v2 with one suite). Default: all.")
    ] = None,
    suite: SuiteOption = None,
    against: Annotated[
        Optional[str],
        typer.Option("--against", help="Report fixtures whose ground truth, oracle or grep no longer hold at REF."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail when the code repository is unreachable or fixtures are stale.")
    ] = False,
    no_code: Annotated[bool, typer.Option("--no-code", help="Check integrity only; skip the code repository.")] = False,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> int:
    """Prove frozen versions are intact: hashes, chain, METHOD.md; and re-verify them against the code."""
    import sys

    from freezer import audit as audit_mod

    fmt = _check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    results = []
    show_progress = fmt == "text" and sys.stderr.isatty()
    for suite_name, names in _select_versions(cfg, versions or [], suite).items():
        results.extend(
            audit_mod.audit_suite(
                cfg.suites[suite_name],
                names,
                code=not no_code,
                against=against,
                progress=(lambda name: typer.echo(f"\r· auditing {name}…", err=True, nl=False))
                if show_progress
                else (lambda _: None),
            )
        )
    if show_progress:
        typer.echo("\r\033[K", err=True, nl=False)
    failed = any(not r.ok for r in results)
    if strict:
        failed = failed or any(r.code.startswith("unreachable") or r.stale for r in results)
    if fmt == "json":
        typer.echo(output.dumps({"ok": not failed, "versions": [r.to_json() for r in results]}))
        return EXIT_INVALID if failed else EXIT_OK
    for result in results:
        mark = "✓" if result.ok else "✗"
        typer.echo(f"{mark} {result.name}: {'; '.join(result.checks)}; code: {result.code}")
        for failure in result.failures + result.code_failures:
            typer.echo(f"    ✗ {failure}")
        if result.against:
            if result.stale:
                typer.echo(f"    stale at {result.against[:8]}: {len(result.stale)} fixture(s)")
                for task_id, reasons in result.stale.items():
                    typer.echo(f"      ✗ {task_id}")
                    for reason in reasons:
                        typer.echo(f"          {reason}")
            else:
                typer.echo(f"    every landed fixture still holds at {result.against[:8]}")
    if not results:
        typer.echo("no frozen versions found")
    typer.echo(f"{'✗' if failed else '✓'} audited {len(results)} version(s)")
    return EXIT_INVALID if failed else EXIT_OK


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
