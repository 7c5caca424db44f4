"""Kind ``folders``: each folder the ``fixtures`` glob names is one fixture, with every file in it.

The glob ends in ``/`` (``tasks/*/``): it is matched, by git's pathspec rules
(:mod:`freezer.git.globs`), against each folder a file lies in, the outermost folder matched being
the fixture's. The fixture's fields are those of its task file (``task_file:``, TOML, YAML or JSON
by suffix); its task id is the folder's name, or the task file's ``task_id:`` field when the suite
names one. Its parsed form holds the task file's fields and lists every other file of the folder
(:data:`~freezer.kinds.base.FILES_FIELD`), each counted by its content: an edit of any of them (an
instruction, a test script) or of a task field changes the fixture; a comment in the task file does
not, as a comment in a YAML fixture does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from freezer.domain.fixturekind import FixtureKindRecord
from freezer.domain.problems import Problem
from freezer.git.globs import compile_glob
from freezer.kinds import taskfile
from freezer.kinds.base import (
    FILES_FIELD,
    BenchmarkKind,
    ConfigProblem,
    Files,
    KindFixture,
    KindRead,
    LocatedDocument,
    identify,
)
from freezer.runtime.limits import MAX_DOCUMENT_BYTES


class FoldersKind(BenchmarkKind):
    def __init__(self, record: FixtureKindRecord) -> None:
        self.record = record
        self._glob = compile_glob(record.fixtures)
        self._task_file = record.task_file or ""
        self._folders: dict[str, str | None] = {}  # folder → the fixture folder it lies in, or None

    @property
    def file_fields(self) -> tuple[str, ...]:
        return (FILES_FIELD,)

    def folder_of(self, rel: str) -> str | None:
        """The fixture folder (ending in '/') that holds ``rel``, or None."""
        cut = rel.rfind("/")
        if cut == -1:
            return None
        parent = rel[: cut + 1]
        if parent not in self._folders:
            found = None
            at = parent.find("/")
            while at != -1:
                if self._glob.matches(parent[: at + 1]):
                    found = parent[: at + 1]
                    break
                at = parent.find("/", at + 1)
            self._folders[parent] = found
        return self._folders[parent]

    def claims(self, rel: str) -> bool:
        return self.folder_of(rel) is not None

    glob_example = '"tasks/*/"'
    task_id_rule = "the task folder's name or the task file's task id field"

    def other_names(self, fixture: Mapping[str, Any]) -> list[str]:
        """The folder holding every file of the fixture (its parsed ``files``), by its name: what
        Harbor names a task by."""
        files = fixture.get(FILES_FIELD)
        if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
            return []
        parts = [f.split("/")[:-1] for f in files]
        common = parts[0]
        for other in parts[1:]:
            n = 0
            while n < min(len(common), len(other)) and common[n] == other[n]:
                n += 1
            common = common[:n]
        return [common[-1]] if common else []

    @classmethod
    def glob_problems(cls, glob: str) -> list[ConfigProblem]:
        if glob.endswith("/"):
            return []
        return [
            ("fixtures", f"kind folders names folders: end the glob in '/' (e.g. {glob.rstrip('/*') or 'tasks'}/*/)")
        ]

    @classmethod
    def key_problems(cls, raw: Mapping[str, Any]) -> list[ConfigProblem]:
        if raw.get("task_file"):
            return []
        return [
            ("kind", "kind folders needs task_file: the file in each fixture folder holding its fields (task.toml)")
        ]

    def canary_files(self, fixture_files: Sequence[str]) -> list[str]:
        """Each folder's task file (an image or a script need not carry the canary)."""
        return [rel for rel in fixture_files if self.task_file_of(rel)]

    def task_file_of(self, rel: str) -> bool:
        """Whether ``rel`` is the task file of the fixture folder it lies in."""
        folder = self.folder_of(rel)
        return folder is not None and rel == folder + self._task_file

    def read(self, files: Files) -> KindRead:
        found = KindRead()
        by_folder: dict[str, list[str]] = {}
        for rel in sorted(files.paths):
            folder = self.folder_of(rel)
            if folder is not None:
                by_folder.setdefault(folder, []).append(rel)
        for folder, members in by_folder.items():
            task_file = folder + self._task_file
            if task_file in files.refused:  # reported where it was refused (a link, a FIFO)
                continue
            if task_file not in members:
                message = (
                    f"a fixture folder without its task file {self._task_file}: every folder the fixtures glob "
                    f"{self.record.fixtures!r} names holds one (add it, or move the folder out of the glob)"
                )
                found.problems.append(Problem(files.display(folder.rstrip("/")), None, None, (), message, "kind"))
                continue
            display = files.display(task_file)
            raw = files.bytes_of(task_file, MAX_DOCUMENT_BYTES)
            if isinstance(raw, Problem):
                found.problems.append(raw)
                continue
            document, problems = taskfile.load(raw, display, task_file)
            found.problems.extend(problems)
            if document is None:
                continue
            name = folder.rstrip("/").rsplit("/", 1)[-1]
            identity = identify(self.record, document.data, document, (), name, reserved=(FILES_FIELD,))
            if isinstance(identity, Problem):
                found.problems.append(identity)
                continue
            task_id, status, parsed, aliases = identity
            # The task file counts by its parsed fields (a comment or the layout of it changes no
            # digest, as with a YAML fixture); every other file of the folder by its content.
            parsed[FILES_FIELD] = [rel for rel in members if rel != task_file]
            located = LocatedDocument(display, parsed, document, (), aliases)
            found.fixtures.append(KindFixture(task_id, status, tuple(members), document.data, located))
        return found
