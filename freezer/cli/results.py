"""``freezer results check``: pool scores only where the versions are comparable."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from freezer.cli import output
from freezer.cli.options import FormatOption, Group, RegistryOption, check_format
from freezer.domain.errors import EXIT_INVALID, EXIT_OK
from freezer.registry import config as config_mod

results_app = typer.Typer(
    cls=Group,
    help="Check result files against the registry before comparing scores.",
    no_args_is_help=True,
)


@results_app.command("check")
def check(
    files: Annotated[
        list[Path],
        typer.Argument(help="Result files, JSON Lines (freezer schema results), each up to 1 GiB."),
    ],
    registry: RegistryOption = None,
    fmt: FormatOption = None,
    allow_yanked: Annotated[
        bool, typer.Option("--allow-yanked", help="Check rows of yanked versions too (refused by default).")
    ] = False,
) -> int:
    """Refuse to pool scores across incomparable fixtures; re-aggregate each run on the common subset."""
    from freezer.query import results  # start-up time: loaded by the command that runs it (freezer.cli.app)

    fmt = check_format(fmt)
    cfg = config_mod.load(registry)
    report = results.check(cfg, files, allow_yanked=allow_yanked)
    if fmt == "json":
        return output.say_outcome("results", report)
    for line in output.problem_lines(report.problems, fmt):
        output.say(line)
    if report.problems_not_shown:
        output.say(f"  … and {report.problems_not_shown} more problem(s), not shown")
    for arm, excluded in report.excluded.items():
        if excluded:
            output.say(
                f"✗ arm {arm}: pooling {', '.join(report.versions)} would mix incomparable fixtures; "
                f"refused for {len(excluded)} fixture(s):"
            )
            for task, reason in excluded.items():
                output.say(f"    {task}: {reason}")
    for arm, common in report.common.items():
        output.say(f"arm {arm}: common comparable subset of {len(common)} fixture(s)")
        for run in (r for r in report.runs if r.arm == arm):
            output.say(f"  {run.version}  {run.run}: {run.passed}/{run.fixtures} passed, mean score {run.mean:.3f}")
    if report.ok:
        output.say(f"✓ {report.rows} row(s) can be compared as they are")
        return EXIT_OK
    if report.problems:
        output.say(f"✗ {report.problem_count} problem(s) in {len(files)} file(s)")
    return EXIT_INVALID
