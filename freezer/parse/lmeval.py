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
  root or names no file is refused where the include is written; a file
  included twice through two others (a diamond) is fine (lm-eval's current loader
  calls that a cycle).

A file whose ``task:`` is a list and that names a ``group:`` is a group file, not a
task; a file with no ``task:`` is a template (what others include).

There is one resolver, :class:`Reader`, over a :class:`Source`: files named by '/'-separated
paths relative to a root, and how to read one. The drafts on disk are one source
(:class:`DiskSource`, which also refuses links and special files); a frozen version's bytes,
which are no folder on disk, are another (:mod:`freezer.kinds.lmeval`). Names are joined and
normalised as text, so a task resolves to the same files in its drafts and once frozen.
"""

import os
import posixpath
import stat
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol

from freezer.domain.findings import JsonPath
from freezer.domain.problems import Problem, display_path
from freezer.parse import yamlload
from freezer.parse.document import YamlDocument

# Re-exported (``as``): the rest of freezer reads lm-eval's YAML through this one module.
from freezer.parse.lmevalyaml import FunctionRef, functions, load_bytes
from freezer.parse.yamllocate import DEFAULT_LIMITS, Limits

MAX_INCLUDE_DEPTH = 16
MAX_INCLUDE_VISITS = 256  # per task, repeats counted: a lattice of includes cannot take exponential time
_LAYER = "lm-eval"

TaskKind = Literal["task", "group", "template"]


class Source(Protocol):
    """The files a :class:`Reader` resolves names against, by '/'-separated path relative to a root."""

    def find(self, rel: str) -> bool | str | None:
        """True: a file to read is there; False: none is; a text: why what is there cannot be one
        (it completes "include 'x.yaml' ...", e.g. "is a symbolic link: ..."); None: what is there was
        refused and reported already (the drafts walk refuses links and FIFOs), so nothing more is said."""
        ...

    def read(self, rel: str) -> bytes | Problem: ...

    def display(self, rel: str) -> str:
        """How the file is named in a problem."""
        ...

    def path(self, rel: str) -> Path: ...


class Dependency(NamedTuple):
    """A file a task depends on: an included YAML file, or the Python file a ``!function`` names."""

    path: Path  # as the source names it (on disk: its path under the root)
    relative: str  # relative to the root, with "/"
    kind: Literal["include", "module"]
    named_by: str  # the file that names it, relative to the root
    written: str  # the include name or the (first) !function text that names it


class LmEvalTask:
    """One task file read with everything it includes: what it is, its merged keys, what it depends on.

    ``merged`` shares its values with the loaded files (a reader loads each once): read it, do not change it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.document: YamlDocument | None = None  # the file's own data, for locating what is written in it
        self.kind: TaskKind | None = None  # None when it could not be read
        self.name: str | None = None  # the task's name (``task:``), or a group's (``group:``)
        self.merged: dict[str, Any] = {}
        self.dependencies: list[Dependency] = []
        # Each key two included files set differently (the task not setting it), with those files in
        # the order included: lm-eval's loaders disagree on which one wins.
        self.conflicts: dict[str, tuple[str, ...]] = {}
        self.problems: list[Problem] = []

    @property
    def order_dependent(self) -> tuple[str, ...]:
        return tuple(sorted(self.conflicts))

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file the task depends on, each once, in the order first named."""
        return tuple(dict.fromkeys(dependency.path for dependency in self.dependencies))

    @property
    def relatives(self) -> list[str]:
        """Every file the task depends on, relative to the root, each once, sorted."""
        return sorted({dependency.relative for dependency in self.dependencies})


class DiskSource:
    """Files under a folder on disk: a link or anything but a regular file is refused, as the drafts
    walk refuses them, so what resolves here is what a frozen copy holds."""

    def __init__(self, root: Path, limits: Limits = DEFAULT_LIMITS) -> None:
        self.root = Path(os.path.realpath(root))
        self.limits = limits

    def path(self, rel: str) -> Path:
        return self.root / rel

    def display(self, rel: str) -> str:
        return display_path(self.root / rel)

    def outside(self, path: Path | str) -> str:
        return f"{display_path(path)} is outside {display_path(self.root)}: freezer reads only files under it"

    def find(self, rel: str) -> bool | str:
        candidate = self.root / rel
        if not Path(os.path.realpath(candidate)).is_relative_to(self.root):
            return f"leaves the drafts: {self.outside(candidate)}"
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            return False
        except OSError as exc:
            return f"cannot be read ({rel}: {exc.strerror})"
        if stat.S_ISLNK(info.st_mode):
            return "is a symbolic link: freezer freezes files as they are; name the file itself"
        if not stat.S_ISREG(info.st_mode):
            return f"is not a regular file ({rel})"
        return True

    def read(self, rel: str) -> bytes | Problem:
        raw, problem = yamlload.read_bytes(self.root / rel, self.display(rel), self.limits.max_bytes)
        if raw is None:
            assert problem is not None
            return problem
        return raw


class _Visit:
    """What one task's reading gathers as it walks its includes."""

    def __init__(self, task: LmEvalTask) -> None:
        self.task = task
        self.visits = 0
        # Set once the task is refused for its size (too deep, too many includes): the walk stops there,
        # and the one problem says why rather than one per include past the limit.
        self.halted = False
        self.seen: set[tuple[str, str, str]] = set()

    def depend(self, dependency: Dependency) -> None:
        """Record it, once for each file that names it (a module named by five tags is one dependency)."""
        key = (dependency.relative, dependency.kind, dependency.named_by)
        if key not in self.seen:
            self.seen.add(key)
            self.task.dependencies.append(dependency)

    def refuse(self, problem: Problem) -> None:
        if problem not in self.task.problems:  # a shared template reached twice says it once
            self.task.problems.append(problem)


class Reader:
    """Reads lm-eval task files from ``source``; each file is loaded once, however many tasks include it."""

    def __init__(self, source: Source, limits: Limits = DEFAULT_LIMITS) -> None:
        self.source = source
        self.limits = limits
        self._loaded: dict[str, yamlload.LoadResult] = {}
        # What an include name or a !function names from one folder: the same for every task there.
        self._targets: dict[tuple[str, str, str], tuple[tuple[str, ...], str | None]] = {}

    def load(self, rel: str) -> yamlload.LoadResult:
        """The file's own document (no include resolved), or why it cannot be read."""
        if rel not in self._loaded:
            raw = self.source.read(rel)
            if isinstance(raw, Problem):
                self._loaded[rel] = yamlload.LoadResult(None, [raw])
            else:
                self._loaded[rel] = load_bytes(raw, self.source.display(rel), self.limits)
        return self._loaded[rel]

    def read(self, rel: str) -> LmEvalTask:
        """The file at ``rel`` (a file of the source) with everything it includes."""
        task = LmEvalTask(self.source.path(rel))
        visit = _Visit(task)
        merged = self._config(rel, (rel,), visit)
        task.document = self._loaded[rel].document
        if merged is None or task.document is None:
            return task
        task.merged, task.conflicts = merged
        _classify(task, task.document)
        return task

    def _config(
        self, rel: str, chain: tuple[str, ...], visit: _Visit
    ) -> tuple[dict[str, Any], dict[str, tuple[str, ...]]] | None:
        """The merged keys of ``rel`` and the keys its includes set in an order-dependent way."""
        loaded = self.load(rel)
        if loaded.document is None:
            for problem in loaded.problems:
                visit.refuse(problem)
            return None
        document = loaded.document
        if not isinstance(document.data, dict):
            visit.refuse(document.problem((), "an lm-eval task file is a mapping of keys to values", _LAYER))
            return None
        for where, ref in functions(document.data):
            self._module(rel, document, where, ref, visit)
        own = dict(document.data)
        if "include" not in own:
            return own, {}
        names = own.pop("include")  # `include:` with no value is refused below, as lm-eval fails on it
        listed = isinstance(names, list)
        merged: dict[str, Any] = {}
        setters: dict[str, str] = {}  # key -> the included file whose value it holds
        conflicts: dict[str, tuple[str, ...]] = {}
        for index, name in enumerate(names if listed else [names]):
            at: JsonPath = ("include", index) if listed else ("include",)
            target = self._include(rel, document, at, name, chain, visit)
            if target is None:
                continue
            visit.depend(Dependency(self.source.path(target), target, "include", rel, name))
            sub = self._config(target, (*chain, target), visit)
            if sub is None:
                continue
            config, below = sub
            config.pop("task_list", None)
            for key, files in below.items():
                conflicts.setdefault(key, files)
            for key, value in config.items():
                if key in merged and merged[key] != value:
                    conflicts[key] = (*conflicts.get(key, (setters[key],)), target)
                setters[key] = target
            merged.update(config)
        merged.update(own)
        return merged, {key: files for key, files in conflicts.items() if key not in own}

    def _include(
        self, rel: str, document: YamlDocument, where: JsonPath, name: Any, chain: tuple[str, ...], visit: _Visit
    ) -> str | None:
        """The file ``name`` includes, or None (and why, located where it is written)."""
        if visit.halted:
            return None
        target, refusal = self._include_target(rel, name)
        if target is not None and target in chain:
            cycle = " -> ".join((*chain[chain.index(target) :], target))
            refusal = f"include cycle: {cycle}; no file may include itself, directly or through others"
        elif target is not None and len(chain) > MAX_INCLUDE_DEPTH:
            refusal = f"includes nested deeper than {MAX_INCLUDE_DEPTH} files"
            visit.halted = True
        elif target is not None:
            visit.visits += 1
            if visit.visits > MAX_INCLUDE_VISITS:
                refusal = f"the task includes more than {MAX_INCLUDE_VISITS} files, repeats counted"
                visit.halted = True
        if refusal is not None:
            if refusal:  # "" : refused and reported by the drafts walk already
                visit.refuse(document.problem(where, refusal, _LAYER))
            return None
        return target

    def _include_target(self, rel: str, name: Any) -> tuple[str | None, str | None]:
        if not isinstance(name, str) or not name:
            return None, "include: names a file (a non-empty string, or a list of them) relative to this one"
        folder = posixpath.dirname(rel)
        key = ("include", folder, name)
        if key not in self._targets:
            target, refusal = self._file(folder, name, f"include {name!r}")
            if target is None and refusal is None:
                refusal = f"include {name!r} names no file (looked for {_joined(folder, name)}, beside this file)"
            self._targets[key] = ((target,) if target is not None else (), refusal)
        targets, refusal = self._targets[key]
        return (targets[0] if targets else None), refusal

    def _file(self, folder: str, name: str, what: str) -> tuple[str | None, str | None]:
        """The file ``name`` names from ``folder``; (None, why) when refused, (None, None) when none."""
        if name.startswith("/") or "\\" in name or os.path.isabs(name):
            return None, f"{what} is an absolute path or holds a backslash: name the file relative to this one"
        joined = _joined(folder, name)
        if joined == ".." or joined.startswith("../"):
            return None, f"{what} leaves the drafts ({joined}): freezer reads only files under them"
        found = self.source.find(joined)
        if found is None:
            return None, ""
        if isinstance(found, str):
            return None, f"{what} {found}"
        return (joined if found else None), None

    def _module(self, rel: str, document: YamlDocument, where: JsonPath, ref: FunctionRef, visit: _Visit) -> None:
        """Record the Python file ``ref`` names, relative to the folder of the file it is written in."""
        targets, refusal = self._module_lookup(rel, ref)
        if refusal:  # "" : the module was refused and reported by the drafts walk already
            visit.refuse(document.problem(where, f"!function {ref.raw!r} {refusal}", _LAYER))
        for target in targets:
            visit.depend(Dependency(self.source.path(target), target, "module", rel, ref.raw))

    def module_files(self, rel: str, ref: FunctionRef) -> tuple[str, ...]:
        """The Python files ``ref``, written in the file ``rel``, names (none when it is refused:
        reading ``rel`` reports why)."""
        return self._module_lookup(rel, ref)[0]

    def _module_lookup(self, rel: str, ref: FunctionRef) -> tuple[tuple[str, ...], str | None]:
        """What a ``!function`` names from one folder: the same for every file there, looked up once."""
        folder = posixpath.dirname(rel)
        key = ("module", folder, ref.raw)
        if key not in self._targets:
            self._targets[key] = self._module_targets(folder, ref)
        return self._targets[key]

    def _module_targets(self, folder: str, ref: FunctionRef) -> tuple[tuple[str, ...], str | None]:
        parts = ref.module.split(".") if ref.module else []
        if not parts or not all(part.isidentifier() for part in parts) or not ref.name.isidentifier():
            return (), "does not name a function as module.function (e.g. utils.process_docs)"
        names = dict.fromkeys(["/".join(parts) + ".py", ref.module + ".py"])  # lm-eval now, lm-eval 0.4
        found: list[str] = []
        for written in names:
            target, refusal = self._file(folder, written, f"names {written}, which")
            if refusal is not None:
                return (), refusal
            if target is not None:
                found.append(target)
        if not found:
            looked = " or ".join(_joined(folder, name) for name in names)
            return (), f"names no file: looked for {looked} (an installed module cannot be frozen)"
        return tuple(found), None


class TaskReader:
    """:class:`Reader` over the files under ``root`` on disk, taking paths rather than names under it."""

    def __init__(self, root: Path, limits: Limits = DEFAULT_LIMITS) -> None:
        self.source = DiskSource(root, limits)
        self.root = self.source.root
        self.reader = Reader(self.source, limits)

    def read(self, path: Path) -> LmEvalTask:
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(self.root):
            return _refused(path, self.source.outside(path), _LAYER)
        if os.path.islink(path):
            message = "is a symbolic link: freezer freezes files as they are; put the task file itself here"
            return _refused(path, message, "file")
        task = self.reader.read(real.relative_to(self.root).as_posix())
        task.path = Path(path)
        return task


def _refused(path: Path, message: str, layer: str) -> LmEvalTask:
    task = LmEvalTask(Path(path))
    task.problems.append(Problem(display_path(path), None, None, (), message, layer))
    return task


def _joined(folder: str, name: str) -> str:
    return posixpath.normpath(posixpath.join(folder, name))


def _classify(task: LmEvalTask, document: YamlDocument) -> None:
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
