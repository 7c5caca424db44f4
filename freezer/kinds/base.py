"""What every fixture kind gives: the parsed fixtures of a set of files, located, and their problems.

A kind reads files through a :class:`Files` view (the drafts on disk, or a frozen version's bytes),
so the drafts and a frozen version are read by the same code. What it returns for each fixture is a
:class:`KindFixture`, whose :attr:`KindFixture.document` is what the rest of freezer consumes: a
:class:`~freezer.parse.document.YamlDocument` whose data is the *parsed fixture*: the task's own
fields (or the record), with freezer's ``task_id`` and ``status`` set by the suite's identity rule
(never written into the files), and for kinds whose fixture is several files, :data:`FILES_FIELD`
listing them. Every problem a kind finds names a file and, where it can, a line.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from freezer.domain import taskid
from freezer.domain.findings import JsonPath
from freezer.domain.fixturekind import FixtureKindRecord
from freezer.domain.problems import Problem
from freezer.parse.document import YamlDocument
from freezer.runtime.limits import MAX_LISTED_PROBLEMS

# The field of a parsed fixture that lists the files it is made of (relative to the drafts folder,
# which is the version folder once frozen): its digests and §Delta count each by its content.
FILES_FIELD = "files"
# The field of a parsed fixture listing what its dependency closure (freezer.kinds.closure) needs
# from outside the suite (sorted top-level module names): part of what it runs, so a change of it
# is a change of the fixture.
EXTERNAL_FIELD = "external_imports"
# How an entry of EXTERNAL_FIELD names a module of the fixture whose imports are computed at run
# time (``importlib.import_module(name)``): what the fixture runs is then unknown.
DYNAMIC_PREFIX = "dynamic:"
STATUSES = ("landed", "dropped")
# What a kind's fixtures meet when the suite gives no schema of its own: freezer's identity fields,
# and nothing else (the field groups: every other field is input, the strictest reading).
IDENTITY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["task_id", "status"],
    "properties": {
        "task_id": {"type": "string", "x-freezer-group": "identity"},
        "status": {"enum": list(STATUSES), "x-freezer-group": "identity"},
    },
}


class Unreadable(Exception):
    """A file of a fixture that cannot be read (raised by :attr:`Files.read`); the text is for the user."""


class Files(NamedTuple):
    """The files a kind reads: their paths ('/'-separated, relative to the drafts or version folder),
    how to read one (raising :class:`Unreadable`), and how to name one in a problem. ``read`` takes the
    bound the kind parses that file under (:mod:`freezer.runtime.limits`): a file over it on disk is
    refused by its size, before a byte of it is read."""

    paths: Sequence[str]
    read: Callable[[str, int], bytes]
    display: Callable[[str], str] = str
    # The suite's other files (its assets), which ``read`` reads too: what a fixture depends on
    # without being one (an lm-eval task's included template, its utils.py).
    others: Sequence[str] = ()
    # Files of the drafts refused before a kind reads them (a link, a FIFO, a device), each already
    # reported: a kind says nothing more of them (not that they are missing).
    refused: frozenset[str] = frozenset()

    def bytes_of(self, rel: str, limit: int) -> bytes | Problem:
        try:
            return self.read(rel, limit)
        except Unreadable as exc:
            return Problem(self.display(rel), None, None, (), f"cannot be read: {exc}", "file")


class LocatedDocument(YamlDocument):
    """A parsed fixture located in the document it was read from: ``prefix`` is where the fixture
    sits in it (a record's index), ``aliases`` where freezer's own fields were found (``task_id`` at
    the field that named it)."""

    def __init__(
        self,
        display: str,
        data: Any,
        parent: YamlDocument,
        prefix: JsonPath = (),
        aliases: Mapping[str, JsonPath] | None = None,
    ) -> None:
        super().__init__(display, data)
        self.parent = parent
        self.prefix = prefix
        self.aliases = dict(aliases or {})

    def locate(self, path: JsonPath) -> tuple[int | None, int | None]:
        if path and isinstance(path[0], str) and path[0] in self.aliases:
            path = (*self.aliases[path[0]], *path[1:])
        return self.parent.locate((*self.prefix, *path))


class KindFixture(NamedTuple):
    """One fixture of a kind: its identity, the files it is made of, its own fields (the task file's,
    or the record: what a suite's own schema is applied to) and its parsed form."""

    task_id: str
    status: str
    files: tuple[str, ...]
    fields: dict[str, Any]
    document: YamlDocument  # .data: the parsed fixture (fields + task_id + status [+ files])

    @property
    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = self.document.data
        return data


class ListedProblems:
    """One file's problems as every fixture reader reports them: the first MAX_LISTED_PROBLEMS
    listed, the rest counted in one last problem placed at the first of them."""

    def __init__(self) -> None:
        self.listed: list[Problem] = []
        self.unlisted = 0
        self._first: Problem | None = None

    def add(self, problem: Problem) -> None:
        if len(self.listed) < MAX_LISTED_PROBLEMS:
            self.listed.append(problem)
            return
        self.unlisted += 1
        self._first = self._first or problem

    def done(self) -> list[Problem]:
        if self._first is None:
            return self.listed
        first = self._first
        message = f"{self.unlisted:,} more problem(s) in this file, not listed, the first here (fix those above first)"
        if self.unlisted == 1:
            return [*self.listed, first]
        return [*self.listed, Problem(first.file, first.line, first.col, (), message, first.layer)]


class KindRead:
    """What :meth:`Kind.read` gives: the fixtures among the files, and every problem found reading them."""

    def __init__(self) -> None:
        self.fixtures: list[KindFixture] = []
        self.problems: list[Problem] = []
        # Ids in the suite's ``dropped`` list that name no fixture (validate reports them at the config).
        self.unknown_dropped: list[str] = []


class Kind(Protocol):
    """A fixture kind, built from the record a manifest or freezer.yaml holds: everything freezer
    needs to know of a fixture's files, fields and dependencies is asked of it."""

    record: FixtureKindRecord

    def claims(self, rel: str) -> bool:
        """Whether a file of the drafts (path relative to the drafts folder) is part of a fixture."""
        ...

    def claims_draft(self, rel: str, path: Path) -> bool:
        """:meth:`claims`, for a file of the drafts that is at ``path``: a kind may decline a file
        its glob names by what the file holds (an lm-eval group file is not a task)."""
        ...

    def read(self, files: Files) -> KindRead:
        """The fixtures among ``files`` (all of them claimed), with every problem found."""
        ...

    @property
    def file_fields(self) -> tuple[str, ...]:
        """Fields of a parsed fixture that list files counted by their content (digests, §Delta)."""
        ...

    @property
    def asset_fields(self) -> tuple[str, ...]:
        """Fields of a parsed fixture whose entries must name assets of the drafts (validate checks
        each names one): freezer's ``assets`` and ``graders``; none where the fields are the
        benchmark's own (a task's own ``assets`` field is not freezer's)."""
        ...

    def assets_read(self, assets: Sequence[str]) -> list[str]:
        """The assets (of a version's ``assets``) that reading its fixtures needs too, so a reader of
        a frozen version reads them with the fixtures: every one for an lm-eval task (it merges the
        template it includes), the Python ones for a YAML fixture (its closure), none for the others."""
        ...

    @property
    def owned_groups(self) -> Mapping[str, str]:
        """freezer's own fields of a parsed fixture, each with the field group it counts in: a suite
        schema cannot place one elsewhere (validate refuses it), or a changed file could read as cosmetic."""
        ...

    def close(self, documents: Iterable[YamlDocument], files: Files) -> list[Problem]:
        """Give each parsed fixture of ``documents`` (read without the kind, as validate reads a
        fixture file standing alone) its dependency closure over ``files``; the problems found.
        A kind that reads its fixtures itself closes them in :meth:`read`."""
        ...

    @property
    def follows_closure(self) -> bool:
        """Whether the kind's fixtures depend on more than the files they name under the closure
        rules (:mod:`freezer.kinds.closure`): what they import, a group's overrides."""
        ...

    @property
    def files_stand_alone(self) -> bool:
        """Whether each fixture file is a whole fixture, checked alone against the suite's schema
        (validate checks such files one by one, and a file can be named alone); otherwise a file
        is a part of a fixture, which only the kind reads, with the suite's whole drafts."""
        ...

    @property
    def scaffolded(self) -> bool:
        """Whether ``freezer init`` writes this kind's fixtures (an example, ``TODO(freezer`` lines),
        so a cut refuses fixture files still holding the scaffold; a benchmark's own bytes are not."""
        ...

    @property
    def made_of_files(self) -> bool:
        """Whether a fixture is made of the benchmark's files: each frozen with its git mode (a task
        folder's executable script) and counted by its content through the kind's file fields. A
        YAML fixture is one document of freezer's: its mode was never frozen, and its file fields
        name assets alone."""
        ...

    def canary_files(self, fixture_files: Sequence[str]) -> list[str]:
        """The fixture files that must carry a suite's canary."""
        ...

    @property
    def task_id_rule(self) -> str:
        """How a fixture of this kind is named, for a message saying a name matches none."""
        ...

    def other_names(self, fixture: Mapping[str, Any]) -> list[str]:
        """The names a harness may record a (parsed) fixture by besides its task id (a Harbor task: its folder's)."""
        ...

    def builtin_schema(self, suite_kind: str) -> dict[str, Any]:
        """The fixture schema of a suite of this kind that gives none of its own (``suite_kind``:
        the suite's ``kind:`` in freezer.yaml, as a manifest's ``fixture_schema`` records it)."""
        ...


# A problem of a suite's freezer.yaml entry: the key it is at, and the message.
ConfigProblem = tuple[str, str]


class KindClass(Protocol):
    """A kind as the catalog registers it: built from a record, and able to say what a suite's
    freezer.yaml entry must hold for it before any record exists."""

    def __call__(self, record: FixtureKindRecord) -> Kind: ...

    def config_problems(self, kind: str, raw: Mapping[str, Any]) -> list[ConfigProblem]:
        """What the suite's keys (``raw``) lack or hold wrongly for a suite of this kind (named ``kind``)."""
        ...


class BenchmarkKind:
    """What the kinds reading a benchmark's own files share: the fields are the benchmark's, so
    freezer checks its identity rule alone (:data:`IDENTITY_SCHEMA`), names no assets in them,
    a fixture is made of its files, and wants the canary in every fixture file."""

    record: FixtureKindRecord
    asset_fields: tuple[str, ...] = ()
    reads_assets = False
    follows_closure = False
    files_stand_alone = False
    scaffolded = False
    made_of_files = True

    task_id_rule = "the task id"
    # What a glob of this kind looks like, for the message asking for one.
    glob_example = '"instances/*.jsonl"'
    glob_names = "its fixture files"

    def canary_files(self, fixture_files: Sequence[str]) -> list[str]:
        return list(fixture_files)

    def claims(self, rel: str) -> bool:
        raise NotImplementedError  # each kind's own

    def claims_draft(self, rel: str, path: Path) -> bool:
        return self.claims(rel)

    def assets_read(self, assets: Sequence[str]) -> list[str]:
        return list(assets) if self.reads_assets else []

    @property
    def file_fields(self) -> tuple[str, ...]:
        return (FILES_FIELD,)

    @property
    def owned_groups(self) -> Mapping[str, str]:
        """The identity fields, and the files a fixture is made of (input)."""
        return {"task_id": "identity", "status": "identity", **dict.fromkeys(self.file_fields, "input")}

    def close(self, documents: Iterable[YamlDocument], files: Files) -> list[Problem]:
        return []

    def builtin_schema(self, suite_kind: str) -> dict[str, Any]:
        return dict(IDENTITY_SCHEMA)

    def other_names(self, fixture: Mapping[str, Any]) -> list[str]:
        return []

    @classmethod
    def config_problems(cls, kind: str, raw: Mapping[str, Any]) -> list[ConfigProblem]:
        """A glob naming the fixtures, its shape (:meth:`glob_problems`), the kind's own keys
        (:meth:`key_problems`), and dropped fixtures named one way."""
        glob = raw.get("fixtures")
        found: list[ConfigProblem] = []
        if not glob:
            found.append(
                (
                    "kind",
                    f"kind {kind} needs a fixtures glob naming {cls.glob_names} (e.g. fixtures: {cls.glob_example})",
                )
            )
        else:
            found.extend(cls.glob_problems(glob))
        found.extend(cls.key_problems(raw))
        if "status_field" in raw and "dropped" in raw:
            found.append(("dropped", "name the dropped fixtures one way: a status_field, or a dropped list, not both"))
        return found

    @classmethod
    def glob_problems(cls, glob: str) -> list[ConfigProblem]:
        return []

    @classmethod
    def key_problems(cls, raw: Mapping[str, Any]) -> list[ConfigProblem]:
        return []


def identify(
    record: FixtureKindRecord,
    fields: Any,
    parent: YamlDocument,
    prefix: JsonPath,
    default_id: str | None,
    reserved: tuple[str, ...] = (),
) -> tuple[str, str, dict[str, Any], dict[str, JsonPath]] | Problem:
    """Task id, status, the parsed fixture and where its identity was found; or why not (located)."""
    here = (*prefix,)
    if not isinstance(fields, dict):
        return parent.problem(here, "is not a mapping of fields; each fixture's fields are a table or object", "kind")
    aliases: dict[str, JsonPath] = {}
    if record.task_id is not None:
        if record.task_id not in fields:
            return parent.problem(here, f"has no {record.task_id!r} field, which names the fixture (task_id)", "kind")
        value = fields[record.task_id]
        aliases["task_id"] = (record.task_id,)
    else:
        value = default_id
        aliases["task_id"] = ()
    # The benchmark's own id, as it is (taskid.accept: printable, bounded; an integer as its digits).
    accepted = taskid.accept(value)
    if isinstance(accepted, taskid.Refused):
        where = (*here, *aliases["task_id"])
        return parent.problem(where, f"the task id {taskid.shown(value)} cannot be used: {accepted.why}", "kind")
    value = accepted
    status = "dropped" if value in record.dropped else "landed"
    if record.status_field is not None and record.status_field in fields:
        status = fields[record.status_field]
        aliases["status"] = (record.status_field,)
        if status not in STATUSES:
            where = (*here, record.status_field)
            return parent.problem(where, f"status {status!r} is neither 'landed' nor 'dropped'", "kind")
    for key, mine in (("task_id", value), ("status", status)):
        # A task id field holding the integer 7 agrees with the id "7" it names.
        own = taskid.accept(fields[key]) if key == "task_id" and key in fields else fields.get(key)
        if key in fields and own != mine:
            why = (
                f"its own {key!r} field ({taskid.shown(fields[key])}) disagrees with the one the suite's rule "
                f"gives ({mine!r}); "
                f"freezer reads {key} from the suite's rule (task_id: / status_field: in freezer.yaml)"
            )
            return parent.problem((*here, key), why, "kind")
    for key in reserved:
        if key in fields:
            return parent.problem(
                (*here, key), f"a field named {key!r} is freezer's own for this kind; rename it", "kind"
            )
    parsed = {**fields, "task_id": value, "status": status}
    return value, status, parsed, aliases
