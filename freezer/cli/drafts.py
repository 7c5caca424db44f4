"""Commands that work on drafts: validate, cut, demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from freezer import config as config_mod
from freezer.cli import hooks, output
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
    return hooks.run_validate(list(paths) if paths else None, registry, suite, check_format(fmt))


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
