"""Kind ``lm-eval``: each lm-evaluation-harness task file the ``fixtures`` glob names is one fixture.

The glob names task YAML files (``tasks/*.yaml``). A file whose name starts with ``_`` is not
claimed even when the glob matches it: that is lm-eval's own convention for what is not a task (a
shared template such as ``_template.yaml``, a group file such as ``_bbh.yaml``), and such a file is
frozen as a suite asset, byte for byte, as is every Python module a ``!function`` names. A claimed
file must be a task (``task:`` a name); a group file or a template there is refused, located.

A task's identity is its ``task:`` name; its parsed form is the task merged with everything it
``include:``s, as lm-eval merges it (:mod:`freezer.parse.lmeval` says how), with each
``!function module.name`` kept as ``{"!function": "module.name"}`` (never imported), and
:data:`~freezer.kinds.base.FILES_FIELD` listing every file it depends on: each included file,
recursively, and each module a ``!function`` names. Those count by their content, so a changed
template or ``utils.py`` changes exactly the tasks that use it, in §Delta, ``compare`` and the digests.

Includes and modules are resolved here over the :class:`~freezer.kinds.base.Files` view (the drafts,
or a frozen version's bytes, which are no folder on disk), by the rules of
:class:`freezer.parse.lmeval.TaskReader`: relative to the file naming them, never leaving the
drafts, no cycle, bounded depth and visits.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from freezer.domain.manifest import FixtureKindRecord
from freezer.domain.problems import JsonPath, Problem
from freezer.git.globs import compile_glob
from freezer.kinds.base import FILES_FIELD, Files, KindFixture, KindRead, LocatedDocument, identify
from freezer.parse import lmeval
from freezer.parse.document import YamlDocument

_LAYER = "lm-eval"


@dataclass
class _Walk:
    """What reading one task gathers as it walks its includes."""

    depends: dict[str, None] = field(default_factory=dict)  # every file it depends on, in the order named
    problems: list[Problem] = field(default_factory=list)
    visits: int = 0

    def refuse(self, problem: Problem) -> None:
        if problem not in self.problems:  # a template reached twice says it once
            self.problems.append(problem)


class LmEvalKind:
    def __init__(self, record: FixtureKindRecord) -> None:
        self.record = record
        self._glob = compile_glob(record.fixtures)
        self._loaded: dict[str, tuple[YamlDocument | None, list[Problem]]] = {}
        self._known: set[str] = set()

    @property
    def file_fields(self) -> tuple[str, ...]:
        return (FILES_FIELD,)

    def claims(self, rel: str) -> bool:
        return not rel.rsplit("/", 1)[-1].startswith("_") and self._glob.matches(rel)

    def read(self, files: Files) -> KindRead:
        found = KindRead()
        self._loaded = {}
        self._known = {*files.paths, *files.others}
        for rel in sorted(files.paths):
            walk = _Walk()
            merged = self._config(files, rel, (rel,), walk)
            document = self._loaded[rel][0]
            found.problems.extend(walk.problems)
            if merged is None or document is None or walk.problems:
                continue
            named = merged.get("task")
            if not isinstance(named, str) or not named:
                found.problems.append(
                    document.problem(("task",) if "task" in merged else (), _not_a_task(merged), _LAYER)
                )
                continue
            fields = as_json(merged)
            identity = identify(self.record, fields, document, (), named, reserved=(FILES_FIELD,))
            if isinstance(identity, Problem):
                found.problems.append(identity)
                continue
            task_id, status, parsed, aliases = identity
            aliases["task_id"] = ("task",) if "task" in document.data else ()
            parsed[FILES_FIELD] = sorted(walk.depends)
            located = LocatedDocument(document.display, parsed, document, (), aliases)
            found.fixtures.append(KindFixture(task_id, status, (rel,), fields, located))
        return found

    def _load(self, files: Files, rel: str) -> tuple[YamlDocument | None, list[Problem]]:
        if rel not in self._loaded:
            raw = files.bytes_of(rel)
            if isinstance(raw, Problem):
                self._loaded[rel] = None, [raw]
            else:
                loaded = lmeval.load_bytes(raw, files.display(rel))
                self._loaded[rel] = loaded.document, loaded.problems
        return self._loaded[rel]

    def _config(self, files: Files, rel: str, chain: tuple[str, ...], walk: _Walk) -> dict[str, Any] | None:
        """The keys of ``rel`` merged over what it includes (lm-eval's current loader's order)."""
        document, problems = self._load(files, rel)
        if document is None:
            for problem in problems:
                walk.refuse(problem)
            return None
        if not isinstance(document.data, dict):
            walk.refuse(document.problem((), "an lm-eval task file is a mapping of keys to values", _LAYER))
            return None
        for where, ref in lmeval.functions(document.data):
            self._module(rel, document, where, ref, walk)
        own = dict(document.data)
        names = own.pop("include", None)
        if names is None:
            return own
        listed = isinstance(names, list)
        merged: dict[str, Any] = {}
        for index, name in enumerate(names if listed else [names]):
            at: JsonPath = ("include", index) if listed else ("include",)
            target = self._include(rel, document, at, name, chain, walk)
            if target is None:
                continue
            walk.depends[target] = None
            config = self._config(files, target, (*chain, target), walk)
            if config is not None:
                config.pop("task_list", None)
                merged.update(config)
        merged.update(own)
        return merged

    def _include(
        self, rel: str, document: YamlDocument, where: JsonPath, name: Any, chain: tuple[str, ...], walk: _Walk
    ) -> str | None:
        if not isinstance(name, str) or not name:
            refusal: str | None = "include: names a file (a non-empty string, or a list of them) relative to this one"
            target = None
        else:
            target, refusal = self._beside(rel, name, f"include {name!r}")
            if target is None and refusal is None:
                refusal = f"include {name!r} names no file (looked for {self._joined(rel, name)}, beside this file)"
        if target is not None and target in chain:
            cycle = " -> ".join((*chain[chain.index(target) :], target))
            refusal = f"include cycle: {cycle}; no file may include itself, directly or through others"
        elif target is not None and len(chain) > lmeval.MAX_INCLUDE_DEPTH:
            refusal = f"includes nested deeper than {lmeval.MAX_INCLUDE_DEPTH} files"
        elif target is not None:
            walk.visits += 1
            if walk.visits > lmeval.MAX_INCLUDE_VISITS:
                refusal = f"the task includes more than {lmeval.MAX_INCLUDE_VISITS} files, repeats counted"
        if refusal is not None:
            walk.refuse(document.problem(where, refusal, _LAYER))
            return None
        return target

    def _module(self, rel: str, document: YamlDocument, where: JsonPath, ref: lmeval.FunctionRef, walk: _Walk) -> None:
        """Depend on the Python file ``ref`` names, relative to the file it is written in."""
        parts = ref.module.split(".") if ref.module else []
        if not parts or not all(part.isidentifier() for part in parts) or not ref.name.isidentifier():
            why = "does not name a function as module.function (e.g. utils.process_docs)"
            walk.refuse(document.problem(where, f"!function {ref.raw!r} {why}", _LAYER))
            return
        names = dict.fromkeys(["/".join(parts) + ".py", ref.module + ".py"])  # lm-eval now, lm-eval 0.4
        found = []
        for written in names:
            target, refusal = self._beside(rel, written, f"names {written}, which")
            if refusal is not None:
                walk.refuse(document.problem(where, f"!function {ref.raw!r} {refusal}", _LAYER))
                return
            if target is not None:
                found.append(target)
        if not found:
            looked = " or ".join(self._joined(rel, name) for name in names)
            why = f"names no file: looked for {looked} (an installed module cannot be frozen)"
            walk.refuse(document.problem(where, f"!function {ref.raw!r} {why}", _LAYER))
        for target in found:
            walk.depends[target] = None

    def _joined(self, rel: str, name: str) -> str:
        return posixpath.normpath(posixpath.join(posixpath.dirname(rel), name))

    def _beside(self, rel: str, name: str, what: str) -> tuple[str | None, str | None]:
        """The file ``name`` names from ``rel``'s folder; (None, why) when refused, (None, None) when none."""
        if name.startswith("/") or "\\" in name:
            return None, f"{what} is an absolute path or holds a backslash: name the file relative to this one"
        joined = self._joined(rel, name)
        if joined == ".." or joined.startswith("../"):
            return None, f"{what} leaves the drafts ({name!r} from {rel}): freezer reads only files under them"
        return (joined if joined in self._known else None), None


def as_json(value: Any) -> Any:
    """``value`` with every :class:`FunctionRef` in it as ``{"!function": "module.name"}``: plain JSON,
    so a fixture's digests, its field changes and delta.json treat a reference as the text written,
    and a changed reference as a changed field (no recursion: lm-eval configs can nest deeply)."""
    if isinstance(value, lmeval.FunctionRef):
        return value.as_json()
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, lmeval.FunctionRef):
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
