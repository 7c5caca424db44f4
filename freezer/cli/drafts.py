"""Commands that work on drafts: validate, cut, demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from freezer import config as config_mod
from freezer.cli import output
from freezer.cli.app import FormatOption, RegistryOption, SuiteOption, app, check_format
from freezer.errors import EXIT_INVALID, EXIT_OK
from freezer.problems import display_path


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

    fmt = check_format(fmt)
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

    fmt = check_format(fmt, ("text", "json"))
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
                    "warnings": result.warnings,
                    "timings": result.timings,
                    **({"method": result.method} if dry_run else {}),
                }
            )
        )
        return EXIT_OK
    for step in result.steps:
        typer.echo(f"  ✓ {step}", err=dry_run)
    for warning in result.warnings:
        typer.echo(f"  ⚠ {warning}", err=True)
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
    for audited in result.audits:
        typer.echo(
            f"{'✓' if audited.ok else '✗'} audit {audited.name}: {'; '.join(audited.checks)}; code: {audited.code}"
        )
    if not all(audited.ok for audited in result.audits):
        return EXIT_INVALID
    root = display_path(result.root)
    typer.echo(f"\nThe demo registry is {root} (a git repository). Look at:")
    typer.echo(f"  {root}/versions/graph_v2/METHOD.md   the rendered METHOD.md with its §Delta vs v1")
    typer.echo(f"  {root}/freezer.yaml                  the registry config")
    typer.echo(f"  {root}/sample-code                   the code under test (git log shows the tool-surface commits)")
    typer.echo(f"Then try: cd {root} && freezer audit")
    return EXIT_OK


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
