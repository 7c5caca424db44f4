"""``freezer lock``: the one command that reads the network, and its offline ``--check``."""

# No `from __future__ import annotations` here: typer reads these commands' signatures on every
# start, and a string annotation costs it an eval.

from typing import Annotated

import typer

from freezer.cli import output
from freezer.cli.options import FormatOption, RegistryOption, SuiteOption, check_format
from freezer.domain.outcome import Outcome
from freezer.registry import config as config_mod

# The commands of this module; freezer.cli.app adds them to the application.
commands = typer.Typer()


@commands.command()
def lock(
    suite: SuiteOption = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Read no network: say which images, git sources and datasets are unlocked or stale; exit 1 if any.",
        ),
    ] = False,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Pin each image, git source and dataset named by tag to what it names today (drafts' freezer.lock.json)."""
    from freezer.freeze import lock as lock_mod  # start-up time: loaded by the command that runs it (freezer.cli.app)

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    suites = cfg.suites_named(suite)
    report = lock_mod.check_locks(suites) if check else lock_mod.lock_suites(cfg, suites)
    if fmt == "json":
        return output.say_outcome("lock", report)
    for one in report.suites:
        if not one.named:
            output.say(f"{one.suite}: no image, git source nor dataset is named by tag; nothing to lock")
            continue
        for image in one.locked:
            if check:
                output.say(f"{one.suite}: {image.name} locked at {image.digest}")
            elif image.was is None:
                output.say(f"{one.suite}: {image.name} locked at {image.digest} (new)")
            elif image.was != image.digest:
                output.say(f"{one.suite}: {image.name} MOVED {image.was} → {image.digest}")
            else:
                output.say(f"{one.suite}: {image.name} unchanged at {image.digest}")
        commits = [(s.name, s.commit, s.was) for s in one.git] + [(d.name, d.commit, d.was) for d in one.datasets]
        for name, commit, was in commits:
            if check:
                output.say(f"{one.suite}: {name} locked at {commit}")
            elif was is None:
                output.say(f"{one.suite}: {name} locked at {commit} (new)")
            elif was != commit:
                output.say(f"{one.suite}: {name} MOVED {was} → {commit}")
            else:
                output.say(f"{one.suite}: {name} unchanged at {commit}")
        for name in one.unlocked:
            output.say(f"{one.suite}: {name} is named by tag and not locked ({one.named[name]})")
        for name in one.stale:
            output.say(f"{one.suite}: {name} is locked but no draft names it any more (stale)")
        for name in one.dropped:
            output.say(f"{one.suite}: {name} dropped from the lock: no draft names it any more")
        if check:
            verdict = "up to date" if one.ok else "NOT up to date: run freezer lock"
            output.say(f"{one.suite}: {one.path} {verdict}")
        else:
            output.say(f"{one.suite}: {'wrote' if one.written else 'unchanged:'} {one.path}")
    return report
