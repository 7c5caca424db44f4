"""The hook commands, ``check`` and ``validate``, without typer.

pre-commit and CI run them on every commit, and importing typer is about a
quarter of ``freezer check`` (measured on a registry of 100 versions: 162 ms
through typer, 123 ms without). So :func:`fast_path` answers their plain forms
directly, and the typer commands call the same bodies below. :func:`parse`
reads the option spellings of :mod:`freezer.cli.flags`, the table the typer
options are built from, before the command (``-C DIR``, ``--registry PATH``)
and after it. Anything else (``--help``, a positional path, an unknown or
repeated option, a format that is not allowed) goes through typer, which owns
every usage message.
"""

from __future__ import annotations

from pathlib import Path

from freezer.cli import flags, output
from freezer.cli.exits import Invocation
from freezer.cli.terminal import ProgressBar
from freezer.domain.errors import UsageError
from freezer.domain.fixtureclass import class_counts
from freezer.domain.outcome import Outcome
from freezer.domain.problems import display_path
from freezer.domain.progress import no_progress
from freezer.git.ignored import IgnoredFiles
from freezer.registry import config as config_mod
from freezer.validate import validate as validate_mod
from freezer.validate.fixtureset import FixtureSet


def parse(args: list[str]) -> tuple[str, dict[str, str]] | None:
    """(command, option values) for a plain hook invocation, the options before the command included
    (``directory``; ``registry``, unless the command is given its own); None when typer should parse it."""
    before: dict[str, str] = {}
    at = _read_options(args, 0, flags.by_spelling(flags.ROOT), before, stop_at_word=True)
    if at is None or at >= len(args) or args[at] not in flags.HOOKS:
        return None
    command = args[at]
    values: dict[str, str] = {}
    if _read_options(args, at + 1, flags.by_spelling(flags.HOOKS[command]), values, stop_at_word=False) is None:
        return None
    if output.resolve_format(values.get("fmt")) not in output.FORMATS:
        return None
    return command, {**before, **values}


def _read_options(
    args: list[str], start: int, known: dict[str, str], values: dict[str, str], *, stop_at_word: bool
) -> int | None:
    """Read ``--name VALUE``, ``--name=VALUE`` and ``-n VALUE`` from ``start`` into ``values``; the index
    after them (at the first word when ``stop_at_word``), or None for anything typer must read: an option
    not in ``known``, one given twice, a missing value, a word where an option should be."""
    at = start
    while at < len(args):
        arg = args[at]
        if stop_at_word and not arg.startswith("-"):
            return at
        flag, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        name = known.get(flag)
        if name is None or name in values:
            return None
        at += 1
        if not equals:
            value = args[at] if at < len(args) else ""
            if not value or value.startswith("-"):
                return None
            at += 1
        values[name] = value
    return at


def fast_path(args: list[str], asked: Invocation) -> Outcome | None:
    """Run a plain ``check`` or ``validate``; None if typer must handle ``args``."""
    parsed = parse(args)
    if parsed is None:
        return None
    command, values = parsed
    if "directory" in values:
        flags.enter_directory(values["directory"])  # refused: said as before any command, never in JSON
    asked.command, asked.fmt = command, output.resolve_format(values.get("fmt"))
    registry = Path(values["registry"]) if "registry" in values else None
    if command == "check":
        return run_check(values.get("base"), registry, asked.fmt)
    return run_validate(None, registry, values.get("suite"), asked.fmt)


def run_check(base: str | None, registry: Path | None, fmt: str, *, code: bool = True, strict: bool = False) -> Outcome:
    # start-up time: the guard (git reading, the audit) is check's alone; validate runs without it
    from freezer.guard import check as check_mod

    cfg = config_mod.load(registry)
    report = check_mod.check(cfg, base, check_mod.CodeChecks(run=code, strict=strict))
    if fmt == "json":
        return output.say_outcome("check", report)
    for line in output.problem_lines(report.problems, fmt):
        output.say(line)
    for one in report.code:
        # A new version whose code was not re-checked passed less than an audit: say so, every time.
        mark = "✓" if one.status == "verified" else "✗" if one.status == "failed" else "!"
        output.say(f"{mark} {one.name}: code: {one.detail}")
    summary = f"against {report.base[:8]} ({report.base_source})"
    if report.new_versions:
        summary += f"; new: {', '.join(report.new_versions)}"
    if report.ok:
        output.say(f"✓ frozen versions untouched {summary}; drafts valid")
    else:
        output.say(f"✗ {len(report.problems)} problem(s) {summary}")
    return report


def run_validate(paths: list[Path] | None, registry: Path | None, suite: str | None, fmt: str) -> Outcome:
    for path in paths or ():
        # A path that does not exist was never checked: a usage error (exit 2), as the README's exit codes say.
        if not path.exists() and not path.is_symlink():
            raise UsageError(
                f"{display_path(path)}: no such file or folder",
                hint="name drafts that exist, or run freezer validate alone to check every suite's drafts",
            )
    bar = ProgressBar("validating") if fmt == "text" else None
    progress = bar or no_progress
    try:
        if paths:
            report = validate_mod.validate_paths(paths, _optional_config(registry), progress=progress)
        else:
            cfg = config_mod.load(registry)
            suites = cfg.suites_named(suite)
            report = validate_mod.Report()
            ignored = IgnoredFiles(one.drafts for one in suites)
            for one in suites:
                checked = validate_mod.validate_suite(one, progress, ignored)
                if one.template is not None:
                    # The suite template as the drafts render it (render/ sits above validate/, so
                    # here). Lazy: Jinja2 and the Markdown reader only for a suite with its own template.
                    from freezer.render.preview import preview_problems

                    checked.problems.extend(found for drafts in checked.sets for found in preview_problems(one, drafts))
                report.merge(checked)
    finally:
        if bar is not None:
            bar.close()
    if fmt == "json":
        return output.say_outcome("validate", report)
    for line in output.problem_lines(report.problems, fmt):
        output.say(line)
    for fixture_set in report.sets:
        output.say(_set_summary(fixture_set))
    for note in report.notes:
        output.say(f"  note: {note}")
    if report.ok:
        output.say(f"✓ {report.files} file(s) valid")
    else:
        output.say(f"✗ {len(report.problems)} problem(s) in {report.files} file(s)")
    return report


def _optional_config(registry: Path | None) -> config_mod.RegistryConfig | None:
    if registry is not None:
        return config_mod.load(registry)
    root = config_mod.find_root(Path.cwd())
    return config_mod.load_config(root / config_mod.CONFIG_NAME) if root else None


def _set_summary(fixture_set: FixtureSet) -> str:
    where = display_path(fixture_set.root) if fixture_set.root else "(loose files)"
    landed = [d.data for d in fixture_set.fixtures if d.data["status"] == "landed"]
    dropped = len(fixture_set.fixtures) - len(landed)
    classes = ", ".join(class_counts(landed)) or "none"
    head = ""
    if fixture_set.version is not None:
        head = f"{fixture_set.version.data['suite']} v{fixture_set.version.data['version']}: "
    if fixture_set.partial and not fixture_set.fixtures:
        return f"  {where}: {head}the version file, checked alone"
    named = "of the files named: " if fixture_set.partial else ""
    counts = f"{named}{len(fixture_set.fixtures)} fixture(s), {len(landed)} landed, {dropped} dropped"
    if fixture_set.unreadable:
        counts += f", {fixture_set.unreadable} invalid file(s) not counted"
    assets = f"; {len(fixture_set.assets)} asset file(s)" if fixture_set.assets else ""
    return f"  {where}: {head}{counts}; classes: {classes}{assets}"
