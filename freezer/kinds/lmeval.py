"""Kind ``lm-eval``: each lm-evaluation-harness task file the ``fixtures`` glob names is one fixture.

The glob names task YAML files (``tasks/*.yaml``). A file whose name starts with ``_`` is not
claimed even when the glob matches it: that is lm-eval's own convention for what is not a task (a
shared template such as ``_template.yaml``, a group file such as ``_bbh.yaml``), and such a file is
frozen as a suite asset, byte for byte, as is every Python module a ``!function`` names. Nor is a
group file of the drafts, whatever its name, known by what it holds (:func:`is_group_file`):
upstream lm-eval names many without the ``_`` (``leaderboard/leaderboard.yaml``). A claimed file
must be a task (``task:`` a name); a template there is refused, located.

A group file (``group:`` and a ``task:`` list) in the glob is read as a group,
never silently a fixture nor ignored: it must read cleanly, and each entry of its list must name a
task, group or tag of the suite (a mapping entry, ``{task: name, ...}``, overrides that task's keys
for the group; one naming no task of the suite would define a task inline, which is refused: a
task is frozen from its own file). It stays a suite asset that no task claims, so a change of it
moves the suite's ``assets`` dimension: a group's score is over its members, and its overrides can
change any of them. A ``_x.yaml`` that names a task itself (``task:`` a name) is refused with what
to rename: lm-eval would run it, and freezer would not freeze it as a task.

A task's identity is its ``task:`` name; its parsed form is the task merged with everything it
``include:``s, as lm-eval merges it (:mod:`freezer.parse.lmeval` says how), with each
``!function module.name`` kept as ``{"!function": "module.name"}`` (never imported), and
:data:`~freezer.kinds.base.FILES_FIELD` listing every file it depends on: each included file,
recursively, and each module a ``!function`` names. From the closure rules of
:mod:`freezer.kinds.closure` on (a manifest's ``dependency_closure``), it lists the task's whole
closure: also every module of the suite those modules import, and the modules a group entry
``{task: name, process_results: !function m.f}`` overrides the task with (lm-eval runs the task with
them); what they import from outside the suite is listed by name in ``external_imports``. Those
count by their content, so a changed template, ``utils.py`` or a module it imports changes exactly
the tasks that reach it, in §Delta, ``compare`` and the digests.

Includes and modules are resolved by :class:`freezer.parse.lmeval.Reader`, the one resolver, here
over the :class:`~freezer.kinds.base.Files` view (the drafts, or a frozen version's bytes, which are
no folder on disk), so a task depends on the same files in its drafts and once frozen. A key that
two included files set differently (lm-eval's loaders disagree on which wins) is kept on the
fixture's document (:class:`LmEvalDocument`) for the cut to warn about (:func:`order_warnings`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freezer.domain.findings import JsonPath
from freezer.domain.fixturekind import FixtureKindRecord
from freezer.domain.problems import Problem
from freezer.git.globs import compile_glob
from freezer.kinds.base import (
    EXTERNAL_FIELD,
    FILES_FIELD,
    BenchmarkKind,
    ConfigProblem,
    Files,
    KindFixture,
    KindRead,
    LocatedDocument,
    identify,
)
from freezer.kinds.closure import Closures
from freezer.parse.document import YamlDocument
from freezer.parse.lmevalyaml import FunctionRef, functions, load_bytes
from freezer.parse.yamllocate import YAML_SUFFIXES
from freezer.runtime.limits import MAX_DOCUMENT_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

if TYPE_CHECKING:
    from freezer.parse import lmeval

_LAYER = "lm-eval"


class LmEvalDocument(LocatedDocument):
    """A task's parsed fixture, with the keys its includes set in an order-dependent way (key -> the
    included files setting it, in the order included): not part of the fixture, a note for the cut."""

    def __init__(
        self,
        display: str,
        data: Any,
        parent: YamlDocument,
        aliases: dict[str, JsonPath],
        conflicts: dict[str, tuple[str, ...]],
    ) -> None:
        super().__init__(display, data, parent, (), aliases)
        self.conflicts = conflicts


class _FilesSource:
    """A :class:`~freezer.kinds.base.Files` view as the reader's source: every file in it is a
    regular file (the drafts walk or the frozen hashes saw to that), and nothing else exists."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.known = {*files.paths, *files.others}

    def find(self, rel: str) -> bool | str | None:
        if rel in self.files.refused:
            return None
        return rel in self.known

    def read(self, rel: str) -> bytes | Problem:
        return self.files.bytes_of(rel, MAX_DOCUMENT_BYTES)

    def display(self, rel: str) -> str:
        return self.files.display(rel)

    def path(self, rel: str) -> Path:
        return Path(rel)


class LmEvalKind(BenchmarkKind):
    reads_assets = True  # a task merges the template it includes, an asset
    follows_closure = True  # a task depends on what its modules import and its groups' overrides
    glob_example = '"tasks/*.yaml"'
    task_id_rule = "the task file's task: key"
    glob_names = "its task files"

    @classmethod
    def glob_problems(cls, glob: str) -> list[ConfigProblem]:
        if not glob.endswith("/"):
            return []
        return [("fixtures", "kind lm-eval names task YAML files: a glob ending in '/' names folders")]

    @classmethod
    def key_problems(cls, raw: Mapping[str, Any]) -> list[ConfigProblem]:
        """A task is named by its own ``task:``, in no task file."""
        return [
            (key, f"kind lm-eval has no {key}: each task file is one fixture, named by its task: key")
            for key in ("task_file", "task_id")
            if key in raw
        ]

    def __init__(self, record: FixtureKindRecord) -> None:
        self.record = record
        self._glob = compile_glob(record.fixtures)
        # freezer's own fields of a parsed task, which no task key may be named.
        self._reserved = (FILES_FIELD, EXTERNAL_FIELD) if record.closure >= 1 else (FILES_FIELD,)

    @property
    def file_fields(self) -> tuple[str, ...]:
        return (FILES_FIELD,)

    @property
    def owned_groups(self) -> Mapping[str, str]:
        """Also what a task's closure needs from outside the suite, which is part of what it runs."""
        return {**super().owned_groups, EXTERNAL_FIELD: "input"}

    def claims(self, rel: str) -> bool:
        return not _underscored(rel) and self._glob.matches(rel)

    def claims_draft(self, rel: str, path: Path) -> bool:
        """Not a group file, whatever its name: upstream lm-eval names many without the ``_``
        (``leaderboard/leaderboard.yaml``); it is read as a group, frozen as a suite asset."""
        return self.claims(rel) and not is_group_file(path)

    def read(self, files: Files) -> KindRead:
        # start-up time: lm-eval's resolver is for lm-eval suites; the catalog, which every command
        # loads, imports this kind
        from freezer.parse import lmeval

        found = KindRead()
        seen: set[Problem] = set()
        reader = lmeval.Reader(_FilesSource(files))
        for rel in sorted(files.paths):
            task = reader.read(rel)
            document = task.document
            if task.problems or document is None:
                _extend(found.problems, seen, task.problems)
                continue
            if task.kind != "task" or task.name is None:
                where = ("task",) if "task" in task.merged else ()
                found.problems.append(document.problem(where, _not_a_task(task.merged), _LAYER))
                continue
            fields = as_json(task.merged)
            identity = identify(self.record, fields, document, (), task.name, reserved=self._reserved)
            if isinstance(identity, Problem):
                found.problems.append(identity)
                continue
            task_id, status, parsed, aliases = identity
            aliases["task_id"] = ("task",) if "task" in document.data else ()
            parsed[FILES_FIELD] = task.relatives
            located = LmEvalDocument(document.display, parsed, document, aliases, task.conflicts)
            found.fixtures.append(KindFixture(task_id, status, (rel,), fields, located))
        # Every other file the glob names is an ``_x.yaml`` or a group file the drafts declined by content.
        groups = [rel for rel in sorted(files.others) if self._glob.matches(rel)]
        overrides: dict[str, set[str]] = {}
        _extend(found.problems, seen, self._groups(reader, groups, found.fixtures, overrides))
        if self.record.closure >= 1:
            _close(found.fixtures, Closures(files, self.record.closure), overrides)
        return found

    def _groups(
        self, reader: lmeval.Reader, rels: list[str], fixtures: list[KindFixture], overrides: dict[str, set[str]]
    ) -> list[Problem]:
        """The problems of the group files in the glob and of the ``_x.yaml`` files there that name a task;
        ``overrides`` gains, by task id, the modules a group's entry for that task names."""
        problems: list[Problem] = []
        read: list[lmeval.LmEvalTask] = []
        for rel in rels:
            if not rel.endswith(YAML_SUFFIXES):
                continue
            loaded = reader.load(rel)
            own = loaded.document.data if loaded.document is not None else None
            if loaded.document is None:
                problems.extend(loaded.problems)  # a YAML file in the glob, unreadable: never skipped unseen
            elif isinstance(own, dict) and ("group" in own or isinstance(own.get("task"), list)):
                read.append(reader.read(rel))
            elif isinstance(own, dict) and isinstance(own.get("task"), str) and _underscored(rel):
                name = posixpath.basename(rel).lstrip("_")
                message = (
                    f"names the task {own['task']!r}, but its file name starts with '_', which lm-eval's "
                    "convention and freezer keep for templates and group files: lm-eval would run it and "
                    f"freezer would not freeze it as a task; rename it {name}"
                )
                problems.append(loaded.document.problem(("task",), message, _LAYER))
        known = {fixture.task_id for fixture in fixtures} | {group.name for group in read if group.name}
        known |= {tag for fixture in fixtures for tag in _tags(fixture.data.get("tag"))}
        for group in read:
            problems.extend(group.problems)
            if group.document is not None and not group.problems:
                problems.extend(_members(group, group.document, known))
                _overrides(reader, group, fixtures, overrides)
        return problems


def _overrides(
    reader: lmeval.Reader, group: lmeval.LmEvalTask, fixtures: list[KindFixture], found: dict[str, set[str]]
) -> None:
    """The modules each ``{task: name, ...}`` entry of a group names with ``!function``, by the task
    ids it applies to (the task so named, or each task carrying that tag): lm-eval runs the task
    with them when it runs the group, so they are part of that task as run."""
    rel = group.path.as_posix()  # the source names a file by its path relative to the suite (_FilesSource)
    for entry in group.merged.get("task") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("task"), str):
            continue
        modules = {file for _, ref in functions(entry) for file in reader.module_files(rel, ref)}
        if not modules:
            continue
        named = entry["task"]
        for fixture in fixtures:
            if fixture.task_id == named or named in _tags(fixture.data.get("tag")):
                found.setdefault(fixture.task_id, set()).update(modules)


def _close(fixtures: list[KindFixture], closures: Closures, overrides: dict[str, set[str]]) -> None:
    """Each task's files become its whole closure: what it includes and names, the modules a group
    overrides it with, and every file of the suite those import; what they import from outside the
    suite is listed by name (:data:`~freezer.kinds.closure.EXTERNAL_FIELD`)."""
    for fixture in fixtures:
        named = {*fixture.data[FILES_FIELD], *overrides.get(fixture.task_id, ())}
        closure = closures.of(sorted(named))
        fixture.data[FILES_FIELD] = sorted({*named, *closure.files})
        if closure.external:
            fixture.data[EXTERNAL_FIELD] = list(closure.external)


def _members(group: lmeval.LmEvalTask, document: YamlDocument, known: set[str]) -> list[Problem]:
    """Each entry of a group's ``task:`` list that names nothing the suite freezes."""
    found: list[Problem] = []
    for index, entry in enumerate(group.merged.get("task") or []):
        where = ("task", index)
        named = entry.get("task") if isinstance(entry, dict) else entry
        if not isinstance(named, str) or not named:
            message = "a group's task: list names tasks: each entry a name, or a mapping with task: a name"
            found.append(document.problem(where, message, _LAYER))
        elif named in known:
            continue
        elif isinstance(entry, dict):
            message = (
                f"defines the task {named!r} inline in the group {group.name!r}: freezer freezes each task "
                "from its own file; move it to a task file the fixtures glob names"
            )
            found.append(document.problem(where, message, _LAYER))
        else:
            message = (
                f"the group {group.name!r} lists {named!r}, which is no task, group or tag of this suite: "
                "freezer freezes a group with its tasks; add its task file to the drafts or remove the entry"
            )
            found.append(document.problem(where, message, _LAYER))
    return found


def order_warnings(documents: Iterable[YamlDocument]) -> list[str]:
    """A warning for each key of a task that two files it includes set differently: what a cut warns
    about in the fixtures a kind read (only an lm-eval document has includes; nothing for the others)."""
    return [
        f"{document.display}: {key!r} is set differently by {' and '.join(files)}, which it includes: "
        f"lm-eval's current loader takes the last ({files[-1]}), its 0.4 loader the first ({files[0]}); "
        f"set {key} in the task file itself so both read the same"
        for document in documents
        if isinstance(document, LmEvalDocument)
        for key, files in sorted(document.conflicts.items())
    ]


# Only a file holding both keys at its top is worth parsing to tell (a task may carry a legacy ``group:``)
# (upstream writes some keys quoted: "task": "aclue_ancient_chinese_culture").
_GROUP_KEYS = tuple(re.compile(rb"^[\"']?%s[\"']?[ \t]*:" % key, re.MULTILINE) for key in (b"group", b"task"))


def is_group_file(path: Path) -> bool:
    """Whether the file at ``path`` is an lm-eval group file by its content: a mapping with ``group:``
    and a ``task:`` list. A file that cannot be read or parsed is no group: its reading reports it."""
    try:
        raw = read_bounded(path, MAX_DOCUMENT_BYTES)
    except (OSError, ReadRefused):
        return False
    if not all(key.search(raw) for key in _GROUP_KEYS):
        return False
    own = load_bytes(raw, str(path)).document
    data = own.data if own is not None else None
    return isinstance(data, dict) and "group" in data and isinstance(data.get("task"), list)


def _underscored(rel: str) -> bool:
    return rel.rsplit("/", 1)[-1].startswith("_")


def _tags(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [tag for tag in value if isinstance(tag, str)] if isinstance(value, list) else []


def _extend(problems: list[Problem], seen: set[Problem], more: Iterable[Problem]) -> None:
    """Add each problem once: a template several tasks include says its problem once."""
    for problem in more:
        if problem not in seen:
            seen.add(problem)
            problems.append(problem)


def as_json(value: Any) -> Any:
    """``value`` with every :class:`FunctionRef` in it as ``{"!function": "module.name"}``: plain JSON,
    so a fixture's digests, its field changes and delta.json treat a reference as the text written,
    and a changed reference as a changed field (no recursion: lm-eval configs can nest deeply)."""
    if isinstance(value, FunctionRef):
        return value.as_json()
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, FunctionRef):
                item = item.as_json()
            elif isinstance(item, dict | list):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy))
                item = copy
            if isinstance(target, dict):
                target[key] = item
            else:
                target.append(item)
    return root


def _not_a_task(merged: dict[str, Any]) -> str:
    named, group = merged.get("task"), merged.get("group")
    if isinstance(named, list) or group is not None:
        kind = "a group file (task: lists tasks)" if isinstance(named, list) else "a group file"
    elif named is None:
        kind = "a template (it names no task:)"
    else:
        return "task: names the task (a non-empty string)"
    return (
        f"{kind}, not a task: every file the fixtures glob names is one task; name it _<name>.yaml "
        "(lm-eval's convention, frozen as a suite asset) or move it out of the glob"
    )
