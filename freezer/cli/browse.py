"""Commands that browse frozen versions: list, show, diff."""

# No `from __future__ import annotations` here: typer reads these commands' signatures on every
# start, and a string annotation costs it an eval (the CLI is built in 34 ms instead of 63).

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from freezer.cli import output
from freezer.cli.options import FormatOption, RegistryOption, SuiteOption, check_format, complete_frozen
from freezer.domain.errors import UsageError
from freezer.domain.harbordigest import HarborDigest
from freezer.domain.outcome import Outcome
from freezer.domain.problems import display_path
from freezer.query import browse, outcomes
from freezer.registry import config as config_mod
from freezer.render.deltatext import delta_lines
from freezer.runtime import resources
from freezer.schema.compile_schemas import NAMES
from freezer.trust import verified

# The commands of this module; freezer.cli.app adds them to the application.
commands = typer.Typer()


@commands.command("list")
def list_versions(suite: SuiteOption = None, registry: RegistryOption = None, fmt: FormatOption = None) -> Outcome:
    """Table of frozen versions: pinned SHA, cut date, fixtures, classes, integrity."""
    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    suites = cfg.suites_named(suite)
    listed = outcomes.listing(cfg, suites)
    rows, known, failed = listed.rows, listed.known, listed.broken
    if fmt == "json":
        return output.say_outcome("list", listed)
    header = ("version", "pinned", "cut", "landed", "dropped", "classes", "hashes", "status")
    table = [header] + [_list_cells(r, known) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        output.say("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    if failed:
        output.say("✗ a version's files do not match their hashes: run freezer audit for the full report")
    _say_log(known)
    return listed


def _list_cells(row: browse.SummaryRow, known: verified.VerifiedView) -> tuple[str, ...]:
    """One row of ``list``: a version whose files cannot be read says so, never a value it lacks."""
    readable = row.readable
    return (
        row.version,
        row.pinned_sha[:8] if row.pinned_sha else ("no code" if readable else "?"),
        row.cut_at if row.cut_at is not None else "unreadable",
        str(row.landed) if readable else "?",
        str(row.dropped) if readable else "?",
        ", ".join(row.classes),
        row.hashes,
        _status_cell(row.version, known),
    )


def _status_cell(version: str, known: verified.VerifiedView) -> str:
    """A version's status word, and an error beside it when the view holds something against the
    version: an unverified event is never shown as the status it claims."""
    word = known.of(version).status
    layers = {p.layer for p in known.version_problems(version)}
    if not layers:
        return word
    said = [
        "✗ unverified event" if "status" in layers else "",
        "✗ contradicts the signed checkpoint" if "checkpoint" in layers else "",
    ]
    return f"{word} {', '.join(s for s in said if s)}"


def _say_unverified(known: verified.VerifiedView, name: str) -> None:
    """What the view holds against one version, in the words of show, log and compare."""
    for problem in known.unverified(name):
        line = f"{problem.file}:{problem.line}" if problem.line else problem.file
        output.say(f"  ✗ {name}: an unverified event at {line} is not its status ({problem.message})")
    contradicted = known.contradiction(name)
    if contradicted is not None:
        output.say(f"  ✗ {contradicted.message}")


def _say_log(known: verified.VerifiedView) -> None:
    """Report every line of the status log that is not status and every checkpoint problem (each fails
    the command: its outcome's ``ok`` says so)."""
    for problem in known.problems:
        output.say(f"✗ {problem}")
    if known.log.problems:
        output.say("✗ the status log holds lines that are not status; they were ignored (run freezer audit)")
    if known.checkpoint_problems:
        output.say("✗ the signed checkpoint does not verify or the registry contradicts it (run freezer audit)")


@commands.command()
def show(
    version: Annotated[str, typer.Argument(help="The version, e.g. graph_v2 or v2.", autocompletion=complete_frozen)],
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """The manifest and the fixtures of one frozen version (verified first)."""
    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    one = config_mod.suite_of_label(cfg, version, suite)
    shown = outcomes.show(cfg, one, version)
    if fmt == "json":
        return output.say_outcome("show", shown)
    data, status, known = shown.data, shown.status, shown.known
    manifest = data.manifest
    pinned = f"pinned {manifest.pinned_full}" if manifest.pinned_full else "no code under test"
    output.say(f"{manifest.name}  {pinned}  cut {manifest.cut_at}")
    output.say(f"  manifest sha256 {data.frozen.manifest_sha256()}")
    if status.status != "current":
        instead = f"; use {status.superseded_by}" if status.superseded_by else ""
        output.say(f"  ⚠ {status.status}: {status.reason or 'no reason given'}{instead}")
        for at, reason in status.yanks[1:]:
            output.say(f"  ⚠ yanked again at {at}: {reason or 'no reason given'}")
    _say_unverified(known, data.frozen.name)
    previous = manifest.previous
    output.say(f"  previous: {previous[0] + ' ' + previous[1][:16] + '…' if previous else 'none'}")
    if manifest.binary is not None:
        binary = manifest.binary.raw
        build = binary.get("build_sha") or f"unknown ({binary.get('build_sha_unknown') or 'not recorded'})"
        where = f" {binary['path']}" if binary.get("path") else ""
        output.say(f"  binary: {binary['name']}{where} build {build}")
    for commit in manifest.commits:
        output.say(f"  tool surface: {commit.sha[:8]} [{commit.dimension}]{' ' + commit.task if commit.task else ''}")
    output.say("  fixtures:")
    harbor = browse.harbor_digests(data) or {}
    for fixture in data.fixtures:
        gate = fixture.get("gate_b") or {}
        counts = "/".join(str(gate.get(k, "?")) for k in ("expected_matches", "expected_files"))
        extra = f"Gate B {gate.get('status') or '?'} {counts}" if gate else ""
        if fixture["status"] == "dropped":
            extra = f"dropped at {fixture['dropped']['stage']}"
        elif fixture["task_id"] in harbor:
            extra = f"{extra} {_harbor_cell(harbor[fixture['task_id']])}".lstrip()
        output.say(f"    {fixture['task_id']:<45} {fixture.get('class') or '-':<8} {fixture['status']:<8} {extra}")
    if harbor:
        output.say("  (harbor: each task's Harbor content digest; --format json gives every digest in full)")
    _say_log(known)
    return shown


def _harbor_cell(digest: HarborDigest) -> str:
    """A task's Harbor digest, short: enough to tell two apart and to find the full one in the JSON."""
    if digest.digest is None:
        return "harbor: no digest (its own ignore rules; see --format json)"
    return f"harbor {digest.digest[: len('sha256:') + 16]}…"


@commands.command()
def diff(
    old: Annotated[str, typer.Argument(help="The earlier version, e.g. graph_v1.", autocompletion=complete_frozen)],
    new: Annotated[str, typer.Argument(help="The later version, e.g. graph_v2.", autocompletion=complete_frozen)],
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome | None:
    """What changed between two frozen versions (the engine behind METHOD.md's §Delta)."""
    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    one = config_mod.suite_of_label(cfg, old, suite)
    if fmt == "json":
        return output.say_outcome("diff", outcomes.diff(one, old, new))
    delta = browse.diff(one, browse.find(one, old), browse.find(one, new))
    for line in delta_lines(delta):
        output.say(line)
    return None


@commands.command()
def compare(
    old: Annotated[str, typer.Argument(help="One version, e.g. graph_v1.", autocompletion=complete_frozen)],
    new: Annotated[str, typer.Argument(help="Another version, e.g. graph_v2.", autocompletion=complete_frozen)],
    arm: Annotated[
        Optional[str], typer.Option("--arm", "-a", help="One arm (freezer.yaml arms). Default: every arm.")
    ] = None,
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Which fixtures' scores can be compared across two versions, for each arm, and why not."""
    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    one = config_mod.suite_of_label(cfg, old, suite)
    compared = outcomes.compare(cfg, one, old, new, arm)
    if fmt == "json":
        return output.say_outcome("compare", compared)
    records, pair, known = compared.records, compared.pair, compared.known
    first = records[0]
    output.say(f"{first.old} → {first.new}: which scores can be compared")
    for frozen in pair:
        status = known.of(frozen.name)
        if status.status != "current":
            instead = f"; use {status.superseded_by}" if status.superseded_by else ""
            output.say(f"  ⚠ {frozen.name} is {status.status}: {status.reason or 'no reason given'}{instead}")
        _say_unverified(known, frozen.name)
    tasks = list(first.classes)
    width = max([len("fixture"), *map(len, tasks)])
    arms = [record.arm for record in records]
    output.say(f"  {'fixture'.ljust(width)}  {'class'.ljust(9)}  " + "  ".join(arms))
    for task in tasks:
        marks = "  ".join(("✓" if task in r.comparable else "✗").ljust(len(r.arm)) for r in records)
        output.say(f"  {task.ljust(width)}  {first.classes[task].ljust(9)}  {marks}".rstrip())
    for arm_record in records:
        output.say(f"arm {arm_record.arm} (depends on {', '.join(arm_record.depends_on) or 'nothing suite-wide'}):")
        if arm_record.moved:
            output.say(f"  moved: {', '.join(arm_record.moved)}")
        output.say(
            f"  comparable: {len(arm_record.comparable)} fixture(s)"
            + (f", subset sha256 {arm_record.subset_sha256}" if arm_record.comparable else "")
        )
        for task, reason in arm_record.excluded.items():
            output.say(f"  ✗ {task}: {reason}")
    _say_log(known)
    return compared


@commands.command()
def log(suite: SuiteOption = None, registry: RegistryOption = None, fmt: FormatOption = None) -> Outcome:
    """One line per frozen version, newest first: date, pinned SHA, fixtures, what moved."""
    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    suites = cfg.suites_named(suite)
    logged = outcomes.history(cfg, suites)
    rows, known = logged.rows, logged.known
    if fmt == "json":
        return output.say_outcome("log", logged)
    for row in rows:
        if row.error is not None:
            output.say(f"{row.version}  cannot be read: {row.error} (run freezer audit)")
            continue
        moved = _moved(row)
        status = known.of(row.version).status
        if status != "current":
            moved += f"  [{status}]"
        if known.version_problems(row.version):
            moved += f"  [{_status_cell(row.version, known).split(' ', 1)[1]}]"
        output.say(
            f"{row.version}  {row.cut_at[:10]}  {row.pinned_sha[:8] if row.pinned_sha else 'no code'}  "
            f"{row.landed} landed, {row.dropped} dropped  {moved}"
        )
    _say_log(known)
    return logged


def _moved(row: browse.LogRow) -> str:
    if not row.previous:
        return "first version"
    return f"moved: {', '.join(row.moved)}" if row.moved else "nothing moved"


# Every schema freezer ships, the one list `freezer schema` serves and names in its help: the
# compiled ones, and those that describe what freezer prints and reads outside a registry.
SHIPPED_SCHEMAS = (*NAMES, "output", "results", "provenance")


def _complete_schema(incomplete: str) -> list[str]:
    return [name for name in SHIPPED_SCHEMAS if name.startswith(incomplete)]


@commands.command()
def schema(
    name: Annotated[
        str,
        typer.Argument(help=f"One of: {', '.join(SHIPPED_SCHEMAS)}.", autocompletion=_complete_schema),
    ],
    fmt: FormatOption = None,
) -> None:
    """Print a shipped JSON Schema, for an editor or check-jsonschema, from any install."""
    fmt = check_format(fmt, ("text", "json"))
    if name not in SHIPPED_SCHEMAS:
        raise UsageError(f"no schema {name!r}; freezer ships: {', '.join(SHIPPED_SCHEMAS)}")
    text = resources.schema_text(name)
    if fmt == "json":
        # The schema itself, as the result of the one document every command prints with --format json.
        output.say_json("schema", {"name": name, "schema": json.loads(text)})
    else:
        output.say_block(text)


@commands.command()
def site(
    out: Annotated[Path, typer.Argument(help="Folder for the site: new, empty, or a site freezer built before.")],
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Render the registry as a static HTML site (relative links, byte-identical rebuilds; every page reads
    without JavaScript, and only the search page runs a small script)."""
    # start-up time: loaded by the command that runs it (freezer.cli.app)
    from freezer.site import site as site_mod
    from freezer.site.site import Built  # as above

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    files = site_mod.build(cfg)
    site_mod.write(out, files)
    built = Built(out, files)
    if fmt == "json":
        return output.say_outcome("site", built)
    pages, known = built.pages, files.verified_view
    output.say(
        f"✓ wrote {pages} page(s) and index.json to {display_path(out)}; open {display_path(out / 'index.html')}"
    )
    _say_log(known)
    return built
