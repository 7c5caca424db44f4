"""Reading lm-evaluation-harness task YAML as data, without running any of it.

A task file is YAML with two additions, both resolved here the way lm-eval resolves
them, and neither ever executed:

* ``!function module.name``: lm-eval imports ``module`` from the folder of the file
  the tag is written in and calls ``name``. Here it becomes a :class:`FunctionRef` in
  the data, and the Python file it names is a dependency of the task. ``utils.f``
  is ``utils.py`` beside that file. For a dotted module (``pkg.mod.f``) lm-eval's
  current loader reads ``pkg/mod.py`` and its 0.4 loader ``pkg.mod.py``: the task
  depends on each of the two that exists, and one must. lm-eval's current loader
  then falls back to an installed module; such a module is outside the drafts and
  cannot be frozen, so it is refused. Every other tag is refused, as in any YAML
  freezer reads (:mod:`freezer.parse.yamlhazards`).
* ``include:`` (a name or a list): each file is read first, recursively, and the
  task's own keys override what it includes, key by key at the top level. A name is
  relative to the including file (lm-eval 0.4 first tried it relative to the
  working folder, which makes a task mean different things from different folders;
  freezer does not). With a list, a later file overrides an earlier one (lm-eval's
  current loader; 0.4 read the list the other way round): keys that two included
  files set differently, and the task does not set itself, are listed in
  :attr:`LmEvalTask.order_dependent`, for a reviewer to settle. An included file's
  ``task_list`` is not inherited (lm-eval's current loader). A cycle, an include
  deeper than :data:`MAX_INCLUDE_DEPTH`, an absolute name, a name that leaves the
  root folder or names no file is refused where the include is written; a file
  included twice through two others (a diamond) is fine (lm-eval's current loader
  calls that a cycle).

A file whose ``task:`` is a list and that names a ``group:`` is a group file, not a
task; a file with no ``task:`` is a template (what others include).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from yaml import events as ev

from freezer.domain.escape import unsafe_char
from freezer.domain.problems import JsonPath, Problem, display_path
from freezer.parse import yamlhazards, yamlload
from freezer.parse.document import YamlDocument
from freezer.parse.yamlbuild import LocatedBuilder
from freezer.parse.yamllocate import DEFAULT_LIMITS, FastLoader, Limits, located

FUNCTION_TAG = "!function"
MAX_INCLUDE_DEPTH = 16
MAX_INCLUDE_VISITS = 256  # per task, repeats counted: a lattice of includes cannot take exponential time
_LAYER = "lm-eval"
_ALLOWED = yamlhazards.tag_message(FUNCTION_TAG)

TaskKind = Literal["task", "group", "template"]


@dataclass(frozen=True)
class FunctionRef:
    """A ``!function module.name`` tag, as written (``raw``); never imported."""

    module: str  # "" when the tag names no module
    name: str
    raw: str

    @classmethod
    def parse(cls, raw: str) -> FunctionRef:
        module, _, name = raw.rpartition(".")
        return cls(module, name, raw)

    def as_json(self) -> dict[str, str]:
        """The reference as JSON: how it is hashed, diffed and shown (:func:`freezer.kinds.lmeval.as_json`)."""
        return {FUNCTION_TAG: self.raw}


@dataclass(frozen=True)
class Dependency:
    """A file a task depends on: an included YAML file, or the Python file a ``!function`` names."""

    path: Path  # real path, inside the root
    relative: str  # relative to the root, with "/"
    kind: Literal["include", "module"]
    named_by: str  # the file that names it, relative to the root
    written: str  # the include name or the (first) !function text that names it


@dataclass
class LmEvalTask:
    """One task file read with everything it includes: what it is, its merged keys, what it depends on.

    ``merged`` shares its values with the loaded files (a reader loads each once): read it, do not change it."""

    path: Path
    document: YamlDocument | None  # the file's own data, for locating what is written in it
    kind: TaskKind | None = None  # None when it could not be read
    name: str | None = None  # the task's name (``task:``), or a group's (``group:``)
    merged: dict[str, Any] = field(default_factory=dict)
    dependencies: list[Dependency] = field(default_factory=list)
    order_dependent: tuple[str, ...] = ()
    problems: list[Problem] = field(default_factory=list)

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file the task depends on, each once, in the order first named."""
        return tuple(dict.fromkeys(dependency.path for dependency in self.dependencies))


# -- YAML with !function -----------------------------------------------------------------------


class _FunctionBuilder(LocatedBuilder):
    """The located builder, taking a ``!function`` scalar as a :class:`FunctionRef`; every other tag
    is refused as before."""

    def feed(self, event: Any) -> None:
        if not isinstance(event, ev.ScalarEvent) or event.tag != FUNCTION_TAG:
            super().feed(event)
            return
        if self.flow_depth:
            self._flow_question(event)
        mark = event.start_mark
        if not self._count(mark):
            return
        if self._child_path() is None:
            self._problem(mark, self._where(event.value), "a !function cannot be a mapping key; remove the tag")
            self._attach(event.value, mark, mark)
            return
        path = self._where(event.value)
        if event.anchor is not None:
            self._problem(mark, path, yamlhazards.anchor_message(event.anchor, None, None))
        bad = unsafe_char(event.value)
        if bad is not None:
            self._problem(mark, path, f"the !function name holds the control character {bad}")
        self._attach(FunctionRef.parse(event.value), mark, mark)


def load_bytes(raw: bytes, display: str, limits: Limits = DEFAULT_LIMITS) -> yamlload.LoadResult:
    """:func:`freezer.parse.yamlload.load_bytes`, with ``!function`` scalars read as :class:`FunctionRef`."""
    text, problem = yamlload.decode(raw, display)
    if text is None:
        assert problem is not None
        return yamlload.LoadResult(None, [problem])
    if FUNCTION_TAG not in text:  # the common file: the fast path
        return yamlload.load_bytes(raw, display, limits)
    if yamlhazards.text_hazard(text) is None:
        builder: LocatedBuilder | None = _FunctionBuilder(display, text, limits.max_nodes, limits.max_depth)
        parser = FastLoader(text)
        try:
            while builder is not None and not builder.fatal and (event := parser.get_event()) is not None:
                builder.feed(event)
        except (yaml.YAMLError, RecursionError):
            builder = None  # the located reading below words it
        finally:
            parser.dispose()
        if builder is not None:
            if builder.problems:
                return yamlload.LoadResult(None, builder.problems)
            return yamlload.LoadResult(YamlDocument(display, builder.result, builder.marks), [])
    # A syntax error, or text that reads other than it looks: the plain located reading says where and
    # why; its refusal of the !function tags is not freezer's word on an lm-eval file.
    problems = [p for p in located(text, display, limits).problems if p.message != _ALLOWED]
    return yamlload.LoadResult(None, problems or [Problem(display, 1, 1, (), "YAML syntax error", "yaml")])


def load_file(path: Path, display: str | None = None, limits: Limits = DEFAULT_LIMITS) -> yamlload.LoadResult:
    display = display if display is not None else display_path(path)
    raw, problem = yamlload.read_bytes(path, display, limits.max_bytes)
    if raw is None:
        assert problem is not None
        return yamlload.LoadResult(None, [problem])
    return load_bytes(raw, display, limits)


def functions(data: Any) -> list[tuple[JsonPath, FunctionRef]]:
    """Every :class:`FunctionRef` in ``data`` with its path, in the order written (no recursion)."""
    found: list[tuple[JsonPath, FunctionRef]] = []
    stack: list[tuple[JsonPath, Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, FunctionRef):
            found.append((path, value))
        elif isinstance(value, dict):
            stack.extend(reversed([((*path, key), item) for key, item in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([((*path, index), item) for index, item in enumerate(value)]))
    return found


# -- tasks, includes, modules ------------------------------------------------------------------


@dataclass
class _Visit:
    """What one task's reading gathers as it walks its includes."""

    task: LmEvalTask
    visits: int = 0
    seen: set[tuple[Path, str, str]] = field(default_factory=set)

    def depend(self, dependency: Dependency) -> None:
        """Record it, once for each file that names it (a module named by five tags is one dependency)."""
        key = (dependency.path, dependency.kind, dependency.named_by)
        if key not in self.seen:
            self.seen.add(key)
            self.task.dependencies.append(dependency)

    def refuse(self, problem: Problem) -> None:
        if problem not in self.task.problems:  # a shared template reached twice says it once
            self.task.problems.append(problem)


class TaskReader:
    """Reads lm-eval task files under ``root``; each file is loaded once, however many tasks include it."""

    def __init__(self, root: Path, limits: Limits = DEFAULT_LIMITS) -> None:
        self.root = Path(os.path.realpath(root))
        self.limits = limits
        self._loaded: dict[Path, yamlload.LoadResult] = {}
        # What an include name or a !function names from one folder: the same for every task there.
        self._targets: dict[tuple[str, Path, str], tuple[tuple[Path, ...], str | None]] = {}
        self._relatives: dict[Path, str] = {}

    def _relative(self, real: Path) -> str:
        if real not in self._relatives:
            self._relatives[real] = real.relative_to(self.root).as_posix()
        return self._relatives[real]

    def _load(self, real: Path) -> yamlload.LoadResult:
        if real not in self._loaded:
            self._loaded[real] = load_file(real, display_path(real), self.limits)
        return self._loaded[real]

    def read(self, path: Path) -> LmEvalTask:
        real = Path(os.path.realpath(path))
        task = LmEvalTask(Path(path), None)
        if not real.is_relative_to(self.root):
            task.problems.append(Problem(display_path(path), None, None, (), self._outside(path), _LAYER))
            return task
        if os.path.islink(path):
            message = "is a symbolic link: freezer freezes files as they are; put the task file itself here"
            task.problems.append(Problem(display_path(path), None, None, (), message, "file"))
            return task
        visit = _Visit(task)
        merged = self._config(real, (real,), visit)
        loaded = self._loaded.get(real)
        task.document = loaded.document if loaded is not None else None
        if merged is None or task.document is None:
            return task
        own, conflicts = merged
        task.merged, task.order_dependent = own, tuple(sorted(conflicts))
        self._classify(task, task.document)
        return task

    def _outside(self, path: Path | str) -> str:
        return f"{display_path(path)} is outside {display_path(self.root)}: freezer reads only files under it"

    def _config(self, real: Path, chain: tuple[Path, ...], visit: _Visit) -> tuple[dict[str, Any], set[str]] | None:
        """The merged keys of the file at ``real`` and the keys its includes set in an order-dependent way."""
        loaded = self._load(real)
        if loaded.document is None:
            for problem in loaded.problems:
                visit.refuse(problem)
            return None
        document = loaded.document
        if not isinstance(document.data, dict):
            visit.refuse(document.problem((), "an lm-eval task file is a mapping of keys to values", _LAYER))
            return None
        for where, ref in functions(document.data):
            self._module(real, document, where, ref, visit)
        own = dict(document.data)
        names = own.pop("include", None)
        if names is None:
            return own, set()
        listed = isinstance(names, list)
        merged: dict[str, Any] = {}
        conflicts: set[str] = set()
        for index, name in enumerate(names if listed else [names]):
            at: JsonPath = ("include", index) if listed else ("include",)
            target = self._include(real, document, at, name, chain, visit)
            if target is None:
                continue
            visit.depend(Dependency(target, self._relative(target), "include", self._relative(real), name))
            sub = self._config(target, (*chain, target), visit)
            if sub is None:
                continue
            config, below = sub
            config.pop("task_list", None)
            conflicts |= below
            conflicts |= {key for key, value in config.items() if key in merged and merged[key] != value}
            merged.update(config)
        merged.update(own)
        return merged, conflicts - own.keys()

    def _include(
        self, real: Path, document: YamlDocument, where: JsonPath, name: Any, chain: tuple[Path, ...], visit: _Visit
    ) -> Path | None:
        """The real path of the file ``name`` includes, or None (and why, located where it is written)."""
        target, refusal = self._include_target(real.parent, name)
        if target is not None and target in chain:
            cycle = " -> ".join(self._relative(step) for step in (*chain[chain.index(target) :], target))
            refusal = f"include cycle: {cycle}; no file may include itself, directly or through others"
        elif target is not None and len(chain) > MAX_INCLUDE_DEPTH:
            refusal = f"includes nested deeper than {MAX_INCLUDE_DEPTH} files"
        elif target is not None:
            visit.visits += 1
            if visit.visits > MAX_INCLUDE_VISITS:
                refusal = f"the task includes more than {MAX_INCLUDE_VISITS} files, repeats counted"
        if refusal is not None:
            visit.refuse(document.problem(where, refusal, _LAYER))
            return None
        return target

    def _include_target(self, folder: Path, name: Any) -> tuple[Path | None, str | None]:
        """What ``include: name`` written in ``folder`` names: its real path, or why it is refused."""
        if not isinstance(name, str) or not name:
            return None, "include: names a file (a non-empty string, or a list of them) relative to this one"
        key = ("include", folder, name)
        if key not in self._targets:
            target, refusal = self._file(folder, name, f"include {name!r}")
            if target is None and refusal is None:
                refusal = f"include {name!r} names no file (looked for {self._beside(folder, name)}, beside this file)"
            self._targets[key] = ((target,) if target is not None else (), refusal)
        targets, refusal = self._targets[key]
        return (targets[0] if targets else None), refusal

    def _file(self, folder: Path, name: str, what: str) -> tuple[Path | None, str | None]:
        """The real path of the regular file ``name`` in ``folder``; (None, why) when refused, (None, None)
        when there is none."""
        if os.path.isabs(name):
            return None, f"{what} is an absolute path: name the file relative to this one, inside the drafts"
        candidate = folder / name
        target = Path(os.path.realpath(candidate))
        if not target.is_relative_to(self.root):
            return None, f"{what} leaves the drafts: {self._outside(candidate)}"
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"{what} cannot be read ({self._relative(target)}: {exc.strerror})"
        if stat.S_ISLNK(info.st_mode):
            return None, f"{what} is a symbolic link: freezer freezes files as they are; name the file itself"
        if not stat.S_ISREG(info.st_mode):
            return None, f"{what} is not a regular file ({self._relative(target)})"
        return target, None

    def _beside(self, folder: Path, name: str) -> str:
        return self._relative(Path(os.path.realpath(folder / name)))

    def _module(self, real: Path, document: YamlDocument, where: JsonPath, ref: FunctionRef, visit: _Visit) -> None:
        """Record the Python file ``ref`` names, relative to the folder of the file it is written in."""
        key = ("module", real.parent, ref.raw)
        if key not in self._targets:
            self._targets[key] = self._module_targets(real.parent, ref)
        targets, refusal = self._targets[key]
        if refusal is not None:
            visit.refuse(document.problem(where, f"!function {ref.raw!r} {refusal}", _LAYER))
        for target in targets:
            visit.depend(Dependency(target, self._relative(target), "module", self._relative(real), ref.raw))

    def _module_targets(self, folder: Path, ref: FunctionRef) -> tuple[tuple[Path, ...], str | None]:
        parts = ref.module.split(".") if ref.module else []
        if not parts or not all(part.isidentifier() for part in parts) or not ref.name.isidentifier():
            return (), "does not name a function as module.function (e.g. utils.process_docs)"
        names = dict.fromkeys(["/".join(parts) + ".py", ref.module + ".py"])  # lm-eval now, lm-eval 0.4
        found: list[Path] = []
        for written in names:
            target, refusal = self._file(folder, written, f"names {written}, which")
            if refusal is not None:
                return (), refusal
            if target is not None:
                found.append(target)
        if not found:
            looked = " or ".join(self._beside(folder, name) for name in names)
            return (), f"names no file: looked for {looked} (an installed module cannot be frozen)"
        return tuple(found), None

    def _classify(self, task: LmEvalTask, document: YamlDocument) -> None:
        named, group = task.merged.get("task"), task.merged.get("group")
        if isinstance(named, str) and named:
            task.kind, task.name = "task", named
        elif isinstance(named, list) and isinstance(group, str) and group:
            task.kind, task.name = "group", group
        elif named is None:
            task.kind = "template"
        elif isinstance(named, list):
            task.problems.append(document.problem(("task",), "task: is a list, but the file names no group:", _LAYER))
        else:
            message = "task: names the task (a non-empty string), or lists a group's tasks beside group:"
            task.problems.append(document.problem(("task",), message, _LAYER))
