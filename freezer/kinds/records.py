"""Kind ``records``: each record of the files the ``fixtures`` glob names is one fixture.

A file holds records as JSON Lines (``.jsonl``: one strict JSON object a line; blank lines are
skipped), a JSON array (``.json``) or a YAML list (``.yaml``, ``.yml``). A record's task id is its
``task_id:`` field (``instance_id`` for SWE-bench). A fixture's parsed form is its record alone,
not the file holding it: an edit of one record changes that fixture and no other.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any

from freezer.domain.findings import JsonPath
from freezer.domain.fixturekind import FixtureKindRecord
from freezer.domain.problems import Problem
from freezer.git.globs import compile_glob
from freezer.kinds import taskfile
from freezer.kinds.base import (
    BenchmarkKind,
    ConfigProblem,
    Files,
    KindFixture,
    KindRead,
    ListedProblems,
    LocatedDocument,
    identify,
)
from freezer.parse.document import YamlDocument
from freezer.parse.yamllocate import YAML_SUFFIXES, Limits
from freezer.runtime.limits import MAX_RECORD_BYTES, MAX_WHOLE_FILE_BYTES

# A records file is a list of records, not one document of fields: bounded as a whole file is.
_RECORDS_FILE = Limits(max_bytes=MAX_WHOLE_FILE_BYTES)

JSONL_SUFFIXES = (".jsonl",)
# A file in UTF-16 or UTF-32 splits at bytes that are half a character: one problem for the file,
# not one per line (longest marks first: UTF-32-LE starts with UTF-16-LE's).
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class _LineDocument(YamlDocument):
    """One line of a JSON Lines file: every value is on that line, at the column the walk finds."""

    def __init__(self, display: str, data: Any, line: int, text: str) -> None:
        super().__init__(display, data)
        self.line, self.text = line, text

    def locate(self, path: JsonPath) -> tuple[int | None, int | None]:
        from freezer.parse import strictjson  # start-up time: see _lines

        return self.line, strictjson.value_column(self.text, path) if path else 1


class RecordsKind(BenchmarkKind):
    task_id_rule = "the record's task id field"

    @classmethod
    def glob_problems(cls, glob: str) -> list[ConfigProblem]:
        if not glob.endswith("/"):
            return []
        return [("fixtures", "kind records names the files holding the records: a glob ending in '/' names folders")]

    @classmethod
    def key_problems(cls, raw: Mapping[str, Any]) -> list[ConfigProblem]:
        found: list[ConfigProblem] = []
        if "task_file" in raw:
            found.append(("task_file", "kind records has no task file: each record holds its fields"))
        if not raw.get("task_id"):
            found.append(
                ("kind", "kind records needs task_id: the field of each record naming it (e.g. task_id: instance_id)")
            )
        return found

    def __init__(self, record: FixtureKindRecord) -> None:
        self.record = record
        self._glob = compile_glob(record.fixtures)

    @property
    def file_fields(self) -> tuple[str, ...]:
        return ()

    def claims(self, rel: str) -> bool:
        return self._glob.matches(rel)

    def read(self, files: Files) -> KindRead:
        found = KindRead()
        for rel in sorted(files.paths):
            display = files.display(rel)
            raw = files.bytes_of(rel, MAX_WHOLE_FILE_BYTES)
            listed = ListedProblems()
            located: list[tuple[YamlDocument, JsonPath]] = []
            if isinstance(raw, Problem):
                listed.add(raw)
            elif rel.endswith(JSONL_SUFFIXES):
                located = _lines(raw, display, listed)
            elif rel.endswith((*taskfile.JSON_SUFFIXES, *YAML_SUFFIXES)):
                located = _list(raw, display, rel, listed)
            else:
                message = "records are read from .jsonl, .json and .yaml/.yml files; this one has another suffix"
                listed.add(Problem(display, None, None, (), message, "file"))
            for document, prefix in located:
                fields = document.data if not prefix else document.data[prefix[0]]
                identity = identify(self.record, fields, document, prefix, None)
                if isinstance(identity, Problem):
                    listed.add(identity)
                    continue
                task_id, status, parsed, aliases = identity
                fixture = LocatedDocument(display, parsed, document, prefix, aliases)
                found.fixtures.append(KindFixture(task_id, status, (rel,), fields, fixture))
            found.problems.extend(listed.done())
        return found


def _lines(raw: bytes, display: str, listed: ListedProblems) -> list[tuple[YamlDocument, JsonPath]]:
    # start-up time: strict JSON is for records suites; the catalog, which every command loads
    # (validate and check as pre-commit hooks among them), imports this kind
    from freezer.parse import strictjson

    found: list[tuple[YamlDocument, JsonPath]] = []
    wide = next((name for bom, name in _WIDE_BOMS if raw.startswith(bom)), None)
    if wide is not None:
        message = f"is {wide} (it starts with a {wide} byte-order mark): JSON Lines is UTF-8; save the file as UTF-8"
        listed.add(Problem(display, None, None, (), message, "json"))
        return []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        line = line.removesuffix(b"\r")
        if not line.strip():
            continue
        if len(line) > MAX_RECORD_BYTES:
            message = f"the line is {len(line):,} bytes, over the {MAX_RECORD_BYTES:,}-byte limit of one record"
            listed.add(Problem(display, number, 1, (), message, "json"))
            continue
        try:
            value = strictjson.parse_line(line)
        except strictjson.LineRefused as exc:
            listed.add(Problem(display, number, exc.col, exc.path, exc.message, "json"))
            continue
        found.append((_LineDocument(display, value, number, line.decode("utf-8")), ()))
    return found


def _list(raw: bytes, display: str, rel: str, listed: ListedProblems) -> list[tuple[YamlDocument, JsonPath]]:
    document, problems = taskfile.load(raw, display, rel, _RECORDS_FILE)
    for problem in problems:
        listed.add(problem)
    if document is None:
        return []
    if not isinstance(document.data, list):
        listed.add(document.problem((), "holds no list of records: a .json or .yaml records file is a list", "kind"))
        return []
    return [(document, (index,)) for index in range(len(document.data))]
