"""Validate the fixtures of a suite of kind folders or records (:mod:`freezer.kinds`).

The built-in graph and generic schemas are not applied: the fields are the benchmark's own.
freezer's own fields (``task_id``, ``status``) come from the suite's identity rule, checked by the
kind. A suite's own schema, if it gives one, is applied to each fixture's fields (the task file's,
or the record) in forked children bounded in time and memory, as for a YAML fixture.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from freezer.domain.errors import FreezerError
from freezer.domain.problems import Problem, display_path
from freezer.kinds.base import Files, KindFixture, Unreadable
from freezer.kinds.catalog import read_fixtures
from freezer.parse.yamlload import load_bytes
from freezer.registry.config import CONFIG_NAME, SuiteConfig
from freezer.registry.model import Suite
from freezer.runtime import work
from freezer.runtime.limits import MAX_SCHEMA_BYTES, MAX_WHOLE_FILE_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded, read_whole
from freezer.schema import schemas
from freezer.validate.fixtureset import FixtureSet
from freezer.validate.rules import missing_canary


def kind_fixtures(
    suite: SuiteConfig,
    paths: list[Path],
    fixture_set: FixtureSet,
    seconds: float,
    memory: int,
    refused: frozenset[str] = frozenset(),
) -> list[Problem]:
    """Read the fixtures of ``paths`` (every file the suite's kind claims) into ``fixture_set``;
    ``refused`` are the drafts' files already reported (a link, a FIFO), which a kind does not report again."""
    by_rel = _by_rel(suite.drafts, paths)
    display = _display(suite.drafts)
    found = read_fixtures(Suite.of(suite).kind, _drafts_files(by_rel, fixture_set, display, refused))
    problems = list(found.problems)
    fixture_set.files.update((display(rel), path) for rel, path in by_rel.items())
    fixture_set.fixtures.extend(fixture.document for fixture in found.fixtures)
    if found.unknown_dropped:
        origin, _, line = suite.origin("dropped").rpartition(":")
        listed = ", ".join(repr(task) for task in found.unknown_dropped[:5])
        message = f"the dropped list names no fixture of the drafts: {listed}; remove it or fix the task id"
        where = ("suites", suite.name, "dropped")
        problems.append(Problem(origin or CONFIG_NAME, int(line) if line.isdigit() else None, None, where, message))
    if suite.schema is not None and found.fixtures:
        problems.extend(_own_schema(suite.schema_key, found.fixtures, seconds, memory))
    return problems


def close_alone(suite: SuiteConfig, fixture_set: FixtureSet, refused: frozenset[str]) -> list[Problem]:
    """Give the fixtures validate read standing alone (YAML files) their dependency closure, as the
    suite's kind reads it from a frozen version: what a cut records is what audit derives again."""
    by_rel = _by_rel(suite.drafts, [fixture_set.files[document.display] for document in fixture_set.fixtures])
    files = _drafts_files(by_rel, fixture_set, _display(suite.drafts), refused)
    return Suite.of(suite).kind.close(fixture_set.fixtures, files)


def _drafts_files(
    by_rel: dict[str, Path], fixture_set: FixtureSet, display: Callable[[str], str], refused: frozenset[str]
) -> Files:
    """The drafts' fixture files ``by_rel`` and assets as a kind reads them, each read when asked."""
    readable = {**fixture_set.assets, **by_rel}  # a fixture may depend on an asset (an lm-eval template)

    def read(rel: str, limit: int) -> bytes:
        try:
            return read_bounded(readable[rel], limit)
        except ReadRefused as exc:
            raise Unreadable(str(exc)) from None

    return Files(sorted(by_rel), read, display, others=sorted(fixture_set.assets), refused=refused)


def owned_group_problems(suite: SuiteConfig) -> list[Problem]:
    """Where the suite's own schema places one of freezer's own fields (:attr:`Kind.owned_groups`) in
    another field group than freezer's: refused, one problem each, at its ``x-freezer-group``. The
    groups decide which digest a field counts in; a task's ``files`` read as cosmetic would let a
    test script become ``exit 0`` with the task still comparable. A frozen version keeps its record."""
    if suite.schema is None:
        return []
    owned = Suite.of(suite).kind.owned_groups
    shown = display_path(suite.schema)
    try:
        loaded = load_bytes(read_whole(suite.schema, MAX_SCHEMA_BYTES), shown)
    except FreezerError:
        return []  # the config's reading of the schema already refused it, saying why
    document = loaded.document
    properties = document.data.get("properties") if document is not None and isinstance(document.data, dict) else None
    if document is None or not isinstance(properties, dict):
        return []
    problems = []
    for name, prop in properties.items():
        group = prop.get("x-freezer-group") if isinstance(prop, dict) else None
        own = owned.get(name)
        if own is None or group is None or group == own:
            continue
        message = f"freezer's own field {name!r} counts in {own!r}, not {group!r}: write {own!r} or remove this"
        problems.append(document.problem(("properties", name, "x-freezer-group"), message, "schema"))
    return problems


def _by_rel(root: Path, paths: list[Path]) -> dict[str, Path]:
    """Each path (found under ``root`` by the drafts walk) by its '/'-separated path relative to it:
    by string, as pathlib's relative_to costs more than the rest of reading 100,000 files."""
    prefix = f"{root}{os.sep}"
    return {str(path)[len(prefix) :].replace(os.sep, "/"): path for path in paths}


def _display(root: Path) -> Callable[[str], str]:
    """How a file of the drafts is named in a problem: as display_path names it (every name under
    the drafts is visible: the walk refused any other), the folder's part worked out once."""
    shown = display_path(root)
    return (lambda rel: rel) if shown == "." else (lambda rel: f"{shown}/{rel}")


def _own_schema(schema_key: str, fixtures: list[KindFixture], seconds: float, memory: int) -> list[Problem]:
    # Lazy: the bounded children (pickle, selectors, signal, mmap) serve a suite's own schema only,
    # and a pre-commit validate of a shipped-schema suite would pay for them at every start.
    from freezer.runtime import bounded

    schemas.validator(schema_key)  # vetted and built once, here, before the children fork
    workers = work.cores() if len(fixtures) >= 300 else 1
    outcomes = bounded.map_bounded(
        partial(schemas.schema_errors, schema_key),
        [f.fields for f in fixtures],
        seconds=seconds,
        memory=memory,
        workers=workers,
    )
    problems = []
    shown = display_path(schema_key.removeprefix("file:"))
    for fixture, outcome in zip(fixtures, outcomes, strict=True):
        if isinstance(outcome, bounded.Stopped):
            message = f"checking it against the suite's schema {shown} {outcome.reason} and was stopped; simplify it"
            problems.append(fixture.document.problem((), message, "schema"))
            continue
        problems.extend(fixture.document.problem(path, message, "schema") for path, message in outcome)
    return problems


def kind_canary(suite: SuiteConfig, paths: list[Path]) -> list[Problem]:
    """The fixture files that must carry the suite's canary and do not (as audit checks them)."""
    if not suite.canary:
        return []
    by_rel = _by_rel(suite.drafts, paths)
    display = _display(suite.drafts)
    texts = {}
    for rel in Suite.of(suite).kind.canary_files(sorted(by_rel)):
        try:
            texts[display(rel)] = read_bounded(by_rel[rel], MAX_WHOLE_FILE_BYTES)
        except ReadRefused:
            continue  # reported where the kind read it
    message = "does not carry the suite's canary string (freezer.yaml canary); add it, e.g. as a comment"
    return [Problem(display, 1, 1, (), message, "rule") for display in missing_canary(suite.canary, texts)]
