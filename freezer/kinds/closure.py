"""A fixture's dependency closure: the files it names, plus what those files pull in when it runs.

Every kind asks this one module (over the same :class:`~freezer.kinds.base.Files` view it reads its
fixtures through, so the drafts and a frozen version give the same closure). What a Python file of
the suite pulls in is its static imports (:mod:`freezer.parse.pyimports`: parsed, never imported
or run), followed file by file through the suite; an import no file of the suite answers is kept by
name as an external dependency, and a module that cannot be read or parsed is kept as one too
(``unparsed:<path>``): what it imports is unknown, which is not the same as nothing. So is a
module that imports a module named at run time (``importlib.import_module(name)``), kept as
``dynamic:<path>``; a call naming a literal module is followed like an import statement.

A compose file a fixture names (:mod:`freezer.parse.compose`) pulls in the Dockerfile each of its
services builds (``Dockerfile-cuda`` as much as ``Dockerfile``), when that file is one of the suite's
and its name says it is a Dockerfile (:func:`freezer.parse.compose.may_be_built`).

Which rules apply is the version's (:data:`freezer.domain.fixturekind.CLOSURE_RULES`): a version cut
before the closure is read as it was cut, its fixtures depending on the files they name alone.
"""

from collections.abc import Iterable
from typing import NamedTuple

from freezer.domain.fixturekind import COMPOSE_BUILDS_SINCE, IMPORT_CALLS_SINCE
from freezer.kinds.base import DYNAMIC_PREFIX, Files
from freezer.parse import pyimports
from freezer.parse.compose import compose_dockerfiles, is_compose, may_be_built
from freezer.runtime.limits import MAX_DOCUMENT_BYTES


class Closure(NamedTuple):
    """What a fixture's named files pull in: more files of the suite, and external dependencies."""

    files: tuple[str, ...] = ()
    external: tuple[str, ...] = ()


class Closures:
    """Closures over one view of a suite's files; each module is parsed once, however many fixtures
    reach it (sixty lm-eval tasks naming one ``utils.py``)."""

    def __init__(self, files: Files, rules: int) -> None:
        self.files = files
        self.rules = rules  # the closure rules (freezer.domain.fixturekind.CLOSURE_RULES) of the version
        self._known = {*files.paths, *files.others} - files.refused
        self._edges: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def of(self, named: Iterable[str]) -> Closure:
        """What the files ``named`` pull in, beyond themselves (sorted)."""
        start = list(dict.fromkeys(named))
        seen = set(start)
        stack = [rel for rel in start if rel.endswith(pyimports.PYTHON_SUFFIX)]
        reached: list[str] = []
        external: set[str] = set()
        if self.rules >= COMPOSE_BUILDS_SINCE:
            for built in (path for rel in start if is_compose(rel) for path in self._builds_of(rel)):
                if built not in seen:
                    seen.add(built)
                    reached.append(built)
        while stack:
            targets, outside = self._imports_of(stack.pop())
            external.update(outside)
            for target in targets:
                if target not in seen:
                    seen.add(target)
                    reached.append(target)
                    stack.append(target)
        return Closure(tuple(sorted(reached)), tuple(sorted(external)))

    def _imports_of(self, rel: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The suite's files ``rel`` imports directly, and its external dependencies."""
        if rel not in self._edges:
            self._edges[rel] = self._read_imports(rel)
        return self._edges[rel]

    def _read_imports(self, rel: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        raw = self.files.bytes_of(rel, MAX_DOCUMENT_BYTES) if rel in self._known else None
        written = pyimports.imports(raw) if isinstance(raw, bytes) else None
        if written is None:
            return (), (f"unparsed:{rel}",)
        targets: list[str] = []
        external: list[str] = []
        for imported in written:
            if imported.call and self.rules < IMPORT_CALLS_SINCE:
                continue  # a version cut before import calls were read keeps its closure as cut
            if imported.at_run_time:
                external.append(f"{DYNAMIC_PREFIX}{rel}")  # unknown, which is not the same as nothing
                continue
            resolved = pyimports.resolve(rel, imported, self._known.__contains__)
            targets.extend(resolved.files)
            if resolved.external is not None:
                external.append(resolved.external)
        return tuple(dict.fromkeys(targets)), tuple(dict.fromkeys(external))

    def _builds_of(self, rel: str) -> list[str]:
        """The suite's files a compose file's services build (one outside the suite, or a remote
        context, is no file of it: its images are unknown, :mod:`freezer.resolve.images` says why)."""
        raw = self.files.bytes_of(rel, MAX_DOCUMENT_BYTES) if rel in self._known else None
        if not isinstance(raw, bytes):
            return []
        return [path for path in compose_dockerfiles(rel, raw) if path in self._known and may_be_built(path)]
