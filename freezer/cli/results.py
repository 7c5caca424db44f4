"""``freezer results check`` and ``results import``: pool scores only where the versions are comparable."""

# No `from __future__ import annotations` here: typer reads these commands' signatures on every
# start, and a string annotation costs it an eval (the CLI is built in 34 ms instead of 63).

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from freezer.cli import flags, output
from freezer.cli.options import FormatOption, Group, RegistryOption, check_format, complete_frozen
from freezer.domain.errors import UsageError
from freezer.domain.outcome import Outcome
from freezer.registry import config as config_mod
from freezer.runtime import writing

if TYPE_CHECKING:
    from freezer.query import table as table_mod
    from freezer.query.harness import Imported

results_app = typer.Typer(
    cls=Group,
    help="Check result files against the registry before comparing scores; import a harness's results.",
    no_args_is_help=True,
)

HARNESS_HELP = "The harness that wrote the files: lm-eval (results JSON), inspect (eval logs), harbor (trial results)."
FromOption = Annotated[Optional[str], typer.Option("--from", help=HARNESS_HELP, metavar="lm-eval|inspect|harbor")]
HarnessOption = Annotated[str, typer.Option("--from", help=HARNESS_HELP, metavar="lm-eval|inspect|harbor")]
HarnessFiles = Annotated[
    list[Path], typer.Argument(help="The harness's files (Harbor: trial result.json, or a job folder).")
]
VersionOption = Annotated[
    Optional[str],
    typer.Option("--version", help="The frozen version the harness ran (e.g. bbh_v2).", autocompletion=complete_frozen),
]
ArmOption = Annotated[
    Optional[str], typer.Option("--arm", help="The arm that ran; may be left out when the version has one.")
]
MetricOption = Annotated[
    Optional[str],
    typer.Option("--metric", help="Which score: lm-eval's metric, Inspect's scorer, Harbor's reward key."),
]
RunOption = Annotated[
    Optional[str], typer.Option("--run", help="The rows' run name. Default: the model and the run the files record.")
]


def _import(
    registry: Path | None,
    harness: str,
    files: list[Path],
    version: str | None,
    arm: str | None,
    metric: str | None,
    run: str | None,
) -> "Imported":
    from freezer.query import harness as harness_mod  # start-up time: loaded by the command that runs it

    version = _ran(harness, version)
    cfg = config_mod.load(registry)
    return harness_mod.import_files(cfg, harness, files, version=version, arm=arm, metric=metric, run=run)


def _ran(harness: str, version: str | None) -> str:
    """The frozen version a harness's files ran, which only the command line can say."""
    if version is None:
        raise UsageError(
            f"--from {harness} needs --version: the frozen version the harness ran",
            hint="a harness's file does not say which frozen version it ran (e.g. --version bbh_v2)",
        )
    return version


def _say_refused(imported: "Imported", fmt: str) -> "Imported":
    if fmt == "json":
        return output.say_outcome("results", imported)
    for line in output.problem_lines(imported.problems, fmt):
        output.say(line)
    if imported.problems_not_shown:
        output.say(f"  … and {imported.problems_not_shown} more problem(s), not shown")
    output.say(
        f"✗ {imported.problem_count} problem(s) in {imported.files} {imported.harness} file(s); nothing imported"
    )
    return imported


def _say_unchecked(imported: "Imported") -> None:
    """One line per reason, not per file: a job of a thousand trials lacking the same record is one
    fact (the JSON output keeps every file's note)."""
    by_reason: dict[str, list[str]] = {}
    for note in imported.unchecked:
        shown, _, reason = note.partition(": ")
        by_reason.setdefault(reason, []).append(shown)
    for reason, files in by_reason.items():
        if len(files) == 1:
            output.say(f"  not checked: {files[0]}: {reason}", err=True)
        else:
            output.say(
                f"  not checked in {len(files)} files ({files[0]} and {len(files) - 1} more): {reason}", err=True
            )


@results_app.command("check")
def check(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Result files, JSON Lines (freezer schema results), each up to 1 GiB; or a harness's (--from)."
        ),
    ],
    registry: RegistryOption = None,
    fmt: FormatOption = None,
    allow_yanked: Annotated[
        bool, typer.Option("--allow-yanked", help="Check rows of yanked versions too (refused by default).")
    ] = False,
    harness: FromOption = None,
    version: VersionOption = None,
    arm: ArmOption = None,
    metric: MetricOption = None,
    run: RunOption = None,
) -> Outcome:
    """Refuse to pool scores across incomparable fixtures; re-aggregate each run on the common subset."""
    from freezer.query import results  # start-up time: loaded by the command that runs it (freezer.cli.app)

    fmt = check_format(fmt)
    cfg = config_mod.load(registry)
    sources: list[Path | results.MemoryRows] = list(files)
    if harness is not None:
        imported = _import(registry, harness, files, version, arm, metric, run)
        if not imported.ok:
            return _say_refused(imported, fmt)
        if fmt != "json":
            _say_unchecked(imported)
        lines = tuple(json.dumps(row.to_json(), ensure_ascii=False).encode("utf-8") for row in imported.rows)
        sources = [results.MemoryRows(", ".join(str(f) for f in files), lines)]
    elif version is not None or arm is not None or metric is not None or run is not None:
        raise UsageError("--version, --arm, --metric and --run describe a harness's files: give --from too")
    report = results.check(cfg, sources, allow_yanked=allow_yanked)
    if fmt == "json":
        return output.say_outcome("results", report)
    for line in output.problem_lines(report.problems, fmt):
        output.say(line)
    if report.problems_not_shown:
        output.say(f"  … and {report.problems_not_shown} more problem(s), not shown")
    for arm_name, excluded in report.excluded.items():
        if excluded:
            output.say(
                f"✗ arm {arm_name}: pooling {', '.join(report.versions)} would mix incomparable fixtures; "
                f"refused for {len(excluded)} fixture(s):"
            )
            for task, reason in excluded.items():
                output.say(f"    {task}: {reason}")
    for arm_name, common in report.common.items():
        output.say(f"arm {arm_name}: common comparable subset of {len(common)} fixture(s)")
        for one in (r for r in report.runs if r.pool == arm_name):
            output.say(f"  {one.version}  {one.run}: {one.passed}/{one.fixtures} passed, mean score {one.mean:.3f}")
    if report.ok:
        output.say(f"✓ {report.rows} row(s) can be compared as they are")
    elif report.problems:
        output.say(f"✗ {report.problem_count} problem(s) in {len(files)} file(s)")
    return report


@results_app.command("import")
def import_(
    files: HarnessFiles,
    harness: HarnessOption,
    version: VersionOption = None,
    arm: ArmOption = None,
    out: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Write the rows here (JSON Lines). Default: standard output.")
    ] = None,
    metric: MetricOption = None,
    run: RunOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Write freezer's result rows for a harness's scores; refuse a run the frozen version contradicts."""
    fmt = check_format(fmt)
    imported = _import(registry, harness, files, version, arm, metric, run)
    if not imported.ok:
        return _say_refused(imported, fmt)
    text = "".join(json.dumps(row.to_json(), ensure_ascii=False) + "\n" for row in imported.rows)
    if out is None and fmt != "json":
        output.say_block(text)
        _say_unchecked(imported)
        return imported
    if out is not None:
        cfg = config_mod.load(registry)
        kept = [folder for suite in cfg.suites.values() for folder in (suite.drafts, suite.versions)]
        writing.write_output(out, text, "the rows", registry_root=cfg.root, protected=kept)
    if fmt == "json":
        return output.say_outcome("results", imported)
    output.say(
        f"✓ {len(imported.rows)} row(s) of {imported.version} (arm {imported.arm}) from {imported.files} "
        f"{imported.harness} file(s) written to {out}"
    )
    _say_unchecked(imported)
    return imported


@results_app.command("add")
def add(
    files: HarnessFiles,
    harness: HarnessOption,
    version: VersionOption = None,
    arm: ArmOption = None,
    metric: MetricOption = None,
    run: RunOption = None,
    model: Annotated[Optional[str], typer.Option("--model", help="The model that ran, as the run records it.")] = None,
    harness_version: Annotated[
        Optional[str], typer.Option("--harness-version", help="The harness's release that ran (e.g. 0.4.8).")
    ] = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Store a harness's run in the registry, beside its version (results/<suite>_vN/): append-only."""
    from freezer.query import storeresults  # start-up time: loaded by the command that runs it

    fmt = check_format(fmt)
    cfg = config_mod.load(registry)
    labels = storeresults.RunLabels(model=model, harness_version=harness_version)
    ran = _ran(harness, version)
    added = storeresults.add(cfg, harness, files, version=ran, arm=arm, metric=metric, run=run, labels=labels)
    if not added.ok:
        _say_refused(added.imported, fmt)
        return added
    if fmt == "json":
        return output.say_outcome("results", added)
    imported = added.imported
    what = f"{len(imported.rows)} row(s) of {imported.version} (arm {imported.arm})"
    if added.already:
        output.say(f"✓ {what} from these files are stored already, as {added.stored}; nothing written")
    else:
        output.say(f"✓ stored {what} from {imported.files} {imported.harness} file(s) as {added.stored}")
    _say_unchecked(imported)
    return added


TABLE_FORMATS = ("text", "json", "csv", "markdown")
TableFormatOption = Annotated[
    Optional[str],
    typer.Option(
        *flags.FORMAT,
        help="Output format: text, json, csv or markdown.",
        autocompletion=lambda incomplete: [f for f in TABLE_FORMATS if f.startswith(incomplete)],
        is_eager=True,  # read before any other parameter can fail, so that a usage error answers in JSON too
    ),
]
CSV_COLUMNS = ("suite", "table", "version", "status", "model", "harness", "harness_version", "arm", "fixtures",
               "passed", "mean", "subset_size", "subset_sha256", "task_id", "reason")  # fmt: skip


@results_app.command("table")
def table(
    suite: Annotated[
        Optional[str], typer.Option("--suite", help="One suite's tables (default: every suite's).")
    ] = None,
    registry: RegistryOption = None,
    fmt: TableFormatOption = None,
) -> Outcome:
    """The stored runs' scores: a table per version, and across versions over the comparable subset only."""
    from freezer.query import table as table_mod  # start-up time: loaded by the command that runs it

    fmt = check_format(fmt, TABLE_FORMATS)
    board = table_mod.table(config_mod.load(registry), suite)
    if fmt == "json":
        return output.say_outcome("results", board)
    if fmt == "csv":
        output.say_block(_csv(board))
        return board
    for line in _table_lines(board, markdown=fmt == "markdown"):
        output.say(line)
    for line in output.problem_lines(board.problems, "text"):
        output.say(line)
    if board.problems:
        output.say(f"✗ {len(board.problems)} problem(s) in the stored results: no score is shown for their suite")
    return board


def _mean(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _grid(header: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        cells = [header, ["---"] * len(header), *rows]
        return ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in [header, *rows]]


def _version_title(one: "table_mod.VersionTable") -> str:
    if one.status == "yanked":
        return f"{one.version}: YANKED{f' ({one.reason})' if one.reason else ''}, its scores are never pooled"
    if one.status == "deprecated":
        return f"{one.version}: deprecated{f', superseded by {one.reason}' if one.reason else ''}"
    return one.version


def _table_lines(board: "table_mod.Leaderboard", *, markdown: bool) -> list[str]:
    heading = ("## ", "### ") if markdown else ("", "")
    out: list[str] = []
    for suite in board.suites:
        if not suite.versions and not suite.problems:
            out.append(f"{heading[0]}suite {suite.suite}: no stored results (freezer results add stores a run)")
            continue
        out.append(f"{heading[0]}suite {suite.suite}")
        for one in suite.versions:
            rows = [
                [r.model, " ".join(filter(None, (r.harness, r.harness_version))), r.arm, str(r.fixtures),
                 str(r.passed), _mean(r.mean)]
                for r in one.runs
            ]  # fmt: skip
            out += [
                "",
                f"{heading[1]}{_version_title(one)}",
                *_grid(["model", "harness", "arm", "n", "passed", "mean"], rows, markdown),
            ]
        for cross in suite.cross:
            out += ["", f"{heading[1]}{' → '.join(cross.versions)} (arm {cross.arm}): comparable subset of "
                    f"{len(cross.subset)} fixture(s), sha256 {cross.subset_sha256}"]  # fmt: skip
            rows = [[r.model, r.harness, *(_mean(r.scores[v]) for v in cross.versions)] for r in cross.rows]
            out += _grid(["model", "harness", *cross.versions], rows, markdown)
            if cross.excluded:
                out += ["", f"excluded from the subset ({len(cross.excluded)}):"]
                out += [f"{'- ' if markdown else '  '}{task}: {why}" for task, why in cross.excluded.items()]
            for version, why in cross.left_out.items():
                out.append(f"{version} is left out: {why}")
    return out


def _csv(board: "table_mod.Leaderboard") -> str:
    import csv  # start-up time: only the csv format writes it
    import io  # start-up time: only the csv format writes it

    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for suite in board.suites:
        for one in suite.versions:
            for r in one.runs:
                release = r.harness_version or ""
                writer.writerow([suite.suite, "version", one.version, one.status, r.model, r.harness, release, r.arm,
                                 r.fixtures, r.passed, _mean(r.mean), "", "", "", ""])  # fmt: skip
        for cross in suite.cross:
            size, sha = len(cross.subset), cross.subset_sha256
            for row in cross.rows:
                for version in cross.versions:
                    writer.writerow([suite.suite, "cross", version, "", row.model, row.harness, "", cross.arm, "",
                                     "", _mean(row.scores[version]), size, sha, "", ""])  # fmt: skip
            for task, why in cross.excluded.items():
                writer.writerow([suite.suite, "excluded", " ".join(cross.versions), "", "", "", "", cross.arm, "",
                                 "", "", size, sha, task, why])  # fmt: skip
    return text.getvalue()
