"""Commands that work on drafts: validate, cut, demo."""

# No `from __future__ import annotations` here: typer reads these commands' signatures on every
# start, and a string annotation costs it an eval (the CLI is built in 34 ms instead of 63).

from pathlib import Path
from typing import Annotated, Optional

import typer

from freezer.cli import hooks, output
from freezer.cli.options import FormatOption, RegistryOption, SuiteOption, check_format, complete_next
from freezer.cli.terminal import ProgressBar
from freezer.domain.errors import UsageError
from freezer.domain.outcome import Outcome
from freezer.domain.problems import display_path
from freezer.domain.steps import Step, StepLog, told
from freezer.registry import config as config_mod
from freezer.registry.model import Suite

# The commands of this module; freezer.cli.app adds them to the application.
commands = typer.Typer()


@commands.command()
def init(
    directory: Annotated[Path, typer.Argument(help="Folder of the new registry (created if missing).")] = Path("."),
    suite_name: Annotated[str, typer.Option("--suite", "-s", help="Name of the first suite.")] = "bench",
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help="Kind of the suite: generic (any benchmark) or graph in freezer's format; folders, records "
            "or lm-eval in the benchmark's own.",
        ),
    ] = "generic",
    adopt: Annotated[
        Optional[Path],
        typer.Option(
            "--adopt",
            help="An existing benchmark to freeze where it stands (Harbor task folders, an lm-eval task "
            "family, a JSON or JSONL instances file); its kind and layout are read from its files.",
        ),
    ] = None,
    code_repo: Annotated[
        Optional[Path],
        typer.Option(
            "--code-repo",
            help="The git repository of the code under test (relative to the current folder); "
            "its HEAD becomes v1's pinned_sha.",
        ),
    ] = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Start a registry: freezer.yaml, a suite's drafts, a pre-commit hook, a CI workflow, editor schemas."""
    # start-up time: loaded by the command that runs it (freezer.cli.app)
    from freezer.freeze import adoption, scaffold

    fmt = check_format(fmt, ("text", "json"))
    if adopt is not None:
        result = adoption.adopt(directory, adopt, suite_name, kind, code_repo)
    else:
        result = scaffold.init_registry(directory, suite_name, kind, code_repo)
    if fmt == "json":
        return output.say_outcome("init", result)
    where = display_path(result.root)
    output.say(f"✓ created a registry in {where} with suite {result.suite!r} (kind {result.kind})")
    for line in result.guessed:
        output.say(f"  guessed: {line}")
    for rel, what in result.described.items():
        output.say(f"  {rel}".ljust(44) + what)
    for rel in result.kept:
        output.say(f"  {rel}".ljust(44) + "already there: kept as it was; add freezer's guard to it (below)")
    if result.git_initialized:
        output.say("  initialized a git repository there")
    for rel, text in result.to_add.items():
        output.say(f"add this to {rel}, merging it with what is there:")
        output.say_block(text)
    published = "once freezer's Action is published, one line replaces the workflow's install and guard"
    output.say(f"{published}: {scaffold.ACTION_USES}")
    output.say(f"next: {result.next_step}")
    return result


@commands.command()
def validate(
    paths: Annotated[
        Optional[list[Path]], typer.Argument(help="Files or folders. Default: the drafts of every configured suite.")
    ] = None,
    registry: RegistryOption = None,
    suite: SuiteOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Check drafts in three layers: YAML syntax, the JSON Schemas, and the semantic rules."""
    return hooks.run_validate(list(paths) if paths else None, registry, suite, check_format(fmt))


@commands.command()
def status(suite: SuiteOption = None, registry: RegistryOption = None, fmt: FormatOption = None) -> Outcome:
    """What a cut would do now: drafts valid, what moved since the latest version, undeclared commits."""
    # start-up time: loaded by the command that runs it (freezer.cli.app)
    from freezer.freeze import status as status_mod

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    suites = cfg.suites_named(suite)
    report = status_mod.status_of(suites, cfg)
    if fmt == "json":
        return output.say_outcome("status", report)
    for one in report.suites:
        if one.problems:
            drafts = f"{one.problems} problem(s) (freezer validate)"
        elif one.cut_ok:
            drafts = "valid"
        elif one.cut.startswith("skipped"):
            drafts = "valid by freezer validate; the cut's own checks were not run"
        else:
            drafts = "NOT ready: freezer validate passes, but the cut would refuse them"
        output.say(f"{one.suite}: next version v{one.next_version}; drafts say v{one.drafts_version}, {drafts}")
        if one.latest:
            moved = ", ".join(f"{len(ids)} {kind}" for kind, ids in one.fixtures.items())
            output.say(f"  fixtures vs {one.latest}: {moved}")
            output.say(f"  version.yaml vs {one.latest}: {', '.join(one.record) or 'unchanged'}")
            if one.pinned_sha:
                before, after = one.pinned_sha["before"], one.pinned_sha["after"]
                moved = "unchanged" if before.startswith(after.lower()) else f"{before[:8]} → {after[:8]}"
                output.say(f"  pinned SHA vs {one.latest}: {moved}")
        output.say(f"  tool-surface commits declared: {one.declared}; code: {one.code}")
        for commit in one.undeclared:
            output.say(f"  undeclared: {commit.sha[:12]} {commit.subject} ({', '.join(commit.paths[:5])})")
        output.say(f"  cut v{one.next_version} --dry-run: {one.cut}")
        for line in output.problem_lines(one.cut_problems, "text"):
            output.say(f"    {line}")
        for warning in one.cut_warnings:
            output.say(f"    ⚠ {warning}")
    return report


@commands.command("next")
def next_version(suite: SuiteOption = None, registry: RegistryOption = None, fmt: FormatOption = None) -> Outcome:
    """Start the drafts of the next version from the latest frozen one (versions/ is never touched)."""
    from freezer.freeze import nextdraft  # start-up time: loaded by the command that runs it (freezer.cli.app)

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    one = cfg.suite(suite)
    result = nextdraft.start_next(cfg.root, one)
    where = display_path(result.drafts)
    if fmt == "json":
        return output.say_outcome("next", result)
    if result.copied:
        output.say(f"copied {result.copied} file(s) of the latest version into {where}")
    if result.title_after is not None:
        output.say(f"  title: {result.title_before} → {result.title_after}")
    elif result.title_before is not None:
        output.say(f"  title kept as {result.title_before!r}: it names no version number; edit it if it should")
    if one.code_repo is None:  # no pinned SHA nor tool-surface commits to reset
        output.say(f"✓ {where}/version.yaml now says version {result.number}")
        output.say("  next: edit the fixtures (and sources: revisions), then freezer validate and freezer cut")
        return result
    output.say(f"✓ {where}/version.yaml now says version {result.number}; tool-surface commits emptied")
    output.say("  next: set pinned_sha (marked TODO), edit the fixtures, then freezer validate and freezer cut")
    return result


@commands.command()
def cut(
    version: Annotated[str, typer.Argument(help="The version to freeze, e.g. v2.", autocompletion=complete_next)],
    suite: SuiteOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Run every check and print METHOD.md; write nothing.")
    ] = False,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Freeze the drafts as versions/<suite>_vN: validate, verify at the pinned SHA, check provenance, write."""
    from freezer.freeze import cut as cut_mod  # start-up time: loaded by the command that runs it (freezer.cli.app)

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    try:
        chosen = config_mod.suite_of_label(cfg, version, suite)
    except UsageError as exc:
        raise UsageError(exc.message, hint=_next_version_hint(cfg, suite) or exc.hint) from None
    if fmt == "json":
        return output.say_outcome("cut", cut_mod.cut(cfg, chosen, version, dry_run=dry_run))

    bar = ProgressBar("validating the drafts")

    def passed(step: Step) -> None:
        bar.close()
        output.end_progress()
        output.say(f"  ✓ {step}", err=dry_run)

    try:
        result = cut_mod.cut(
            cfg,
            chosen,
            version,
            dry_run=dry_run,
            steps=StepLog(passed, lambda text: output.progress(f"{text}…")),
            progress=bar,
        )
    finally:
        bar.close()
        output.end_progress()
    for warning in result.warnings:
        output.say(f"  ⚠ {warning}", err=True)
    if dry_run:
        output.say_block(result.method)
        output.say(f"dry run: nothing was written ({result.name} would be {display_path(result.path)})", err=True)
    elif result.status == "unchanged":
        output.say(f"✓ {result.name} already frozen with identical inputs; nothing changed")
    else:
        output.say(f"✓ froze {result.name} at {display_path(result.path)} (manifest sha256 {result.manifest_sha256})")
    return result


def _next_version_hint(cfg: config_mod.RegistryConfig, suite: str | None) -> str | None:
    """What to type instead of a label that is not one: the version a cut would make now."""
    if suite is None and len(cfg.suites) != 1:
        return None
    try:
        one = cfg.suite(suite)
    except UsageError:
        return None
    upcoming = Suite.of(one).next_number()
    return f"the next free version of {one.name} is v{upcoming}: freezer cut v{upcoming}"


@commands.command()
def demo(
    directory: Annotated[
        Optional[Path], typer.Argument(help="Folder to create (must be new or empty). Default: a new temporary folder.")
    ] = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Build a sample code repository and a registry with a suite of every kind (graph, generic, Harbor task
    folders, SWE-bench records, lm-eval tasks), cut their versions, and audit them."""
    # start-up time: loaded by the command that runs it (freezer.cli.app)
    from freezer.demo.registry import COMPARE_HINT, LOOK_AT, run_demo

    fmt = check_format(fmt, ("text", "json"))
    told_progress = (lambda message: output.say(f"· {message}")) if fmt == "text" else (lambda _message: None)
    result = run_demo(directory, progress=told_progress)
    if fmt == "json":
        return output.say_outcome("demo", result)
    for cut_result in result.cuts:
        output.say(f"✓ froze {cut_result.name} (manifest sha256 {cut_result.manifest_sha256[:16]}…)")
    for audited in result.audits:
        output.say(f"{'✓' if audited.ok else '✗'} audit {audited.name}: {told(audited.checks)}; code: {audited.code}")
    if not result.ok:
        return result
    root = display_path(result.root)
    output.say()
    output.say(f"The demo registry is {root} (a git repository). Look at:")
    width = max(len(path) for path, _ in LOOK_AT)
    for path, what in LOOK_AT:
        output.say(f"  {root}/{path.ljust(width)}   {what}")
    command = output.invoked_as()
    output.say(f"Then try: cd {root} && {command} audit && {COMPARE_HINT.replace('freezer ', command + ' ', 1)}")
    return result
