"""``freezer validate``: three layers (YAML, schema, semantic rules) over files and folders.

Every layer reports all of its problems. A file that fails the YAML or the
schema layer is left out of the semantic rules, which assume well-formed data.
A suite's own schema is applied in forked children bounded in time and memory
(:func:`freezer.runtime.bounded.map_bounded`), never in this process.
"""

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from freezer.domain.errors import InvalidInput, UsageError
from freezer.domain.escape import visible
from freezer.domain.problems import Problem, display_path
from freezer.domain.progress import Progress, no_progress
from freezer.git.ignored import IgnoredFiles
from freezer.parse.document import YamlDocument
from freezer.parse.yamlload import load_file
from freezer.registry.config import CONFIG_NAME, RegistryConfig, SuiteConfig, load_config
from freezer.registry.lockfile import lock_problems
from freezer.registry.model import Suite
from freezer.runtime import work
from freezer.runtime.reading import read_whole
from freezer.schema import schemas
from freezer.validate import drafts, rules
from freezer.validate.fixtureset import FixtureSet
from freezer.validate.kindcheck import close_alone, kind_canary, kind_fixtures, owned_group_problems
from freezer.validate.modeline import loose_schema
from freezer.validate.pathscan import Owners, collect_files, group_files
from freezer.validate.rules import code_rules, run_rules, source_rules
from freezer.validate.template import template_problems

if TYPE_CHECKING:
    from freezer.runtime import bounded

VERSION_NAME = "version.yaml"


class Report:
    """What validate found: ``freezer validate``'s outcome over the paths it was given, or one suite's drafts
    (:func:`validate_suite`); it fails on any problem."""

    def __init__(self, files: int = 0, problems: list[Problem] | None = None) -> None:
        self.files = files
        self.sets: list[FixtureSet] = []
        self.problems = [] if problems is None else problems
        self.notes: list[str] = []  # what was checked how, when the path alone said it

    @property
    def ok(self) -> bool:
        return not self.problems

    def merge(self, part: "Report") -> None:
        """Take in the report of one suite validated as a whole."""
        self.files += part.files
        self.sets.extend(part.sets)
        self.problems.extend(part.problems)
        self.notes.extend(part.notes)

    def to_json(self) -> dict[str, object]:
        sets = [
            {
                "root": display_path(fixture_set.root) if fixture_set.root else None,
                "suite": fixture_set.version.data["suite"] if fixture_set.version else None,
                "version": fixture_set.version.data["version"] if fixture_set.version else None,
                "fixtures": sorted(d.data["task_id"] for d in fixture_set.fixtures),
            }
            for fixture_set in self.sets
        ]
        problems = [p.to_json() for p in self.problems]
        return {"files": self.files, "sets": sets, "problems": problems, "notes": self.notes}


def _suite_for(config: RegistryConfig | None, version: YamlDocument | None) -> SuiteConfig | None:
    if config is None or version is None:
        return None
    return config.suites.get(version.data.get("suite"))


# Below this many files a process pool costs more to start than it saves.
PARALLEL_FROM = 300


class FileResult(NamedTuple):
    """What checking one file in isolation found: its document if usable, and its problems."""

    path: Path
    display: str
    kind: str
    document: YamlDocument | None
    problems: list[Problem]


def check_file(file: Path, fixture_schema: str = schemas.FIXTURE) -> FileResult:
    """The per-file layers (YAML, schema, fixture rules); safe to run in a worker process.
    ``fixture_schema`` names the schema fixtures must meet (a suite's kind, or its own file)."""
    display = display_path(file)
    if file.name == CONFIG_NAME:
        try:
            load_config(file)
        except InvalidInput as exc:
            return FileResult(file, display, "config", None, list(exc.problems))
        return FileResult(file, display, "config", None, [])
    kind = schemas.VERSION if file.name == VERSION_NAME else fixture_schema
    loaded = load_file(file, display)
    if loaded.document is None:
        return FileResult(file, display, kind, None, loaded.problems)
    doc = loaded.document
    errors = schemas.schema_errors(kind, doc.data)
    if kind.startswith("file:"):
        # The suite's schema may allow anything; what freezer reads must still have freezer's shape.
        said = {path for path, _ in errors}
        errors += [(path, message) for path, message in schemas.shape_errors(doc.data) if path not in said]
    if errors:
        return FileResult(file, display, kind, None, [doc.problem(path, msg, "schema") for path, msg in errors])
    found = rules.fixture_rules(doc) if kind != schemas.VERSION else []
    return FileResult(file, display, kind, doc, found)


# Each file checked against a suite's own schema gets this long (counted from the one before) and
# the child doing it this much more memory; then it is stopped and reported.
SCHEMA_SECONDS_VARIABLE = "FREEZER_SCHEMA_SECONDS"
SCHEMA_MEMORY = 512 << 20


def check_files(
    files: list[Path], fixture_schema: str = schemas.FIXTURE, progress: Progress = no_progress
) -> list[FileResult]:
    """Check files, on every core when there are many; results keep the input order."""
    workers = work.cores() if len(files) >= PARALLEL_FROM else 1
    check = partial(check_file, fixture_schema=fixture_schema)
    if fixture_schema.startswith("file:"):
        return _check_bounded(files, fixture_schema, workers, progress)
    with _without_cyclic_gc():
        chunksize = max(16, len(files) // (workers * 8))
        return work.map_on_cores(check, files, workers=workers, chunksize=chunksize, progress=progress)


def _check_bounded(files: list[Path], fixture_schema: str, workers: int, progress: Progress) -> list[FileResult]:
    """:func:`check_file` under a suite's own schema, in bounded children: one per core, each
    working through its share, so a runaway pattern stops one file and not the whole validate."""
    # Lazy: the bounded children (pickle, selectors, signal, mmap) serve a suite's own schema only,
    # and a pre-commit validate of a shipped-schema suite would pay for them at every start.
    from freezer.runtime import bounded

    schemas.validator(fixture_schema)  # vetted and built once, here, before the children fork
    seconds = _schema_seconds()
    check = partial(check_file, fixture_schema=fixture_schema)
    with _without_cyclic_gc():
        outcomes = bounded.map_bounded(
            check, files, seconds=seconds, memory=SCHEMA_MEMORY, workers=workers, progress=progress
        )
    return [
        outcome if isinstance(outcome, FileResult) else _stopped(file, fixture_schema, outcome)
        for file, outcome in zip(files, outcomes, strict=True)
    ]


def _schema_seconds() -> float:
    try:
        seconds = float(os.environ.get(SCHEMA_SECONDS_VARIABLE, "10"))
    except ValueError:
        raise UsageError(f"{SCHEMA_SECONDS_VARIABLE} must be a number of seconds") from None
    if not 0 < seconds < 86400:
        raise UsageError(f"{SCHEMA_SECONDS_VARIABLE} must be a number of seconds between 0 and 86400")
    return seconds


def _stopped(file: Path, fixture_schema: str, stopped: "bounded.Stopped") -> FileResult:
    schema = display_path(fixture_schema.removeprefix("file:"))
    if stopped.reason.startswith("not checked"):
        message = f"{stopped.reason} (see above); fix the suite's schema {schema} and validate again"
    elif stopped.reason.startswith("did not finish"):
        doing = f", in the pattern {_quoted(stopped.doing)}" if stopped.doing else ""
        message = (
            f"checking it against the suite's schema {schema} {stopped.reason} and was stopped{doing}: "
            "a pattern that backtracks catastrophically on this value, or a schema too costly to apply; "
            f"simplify the schema ({SCHEMA_SECONDS_VARIABLE} sets the time allowed for each file)"
        )
    else:
        message = (
            f"checking it against the suite's schema {schema} {stopped.reason} and was stopped: "
            "the schema is too costly to apply to this file; simplify it"
        )
    display = display_path(file)
    return FileResult(file, display, fixture_schema, None, [Problem(display, None, None, (), message, "schema")])


def _quoted(text: str) -> str:
    shown = visible(text)
    return repr(shown if len(shown) <= 80 else shown[:77] + "...")


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """Loaded documents are plain, acyclic data (refcounting frees them), built by the hundred
    thousand objects; the cyclic collector would only re-scan them. Measured at 10,000 files:
    3.0 s with it, 2.3 s without. Forked workers inherit the setting."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def validate_paths(
    paths: list[Path],
    config: RegistryConfig | None = None,
    suite: SuiteConfig | None = None,
    progress: Progress = no_progress,
) -> Report:
    """Validate files and folders; ``suite`` pins the suite every draft must belong to.

    A folder that is (or holds) a suite's drafts folder is validated exactly as ``freezer validate``
    validates that suite (assets, refused files, canary). A file inside a suite's drafts is checked
    against that suite's schema, and its assets against that suite's drafts.
    """
    owners = Owners(config, suite)
    whole = [] if suite else owners.whole_suites(paths)
    report = Report()
    ignored = IgnoredFiles(one.drafts for one in whole)
    for one in whole:
        report.merge(validate_suite(one, progress, ignored))
    files, problems = collect_files(paths, skip=frozenset(one.drafts.resolve() for one in whole))
    for one in [] if suite else owners.kind_versions(files):
        report.merge(validate_suite(one, progress))
        files = [file for file in files if not file.resolve().is_relative_to(one.drafts.resolve())]
    files = _published(files, owners, report)
    # A file of a kind whose files do not stand alone (folders, records) is a part of a fixture: its
    # suite is validated as a whole (a task file says nothing of its folder, nor a record of its set).
    owned: dict[str, SuiteConfig] = {}
    kept = []
    for file in files:
        owner = owners.of(file)
        # The version file alone is checked alone, for every kind.
        if owner is not None and not Suite.of(owner).kind.files_stand_alone and not _is_suite_version(file, owner):
            owned.setdefault(owner.name, owner)
        else:
            kept.append(file)
    files = kept
    for one in owned.values():
        if one.drafts.resolve() not in {w.drafts.resolve() for w in whole}:
            report.merge(validate_suite(one, progress))
    report.files += len(files)
    report.problems.extend(problems)
    by_schema: dict[str, list[Path]] = {}
    for file in files:
        owner = owners.of(file)
        if owner is not None:
            key = owner.schema_key
        elif file.name in (VERSION_NAME, CONFIG_NAME):
            key = schemas.FIXTURE  # not a fixture: the version and config schemas are fixed
        else:
            loose = loose_schema(file)
            key = loose.key
            if loose.said:
                report.notes.append(loose.said)
        by_schema.setdefault(key, []).append(file)
    # The acceptance counts are of a whole drafts folder: only where one was named as a folder.
    walked = [path.resolve() for path in paths if path.is_dir() and not path.is_symlink()]
    results: dict[Path, FileResult] = {}
    for schema_key, members in by_schema.items():
        results.update((result.path, result) for result in check_files(members, schema_key, progress))
    for root, members in group_files(files).items():
        fixture_set = FixtureSet(root)
        for file in members:
            _collect_result(results[file], fixture_set, report)
        if fixture_set.version is not None:
            # A version.yaml inside a suite's drafts must be that suite's, as a whole-suite validate says.
            placed = owners.of(fixture_set.files[fixture_set.version.display])
            owner = placed or _suite_for(config, fixture_set.version)
            report.problems.extend(
                rules.version_rules(
                    fixture_set.version, owner.dimensions if owner else None, placed.name if placed else None
                )
            )
            has_code = owner.code_repo is not None if owner else None
            report.problems.extend(code_rules(fixture_set.version, has_code) + source_rules(fixture_set.version))
        # Acceptance counts would be wrong while a fixture cannot be read; its own problems say why.
        version = fixture_set.version if not fixture_set.unreadable else None
        if version is not None and not _whole(root, walked):
            report.notes.append(
                f"{version.display}: checked alone; the acceptance counts (min_landed, min_classes) are of the "
                f"whole drafts folder: freezer validate {display_path(root) if root else '.'}"
            )
            version = None
            fixture_set.partial = True
        report.problems.extend(rules.set_rules(version, fixture_set.fixtures))
        report.problems.extend(_file_rules(owners, fixture_set))
        report.sets.append(fixture_set)
    report.problems.sort(key=lambda p: (p.file, p.line or 0, p.col or 0, p.message))
    return report


def _published(files: list[Path], owners: Owners, report: Report) -> list[Path]:
    """The files named inside a suite's drafts that a version would hold, as a whole validate and a
    cut sort them (:func:`freezer.validate.drafts.leave_out`): one git ignores is said and left
    unchecked, litter git would publish is refused; a file outside every suite is kept."""
    # One git call for every suite the files are in (a commit may touch several), not one per file.
    ignored = IgnoredFiles(owner.drafts for owner in map(owners.of, files) if owner is not None)
    kept = []
    for file in files:
        owner = owners.of(file)
        root = owner.drafts.resolve() if owner is not None else None
        if owner is None or root is None or not file.parent.resolve().is_relative_to(root):
            kept.append(file)
            continue
        rel = (file.parent.resolve() / file.name).relative_to(root).as_posix()
        left = drafts.leave_out(rel, file.name, ignored.under(owner.drafts))
        if left is None:
            kept.append(file)
        elif left[1] is not None:
            report.problems.append(Problem(display_path(file), None, None, (), left[1], "file"))
        elif left[0] == "ignored":
            report.notes.append(f"{display_path(file)}: git ignores it, so no version holds it; not checked")
        else:
            report.notes.append(
                f"{display_path(file)}: left out of every version as what tools leave beside files (the registry "
                "is no git repository, so freezer's own list stands in for a .gitignore); not checked"
            )
    return kept


def _is_suite_version(file: Path, suite: SuiteConfig) -> bool:
    return file.name == VERSION_NAME and file.parent.resolve() == suite.drafts.resolve()


def _whole(root: Path | None, walked: list[Path]) -> bool:
    """Whether the set at ``root`` was named as a folder (itself or one above it), so every fixture is in it."""
    return root is not None and any(root.is_relative_to(folder) for folder in walked)


def _file_rules(owners: Owners, fixture_set: FixtureSet) -> list[Problem]:
    """The checks a whole-suite validate runs on each fixture: its assets exist, it carries the canary."""
    found: list[Problem] = []
    by_suite: dict[str, tuple[SuiteConfig, list[YamlDocument]]] = {}
    for doc in fixture_set.fixtures:
        owner = owners.of(fixture_set.files[doc.display])
        if owner is not None:
            by_suite.setdefault(owner.name, (owner, []))[1].append(doc)
    for owner, docs in by_suite.values():
        found.extend(rules.asset_rules(docs, owners.assets_of(owner), Suite.of(owner).kind.asset_fields))
        found.extend(_canary_problems(owner, docs, fixture_set))
    return found


def _canary_problems(suite: SuiteConfig, docs: list[YamlDocument], fixture_set: FixtureSet) -> list[Problem]:
    if not suite.canary:
        return []
    texts = {doc.display: read_whole(fixture_set.files[doc.display]) for doc in docs}
    message = "does not carry the suite's canary string (freezer.yaml canary); add it, e.g. as a comment"
    return [Problem(display, 1, 1, (), message, "rule") for display in rules.missing_canary(suite.canary, texts)]


def _collect_result(result: FileResult, fixture_set: FixtureSet, report: Report) -> None:
    report.problems.extend(result.problems)
    if result.kind == "config":
        return
    if result.document is None:
        fixture_set.unreadable += 1
        return
    fixture_set.files[result.display] = result.path
    if result.kind == schemas.VERSION:
        fixture_set.version = result.document
    else:
        fixture_set.fixtures.append(result.document)


def _drafts_problem(suite: SuiteConfig, why: str) -> Problem:
    """A problem of the suite's drafts folder as a whole, at its line in freezer.yaml."""
    origin, _, line = suite.origin("drafts").rpartition(":")
    where = int(line) if line.isdigit() else None
    return Problem(origin or CONFIG_NAME, where, None, ("suites", suite.name, "drafts"), why, "file")


def validate_suite(suite: SuiteConfig, progress: Progress = no_progress, ignored: IgnoredFiles | None = None) -> Report:
    """Validate a suite's drafts folder: one version.yaml at the top, the fixtures, and the assets
    (``ignored``: what git ignores, asked once for every suite a command validates)."""
    # Every fixture's document stays alive for the set rules (ids, look-alikes, assets) after the files
    # are checked: the cyclic collector would scan those acyclic documents again and again (at 10,000
    # fixtures its full collection took 0.2 s, and its younger ones as much again).
    with _without_cyclic_gc():
        link = drafts.linked_drafts(suite.drafts)
        if link is not None:
            why = (
                f"drafts folder {display_path(suite.drafts)} of suite {suite.name!r} passes through a symbolic link "
                f"({display_path(link)}); drafts must be a real folder inside the registry, so what is validated is "
                "what the config names: put the folder there instead of the link"
            )
            return Report(problems=[_drafts_problem(suite, why)])
        if not suite.drafts.is_dir():
            why = (
                f"drafts folder {display_path(suite.drafts)} of suite {suite.name!r} does not exist; "
                "create it (freezer next fills it from the latest version) or fix the path"
            )
            return Report(problems=[_drafts_problem(suite, why)])
        collected = drafts.collect(suite, ignored)
        kind = Suite.of(suite).kind
        alone = collected.fixtures if kind.files_stand_alone else []
        files = ([collected.version] if collected.version else []) + alone
        report = Report(files=len(files), problems=list(collected.problems))
        report.notes.extend(collected.derived_notes())
        fixture_set = FixtureSet(suite.drafts.resolve(), assets=collected.assets)
        for result in check_files(files, suite.schema_key, progress):
            _collect_result(result, fixture_set, report)
        if not kind.files_stand_alone:
            report.files += len(collected.fixtures)
            report.problems.extend(
                kind_fixtures(
                    suite,
                    collected.fixtures,
                    fixture_set,
                    _schema_seconds(),
                    SCHEMA_MEMORY,
                    frozenset(collected.refused),
                )
            )
        if fixture_set.version is not None:
            report.problems.extend(rules.version_rules(fixture_set.version, suite.dimensions, suite.name))
            report.problems.extend(run_rules(fixture_set.version, set(collected.assets)))
            report.problems.extend(code_rules(fixture_set.version, suite.code_repo is not None))
            report.problems.extend(source_rules(fixture_set.version))
        version = fixture_set.version if not fixture_set.unreadable else None
        report.problems.extend(rules.set_rules(version, fixture_set.fixtures))
        report.problems.extend(rules.asset_rules(fixture_set.fixtures, set(collected.assets), kind.asset_fields))
        read = set(fixture_set.files.values())  # a file that could not be read is reported as such, not for its canary
        report.problems.extend(kind_canary(suite, [path for path in collected.fixtures if path in read]))
        if suite.template is not None:
            report.problems.extend(template_problems(suite.template, suite.origin("template")))
        report.problems.extend(owned_group_problems(suite))
        report.problems.extend(lock_problems(collected.assets))
        if kind.files_stand_alone:  # the kind closes the fixtures it reads itself
            report.problems.extend(close_alone(suite, fixture_set, frozenset(collected.refused)))
        report.sets.append(fixture_set)
        if collected.version is None and VERSION_NAME not in collected.refused:  # a refused one is reported
            version_file = suite.drafts / VERSION_NAME
            report.problems.append(
                Problem(
                    display_path(version_file), None, None, (), "missing: a drafts folder needs a version.yaml", "file"
                )
            )
        report.problems.sort(key=lambda p: (p.file, p.line or 0, p.col or 0, p.message))
        return report
