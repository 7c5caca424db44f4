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
def status(suite: SuiteOption = None, registry: RegistryOption = None, fmt: FormatOption = None) -> int:
    """What a cut would do now: drafts valid, what moved since the latest version, undeclared commits."""
    from freezer import status as status_mod

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    suites = [cfg.suite(suite)] if suite else list(cfg.suites.values())
    found = [status_mod.suite_status(one) for one in suites]
    if fmt == "json":
        output.say_block(output.dumps([s.to_json() for s in found]))
    else:
        for one in found:
            drafts = "valid" if not one.problems else f"{one.problems} problem(s) (freezer validate)"
            output.say(f"{one.suite}: next version v{one.next_version}; drafts say v{one.drafts_version}, {drafts}")
            if one.latest:
                moved = ", ".join(f"{len(ids)} {kind}" for kind, ids in one.fixtures.items())
                output.say(f"  fixtures vs {one.latest}: {moved}")
                output.say(f"  version.yaml vs {one.latest}: {', '.join(one.record) or 'unchanged'}")
            output.say(f"  tool-surface commits declared: {one.declared}; code: {one.code}")
            for commit in one.undeclared:
                output.say(f"  undeclared: {commit['sha'][:12]} {commit['subject']} ({', '.join(commit['paths'][:5])})")
    return EXIT_INVALID if any(s.problems or s.undeclared for s in found) else EXIT_OK


@app.command("next")
def next_version(suite: SuiteOption = None, registry: RegistryOption = None) -> int:
    """Start the drafts of the next version from the latest frozen one (versions/ is never touched)."""
    from freezer import nextdraft

    cfg = config_mod.load(registry)
    result = nextdraft.start_next(cfg.root, cfg.suite(suite))
    where = display_path(result.drafts)
    if result.copied:
        output.say(f"copied {result.copied} file(s) of the latest version into {where}")
    output.say(f"✓ {where}/version.yaml now says version {result.number}; tool-surface commits emptied")
    output.say("  next: set pinned_sha (marked TODO), edit the fixtures, then freezer validate and freezer cut")
    return EXIT_OK


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
    result = cut_mod.cut(cfg, config_mod.suite_of_label(cfg, version, suite), version, dry_run=dry_run)
    if fmt == "json":
        output.say_block(
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
        output.say(f"  ✓ {step}", err=dry_run)
    for warning in result.warnings:
        output.say(f"  ⚠ {warning}", err=True)
    if dry_run:
        output.say_block(result.method)
        output.say(f"dry run: nothing was written ({result.name} would be {display_path(result.path)})", err=True)
    elif result.status == "unchanged":
        output.say(f"✓ {result.name} already frozen with identical inputs; nothing changed")
    else:
        output.say(f"✓ froze {result.name} at {display_path(result.path)} (manifest sha256 {result.manifest_sha256})")
    return EXIT_OK


@app.command()
def demo(
    directory: Annotated[
        Optional[Path], typer.Argument(help="Folder to create (must be new or empty). Default: a new temporary folder.")
    ] = None,
) -> int:
    """Build a sample code repository and a registry, cut graph v1 and v2, and audit them."""
    from freezer.demo.registry import run_demo

    result = run_demo(directory, progress=lambda message: output.say(f"· {message}"))
    for cut_result in result.cuts:
        output.say(f"✓ froze {cut_result.name} (manifest sha256 {cut_result.manifest_sha256[:16]}…)")
    for audited in result.audits:
        output.say(
            f"{'✓' if audited.ok else '✗'} audit {audited.name}: {'; '.join(audited.checks)}; code: {audited.code}"
        )
    if not all(audited.ok for audited in result.audits):
        return EXIT_INVALID
    root = display_path(result.root)
    output.say()
    output.say(f"The demo registry is {root} (a git repository). Look at:")
    output.say(f"  {root}/versions/graph_v2/METHOD.md   the rendered METHOD.md with its §Delta vs v1")
    output.say(f"  {root}/versions/api_v1/               a generic suite's version: prompts, assets, no Gate B")
    output.say(f"  {root}/freezer.yaml                  the registry config")
    output.say(f"  {root}/sample-code                   the code under test (git log shows the tool-surface commits)")
    output.say(f"Then try: cd {root} && freezer audit")
    return EXIT_OK
