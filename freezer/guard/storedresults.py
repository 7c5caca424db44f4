"""Results stored in the registry, and their guard: ``results/<suite>_vN/<run id>.jsonl``.

A stored run lives beside its version, never inside ``versions/<suite>_vN/``: that folder is frozen
and hashed whole at the cut, and scores arrive after it. The file is JSON Lines. Line 1 is the
header: the version (by name and manifest sha256), the arm, the harness and its version, the
model, the metric, the source files by name and sha256, the row count, and a digest over the
header and every row's digest. Each next line is one result row (schemas/results.schema.json;
the header is not one, so ``results check`` refuses the file at line 1) with its own
``row_sha256`` written first, so a hand edit is named at its line. The file is named by the
first 16 hex digits of its sources' sha256: a second add of the same files finds it, and a header
whose source hash was edited no longer matches its name.

Stored runs are append-only: ``check`` refuses a change that modifies or deletes one and verifies
each one its change adds; ``audit`` verifies every one, against its version as frozen: a row for a
fixture the version does not have, or whose fixture digest the version contradicts, fails.
"""

import hashlib
import re
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import NamedTuple

from freezer.domain.canonical import compact
from freezer.domain.errors import FreezerError
from freezer.domain.escape import quoted
from freezer.domain.findings import JsonPath
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import Problem, display_path
from freezer.git.registrygit import BaseTree, Change
from freezer.registry import registry
from freezer.registry.config import RegistryConfig
from freezer.registry.model import Registry
from freezer.runtime.limits import MAX_RESULT_PROBLEMS
from freezer.runtime.paths import unsafe_folder_reason

STORE_FORMAT = 1
_ID_LENGTH = 16
_FILE_NAME = re.compile(rf"[0-9a-f]{{{_ID_LENGTH}}}\.jsonl")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_LAYER = "stored-results"


class SourceFile(NamedTuple):
    """One file a stored run was imported from: its name as given (never a path outside it) and sha256."""

    name: str
    sha256: str

    def to_json(self) -> JsonObject:
        return {"name": self.name, "sha256": self.sha256}


class StoredRow(NamedTuple):
    """One stored score: a result row of the run's version and arm."""

    task_id: str
    score: float
    run: str
    fixture_digest: str
    harness_hash: str | None = None


class StoredRun(NamedTuple):
    """One imported run as the registry keeps it."""

    version: str
    manifest_sha256: str
    arm: str
    harness: str
    harness_version: str | None  # None: not recorded
    model: str | None  # None: not recorded
    metric: str | None  # None: the harness's default score
    sources: tuple[SourceFile, ...]
    rows: tuple[StoredRow, ...]

    @property
    def source_sha256(self) -> str:
        return sources_sha256(self.sources)

    @property
    def run_id(self) -> str:
        return self.source_sha256[:_ID_LENGTH]

    def relative_path(self) -> str:
        return f"{registry.RESULTS_FOLDER}/{self.version}/{self.run_id}.jsonl"

    def row_json(self, row: StoredRow) -> JsonObject:
        """A stored row as the result row it is (the header's fields in it)."""
        # start-up time: the row schema serves a run that is written or read row by row; check (the
        # pre-commit hook) reads no row of the runs the base already holds
        from freezer.schema.resultrow import ResultRow

        return ResultRow(self.manifest_sha256, row.task_id, self.arm, row.score, row.run, row.fixture_digest,
                         self.harness, row.harness_hash).to_json()  # fmt: skip

    def file_bytes(self) -> bytes:
        """The stored file: the header line, then one line per row."""
        lines = [row_line(self.row_json(row)) for row in self.rows]
        header: JsonObject = {
            "freezer_stored_results": STORE_FORMAT,
            "version": self.version,
            "manifest_sha256": self.manifest_sha256,
            "arm": self.arm,
            "harness": self.harness,
            "harness_version": self.harness_version,
            "model": self.model,
            "metric": self.metric,
            "sources": [s.to_json() for s in self.sources],
            "source_sha256": self.source_sha256,
            "rows": len(self.rows),
        }
        header["digest"] = record_digest(header, (line[_DIGEST_AT:_DIGEST_END].decode("ascii") for line in lines))
        return b"".join(line + b"\n" for line in [compact(header), *lines])


def sources_sha256(sources: Collection[SourceFile]) -> str:
    """The sha256 that names a run's sources: the file's own for one file, else over every (name, sha256)."""
    if len(sources) == 1:
        [one] = sources
        return one.sha256
    listed = sorted([s.name, s.sha256] for s in sources)
    return hashlib.sha256(compact(listed)).hexdigest()


_ROW_START = b'{"row_sha256":"'
_DIGEST_AT = len(_ROW_START)
_DIGEST_END = _DIGEST_AT + 64
_BODY_AT = _DIGEST_END + len(b'",')


def row_line(row: JsonObject) -> bytes:
    """A stored row's line: ``row_sha256``, the sha256 of the row's canonical JSON, written first, then
    the row as that JSON. So the digest is checked on the line's own bytes, never by encoding the row
    again (a third of the time of a verification, measured on 10^5 rows)."""
    body = compact(row)
    return _ROW_START + hashlib.sha256(body).hexdigest().encode("ascii") + b'",' + body[1:]


def claimed_and_actual(line: bytes) -> tuple[str, str] | None:
    """The ``row_sha256`` a stored line claims and the sha256 of the row it holds; None when the line
    does not start with its digest, as :func:`row_line` writes it."""
    if not line.startswith(_ROW_START) or line[_DIGEST_END:_BODY_AT] != b'",':
        return None
    claimed = line[_DIGEST_AT:_DIGEST_END].decode("ascii", "replace")
    return claimed, hashlib.sha256(b"{" + line[_BODY_AT:]).hexdigest()


def record_digest(header: JsonObject, row_digests: Iterator[str]) -> str:
    """The digest over the header (without it) and each row's ``row_sha256``, in order: no row may be
    dropped, added, moved or edited, and no header field changed, without it changing."""
    digest = hashlib.sha256(compact({k: v for k, v in header.items() if k != "digest"}))
    for one in row_digests:
        digest.update(one.encode("ascii"))
    return digest.hexdigest()


class _Version(NamedTuple):
    """What a stored file is checked against: its version as frozen, read once."""

    frozen: registry.FrozenVersion
    manifest_sha256: str
    arms: frozenset[str]
    digests: dict[str, str]  # landed task id → score digest


class _Found:
    """The problems found, the first :data:`MAX_RESULT_PROBLEMS` kept."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.not_shown = 0

    def add(self, file: str, line: int | None, where: JsonPath, message: str) -> None:
        if len(self.problems) < MAX_RESULT_PROBLEMS:
            self.problems.append(Problem(file, line, None, where, message, _LAYER))
        else:
            self.not_shown += 1


def in_base(tree: BaseTree) -> set[str]:
    """Every stored file the base holds, by its path from the registry root."""
    return {
        f"{registry.RESULTS_FOLDER}/{version}/{name}"
        for version in tree.names(registry.RESULTS_FOLDER)
        for name in tree.names(f"{registry.RESULTS_FOLDER}/{version}")
    }


def append_only(changes: list[Change], root: Path) -> list[Problem]:
    """A change may add stored runs, never modify, retype or delete one the base holds (``changes``:
    the base's differences under ``results/``)."""
    problems = []
    for change in changes:
        if change.status == "A":
            continue
        verb = {"D": "deleted", "M": "modified"}.get(change.status, "changed")
        problems.append(
            Problem(
                display_path(root / change.path),
                None if change.status == "D" else 1,
                None,
                (),
                f"stored results {verb}: a stored run is append-only; restore it (add a new run instead)",
                _LAYER,
            )
        )
    return problems


def stored_files(root: Path) -> list[Path]:
    """Every entry below ``results/`` at depth two (folders and links too: the verification says what
    is wrong with each), in a stable order."""
    folder = root / registry.RESULTS_FOLDER
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(entry for version in sorted(folder.iterdir()) for entry in _entries(version))


def _entries(version: Path) -> list[Path]:
    if version.is_symlink() or not version.is_dir():
        return [version]
    return sorted(version.iterdir())


def verify(
    config: RegistryConfig, versions: Collection[str] | None = None, unchanged: Collection[str] = ()
) -> list[Problem]:
    """Every stored results file of the registry (of ``versions`` only, when given), verified against
    its version as frozen; the problems, each at its file and line. ``unchanged``: files (from the
    registry root) that a base holds as they are now, which ``check`` verified when they came in and
    leaves to ``audit``, so a check reads only what its change adds."""
    root = config.root
    folder = root / registry.RESULTS_FOLDER
    found = _Found()
    if not folder.exists() and not folder.is_symlink():
        return []
    reason = unsafe_folder_reason(root, folder)
    if reason is not None:
        found.add(display_path(folder), None, (), f"the stored results folder {reason}; it must be a real folder")
        return found.problems
    by_name = {frozen.name: frozen for _, frozen in Registry(config).every_version()}
    checked: dict[str, _Version | None] = {}
    for path in stored_files(root):
        parent = path.parent if path.parent != folder else path
        name = parent.name
        if versions is not None and name not in versions:
            continue
        if path.relative_to(root).as_posix() in unchanged:
            continue
        shown = display_path(path)
        if parent.is_symlink() or not parent.is_dir():
            found.add(shown, None, (), "is not a folder of stored results: results/<suite>_vN/ holds them; remove it")
            continue
        if name not in by_name:
            found.add(shown, None, (), f"{quoted(name)} is no frozen version of this registry; remove or move it")
            continue
        if path.is_symlink() or not path.is_file() or _FILE_NAME.fullmatch(path.name) is None:
            found.add(shown, None, (), "is not a stored results file (<16 hex digits>.jsonl, a regular file)")
            continue
        if name not in checked:
            checked[name] = _version(by_name[name], shown, found)
        version = checked[name]
        if version is not None:
            _verify_file(path, version, found)
    if found.not_shown:
        found.problems.append(
            Problem(display_path(folder), None, None, (), f"… and {found.not_shown} more problem(s)", _LAYER)
        )
    return found.problems


def _version(frozen: registry.FrozenVersion, shown: str, found: _Found) -> _Version | None:
    # start-up time: the fixture digests are computed only when a stored run is there to check,
    # so check (the pre-commit hook) on a registry without stored results never loads them
    from freezer.compare.landeddigests import score_digests

    # start-up time: the frozen-version records (with the typed manifest) likewise
    from freezer.registry.record import arms_of, read

    try:
        data = read(frozen)
        arms = frozenset(arms_of(frozen.manifest_model()))
        return _Version(frozen, frozen.manifest_sha256(), arms, score_digests(data))
    except (FreezerError, OSError, KeyError, TypeError, ValueError) as exc:
        why = exc.message if isinstance(exc, FreezerError) else "it cannot be read"
        found.add(shown, None, (), f"cannot be checked: its version {frozen.name} does not verify ({why})")
        return None


_HEADER_TEXT = ("version", "manifest_sha256", "arm", "harness", "source_sha256", "digest")
_HEADER_OPTIONAL = ("harness_version", "model", "metric")


def _header_problems(header: JsonValue) -> list[tuple[JsonPath, str]]:
    if not isinstance(header, dict):
        return [((), "line 1 must be the stored run's header (a JSON object)")]
    if header.get("freezer_stored_results") != STORE_FORMAT:
        return [(("freezer_stored_results",), f"must be {STORE_FORMAT}: not a stored run this freezer reads")]
    out: list[tuple[JsonPath, str]] = []
    for key in _HEADER_TEXT:
        if not isinstance(header.get(key), str):
            out.append(((key,), "missing, or not a string"))
    for key in _HEADER_OPTIONAL:
        if header.get(key) is not None and not isinstance(header.get(key), str):
            out.append(((key,), "must be a string or null"))
    rows = header.get("rows")
    if type(rows) is not int or rows < 0:
        out.append((("rows",), "must be the number of rows"))
    sources = header.get("sources")
    if not isinstance(sources, list) or not sources or not all(_is_source(s) for s in sources):
        out.append((("sources",), "must list each source file as {name, sha256}"))
    return out


def _is_source(value: JsonValue) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("sha256"), str)
        and _SHA256.fullmatch(str(value["sha256"])) is not None
    )


def _verify_file(path: Path, version: _Version, found: _Found) -> None:
    # start-up time: a stored run's reader serves a registry with stored results; check (the
    # pre-commit hook) on one without never loads it
    from freezer.parse import jsonlines

    shown = display_path(path)
    try:
        opened = jsonlines.open_lines(path)
    except jsonlines.FileRefused as exc:
        found.add(shown, None, (), str(exc))
        return
    try:
        _verify_lines(iter(opened), shown, path.name, version, found)
    except jsonlines.FileRefused as exc:
        found.add(shown, None, (), str(exc))
    finally:
        opened.close()


def _verify_lines(
    lines: Iterator[tuple[int, bytes | None]], shown: str, file_name: str, version: _Version, found: _Found
) -> None:
    # start-up time: a stored run's reader serves a registry with stored results; check (the
    # pre-commit hook) on one without never loads it
    from freezer.parse import strictjson

    first = next(lines, None)
    if first is None or first[1] is None:
        found.add(shown, 1, (), "holds no header: a stored run starts with its header line")
        return
    try:
        header = strictjson.parse_line(first[1])
    except strictjson.LineRefused as exc:
        found.add(shown, 1, exc.path, exc.message)
        return
    wrong = _header_problems(header)
    for where, message in wrong:
        found.add(shown, 1, where, message)
    if wrong:
        return
    name = version.frozen.name
    if header["version"] != name:
        found.add(shown, 1, ("version",), f"names {quoted(header['version'])}, but the file is stored under {name}")
    if header["manifest_sha256"] != version.manifest_sha256:
        found.add(shown, 1, ("manifest_sha256",), f"is not {name}'s manifest: these scores are of another version")
    if header["arm"] not in version.arms:
        found.add(shown, 1, ("arm",), f"{name} has no arm {quoted(header['arm'])}")
    sources = tuple(SourceFile(s["name"], s["sha256"]) for s in header["sources"])
    if sources_sha256(sources) != header["source_sha256"]:
        found.add(shown, 1, ("source_sha256",), "does not match the sha256 of the source files it lists")
    elif not file_name.startswith(header["source_sha256"][:_ID_LENGTH]):
        found.add(
            shown,
            1,
            ("source_sha256",),
            f"names sources {header['source_sha256'][:_ID_LENGTH]}…, but the file is stored as {file_name}: "
            "the source hash no longer matches the run it was stored as",
        )
    row_digests: list[str] = []
    before = len(found.problems) + found.not_shown
    seen: set[tuple[str, str]] = set()
    for number, raw in lines:
        if raw is None:
            found.add(shown, number, (), "line is over the limit for a result row")
            continue
        row_digests.append(raw[_DIGEST_AT:_DIGEST_END].decode("ascii", "replace"))
        _verify_row(raw, number, shown, header, version, seen, found)
    rows_edited = len(found.problems) + found.not_shown > before
    if len(row_digests) != header["rows"]:
        found.add(shown, 1, ("rows",), f"says {header['rows']} row(s), but the file holds {len(row_digests)}")
    elif not rows_edited and record_digest(header, iter(row_digests)) != header["digest"]:
        found.add(shown, 1, ("digest",), "does not match the header and rows: the stored run was edited")


def _verify_row(
    raw: bytes,
    number: int,
    shown: str,
    header: JsonObject,
    version: _Version,
    seen: set[tuple[str, str]],
    found: _Found,
) -> None:
    # start-up time: a stored run's reader and row schema serve a registry with stored results; check
    # (the pre-commit hook) loads them only for a run that its change adds
    from freezer.parse import strictjson
    from freezer.schema.resultrow import is_row, row_problems  # likewise

    digests = claimed_and_actual(raw)
    if digests is None:
        found.add(shown, number, ("row_sha256",), "missing: a stored row starts with its row_sha256")
        return
    if digests[0] != digests[1]:
        edited = "does not match the row: the stored row was edited after it was added"
        found.add(shown, number, ("row_sha256",), edited)
        return
    try:
        row = strictjson.parse_line(raw)
    except strictjson.LineRefused as exc:
        found.add(shown, number, exc.path, exc.message)
        return
    if not is_row(row):
        for where, message in row_problems(row):
            found.add(shown, number, where, message)
        return
    for field_name in ("manifest_sha256", "arm", "harness"):
        if row.get(field_name) != header[field_name]:
            found.add(shown, number, (field_name,), f"is not the header's {field_name} ({quoted(header[field_name])})")
    task = row["task_id"]
    digest = version.digests.get(task)
    name = version.frozen.name
    if digest is None:
        found.add(shown, number, ("task_id",), f"{quoted(task)} is not a landed fixture of {name}")
    elif row.get("fixture_digest") != digest:
        contradicted = f"is not {name}'s score digest of {quoted(task)}: its version contradicts the row"
        found.add(shown, number, ("fixture_digest",), contradicted)
    run_and_task = (str(row.get("run")), task)
    if run_and_task in seen:
        found.add(shown, number, ("task_id",), f"a second row for {quoted(task)} in run {quoted(run_and_task[0])}")
    seen.add(run_and_task)
