"""Commands that guard frozen versions: audit, check."""

# No `from __future__ import annotations` here: typer reads these commands' signatures on every
# start, and a string annotation costs it an eval (the CLI is built in 34 ms instead of 63).

from typing import Annotated, Optional

import typer

from freezer.cli import hooks, output
from freezer.cli.options import FormatOption, RegistryOption, SuiteOption, check_format, complete_frozen
from freezer.cli.signing import status_line
from freezer.cli.terminal import BarPerPart
from freezer.domain.errors import UsageError
from freezer.domain.outcome import Outcome
from freezer.domain.problems import display_path
from freezer.domain.progress import no_part_progress
from freezer.domain.steps import told
from freezer.registry import config as config_mod
from freezer.registry import registry as registry_mod

# The commands of this module; freezer.cli.app adds them to the application.
commands = typer.Typer()


def _select_versions(
    cfg: config_mod.RegistryConfig, labels: list[str], suite: str | None
) -> dict[str, list[str] | None]:
    """Map suite name -> version names to audit (None: all of them)."""
    if not labels:
        names = [cfg.suite(suite).name] if suite else list(cfg.suites)
        return {name: None for name in names}
    chosen: dict[str, list[str] | None] = {}
    for label in labels:
        one = config_mod.suite_of_label(cfg, label, suite)
        name = registry_mod.version_name(one.name, registry_mod.parse_version(label, one.name))
        if not (one.versions / name).is_dir() and not (one.versions / name).is_symlink():
            raise UsageError(f"{name} is not frozen in {display_path(one.versions)}")
        listed = chosen.setdefault(one.name, [])
        assert listed is not None
        listed.append(name)
    return chosen


@commands.command()
def audit(
    versions: Annotated[
        Optional[list[str]],
        typer.Argument(help="Versions (graph_v2, or v2 with one suite). Default: all.", autocompletion=complete_frozen),
    ] = None,
    suite: SuiteOption = None,
    against: Annotated[
        Optional[str],
        typer.Option(
            "--against",
            metavar="REF",
            help="A commit or ref of the code repository (code_repo in freezer.yaml, not the registry): "
            "report fixtures whose ground truth, oracle or grep no longer hold there.",
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail when the code repository is unreachable or fixtures are stale.")
    ] = False,
    no_code: Annotated[bool, typer.Option("--no-code", help="Check integrity only; skip the code repository.")] = False,
    require_signature: Annotated[
        bool,
        typer.Option("--require-signature", help="Fail on any version not signed by enough allowed signers."),
    ] = False,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Prove frozen versions are intact: hashes, chain, METHOD.md; and re-verify them against the code."""
    # start-up time: loaded by the command that runs it (freezer.cli.app)
    from freezer.guard import audit as audit_mod
    from freezer.guard.auditreport import judge  # as above

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    selection = [(cfg.suites[name], names) for name, names in _select_versions(cfg, versions or [], suite).items()]
    # A bar per suite, one count per version audited: it advances as each version's result comes in.
    bars = BarPerPart([f"auditing {one.name}" for one, _ in selection]) if fmt == "text" else None
    try:
        results = audit_mod.audit_suites(
            selection, code=not no_code, against=against, progress=bars or no_part_progress
        )
    finally:
        if bars is not None:
            bars.close()
    report = judge(cfg, results, strict=strict, require_signature=require_signature)
    if fmt == "json":
        return output.say_outcome("audit", report)
    strict_failures, signatures, unsigned = report.strict_failures, report.signatures, report.unsigned
    log_problems, failed = report.log_problems, not report.ok
    for result in results:
        mark = "✓" if result.ok and result.name not in strict_failures else "✗"
        output.say(f"{mark} {result.name}: {told(result.checks)}; code: {result.code}")
        if result.ok and result.name in strict_failures:
            why = (
                "its code could not be checked"
                if result.code_status == "unreachable"
                else "its pinned commit is on no branch (only this machine holds it)"
                if result.pin_reach == ""
                else "fixtures are stale"
            )
            output.say(f"    ✗ --strict: {why}")
        if result.name in signatures:
            status = signatures[result.name]
            mark = "✗" if result.name in unsigned else " "
            output.say(f"  {mark} signature: {status_line(status).split(': ', 1)[1]}")
            for problem in status.problems:
                output.say(f"      {problem}")
        for failure in result.failures + result.code_failures:
            output.say(f"    ✗ {failure}")
        for warning in result.warnings:
            output.say(f"    ⚠ {warning}")
        if result.against:
            if result.stale:
                output.say(f"    stale at {result.against[:8]}: {len(result.stale)} fixture(s)")
                for task_id, reasons in result.stale.items():
                    output.say(f"      ✗ {task_id}")
                    for reason in reasons:
                        output.say(f"          {reason}")
            else:
                output.say(f"    every landed fixture still holds at {result.against[:8]}")
    for logged in log_problems + report.stored_results:
        output.say(f"✗ {logged}")
    if not results:
        output.say("no frozen versions found")
    broken = sum(not r.ok for r in results)
    if not failed:
        output.say(f"✓ audited {len(results)} version(s)")
    else:
        strict_only = len(strict_failures - {r.name for r in results if not r.ok})
        reasons = [
            f"{broken} failed" if broken else "",
            f"{strict_only} failed --strict" if strict_only else "",
            f"{len(unsigned)} not signed" if unsigned else "",
            "the status log or the checkpoint does not verify" if log_problems else "",
            f"{len(report.stored_results)} problem(s) in stored results" if report.stored_results else "",
        ]
        output.say(f"✗ audited {len(results)} version(s): {', '.join(r for r in reasons if r)}")
    return report


@commands.command()
def check(
    base: Annotated[
        Optional[str],
        typer.Option(
            "--base",
            help="Ref to compare with. Default: on a GitHub push, the commit before the push; on a pull "
            "request, the merge-base with its base branch; else the upstream or origin/HEAD; else HEAD.",
        ),
    ] = None,
    no_code: Annotated[
        bool,
        typer.Option("--no-code", help="Check new versions' integrity only; skip the code repository."),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help="Fail when a new version's code repository is unreachable or its pin is on no branch."
        ),
    ] = False,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Pre-merge guard: drafts validate, frozen files are untouched, new versions verify, chain and pass
    audit's code checks when the code repository is reachable."""
    return hooks.run_check(base, registry, check_format(fmt), code=not no_code, strict=strict)
