"""Commands that guard frozen versions: audit, check."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from freezer.cli import hooks, output
from freezer.cli.options import FormatOption, RegistryOption, SuiteOption, check_format, complete_frozen
from freezer.cli.signing import status_line
from freezer.cli.terminal import ProgressBar
from freezer.domain.errors import EXIT_INVALID, EXIT_OK, UsageError
from freezer.domain.problems import Problem, display_path
from freezer.domain.steps import no_progress, told
from freezer.registry import config as config_mod
from freezer.registry import registry as registry_mod
from freezer.registry.model import Registry
from freezer.trust import checkpoint, lifecycle

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
) -> int:
    """Prove frozen versions are intact: hashes, chain, METHOD.md; and re-verify them against the code."""
    from freezer.guard import audit as audit_mod  # start-up time: loaded by the command that runs it (freezer.cli.app)

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    results = []
    for suite_name, names in _select_versions(cfg, versions or [], suite).items():
        bar = ProgressBar(f"auditing {suite_name}") if fmt == "text" else None
        try:
            results.extend(
                audit_mod.audit_suite(
                    cfg.suites[suite_name],
                    names,
                    code=not no_code,
                    against=against,
                    progress=bar or no_progress,
                )
            )
        finally:
            if bar is not None:
                bar.close()
    # Under --strict, a version whose code could not be checked, or whose fixtures went stale, fails too.
    strict_failures = {r.name for r in results if strict and (r.code_status == "unreachable" or r.stale)}
    signatures = _signatures(cfg, results)
    log_problems = lifecycle.verify_log(cfg.root)
    checkpoint_problems, signed_heads = checkpoint.verify(cfg)
    if signed_heads is not None and not checkpoint_problems:
        replay = checkpoint.remember(cfg, signed_heads)
        if replay:
            checkpoint_problems.append(Problem(checkpoint.FILE, None, None, (), replay, "checkpoint"))
    log_problems += checkpoint_problems
    # A signature that does not verify always fails; a missing one only under --require-signature.
    unsigned = {name for name, s in signatures.items() if s.status == "invalid" or (require_signature and not s.ok)}
    failed = any(not r.ok for r in results) or bool(strict_failures) or bool(unsigned) or bool(log_problems)
    if fmt == "json":
        rows = [
            {**r.to_json(), "signature": signatures[r.name].to_json() if r.name in signatures else None}
            for r in results
        ]
        log = [p.to_json() for p in log_problems]
        return output.say_json("audit", {"strict": strict, "versions": rows, "status_log": log}, ok=not failed)
    for result in results:
        mark = "✓" if result.ok and result.name not in strict_failures else "✗"
        output.say(f"{mark} {result.name}: {told(result.checks)}; code: {result.code}")
        if result.ok and result.name in strict_failures:
            why = "its code could not be checked" if result.code_status == "unreachable" else "fixtures are stale"
            output.say(f"    ✗ --strict: {why}")
        if result.name in signatures:
            status = signatures[result.name]
            mark = "✗" if result.name in unsigned else " "
            output.say(f"  {mark} signature: {status_line(status).split(': ', 1)[1]}")
            for problem in status.problems:
                output.say(f"      {problem}")
        for failure in result.failures + result.code_failures:
            output.say(f"    ✗ {failure}")
        if result.against:
            if result.stale:
                output.say(f"    stale at {result.against[:8]}: {len(result.stale)} fixture(s)")
                for task_id, reasons in result.stale.items():
                    output.say(f"      ✗ {task_id}")
                    for reason in reasons:
                        output.say(f"          {reason}")
            else:
                output.say(f"    every landed fixture still holds at {result.against[:8]}")
    for problem in log_problems:
        output.say(f"✗ {problem}")
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
        ]
        output.say(f"✗ audited {len(results)} version(s): {', '.join(r for r in reasons if r)}")
    return EXIT_INVALID if failed else EXIT_OK


def _signatures(cfg: config_mod.RegistryConfig, results: list[Any]) -> dict[str, Any]:
    """Each audited version's signature status (versions that failed their audit are not asked)."""
    from freezer.trust import signing  # start-up time: loaded by the command that runs it (freezer.cli.app)

    by_name = {v.name: (one.config, v) for one, v in Registry(cfg).every_version()}
    return {r.name: signing.verify(cfg, *by_name[r.name]) for r in results if r.ok and r.name in by_name}


@commands.command()
def check(
    base: Annotated[
        Optional[str],
        typer.Option(
            "--base",
            help="Ref to compare with. Default: the merge-base with origin/$GITHUB_BASE_REF, the upstream, "
            "or origin/HEAD; else HEAD.",
        ),
    ] = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> int:
    """Pre-merge guard: drafts validate, frozen files are untouched, new versions verify and chain."""
    return hooks.run_check(base, registry, check_format(fmt))
