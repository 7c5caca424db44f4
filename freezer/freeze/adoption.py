"""``freezer init --adopt PATH``: freeze a benchmark where it stands, with a freezer.yaml read from its files.

It recognises three layouts, in this order, by what the files hold (never by a name alone):

* Harbor / Terminal-Bench task folders: folders each holding ``task.toml`` and ``instruction.md``
  (kind ``folders``, task file ``task.toml``);
* an lm-evaluation-harness task family: YAML files whose top-level ``task:`` names a task (kind
  ``lm-eval``; ``_x.yaml`` files and group files beside them are frozen as assets);
* instances files: ``.jsonl`` or ``.json`` holding JSON objects that share an id field
  (``instance_id`` for SWE-bench; kind ``records``).

The drafts are the benchmark's folder (``PATH``, or for a file, the folder holding it); the only
file freezer adds there is ``version.yaml``. Nothing of the benchmark is rewritten or moved. What
was guessed (kind, id field, globs, what the globs leave out) is said, so the author can check it.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from freezer.domain.errors import InvalidInput, UsageError
from freezer.domain.problems import display_path
from freezer.freeze.scaffold import BenchmarkLayout, InitResult, check_suite_name, init_registry
from freezer.kinds.lmeval import is_group_file
from freezer.parse.lmevalyaml import load_bytes
from freezer.parse.yamllocate import YAML_SUFFIXES
from freezer.runtime.limits import MAX_DOCUMENT_BYTES, MAX_WHOLE_FILE_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

HARBOR_FILES = ("task.toml", "instruction.md")
# The fields naming a record, most specific first: SWE-bench's, freezer's own, then a plain id.
ID_FIELDS = ("instance_id", "task_id", "id")
RECORD_SUFFIXES = (".jsonl", ".json")
_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})
_TASK_KEY = re.compile(rb"^[\"']?task[\"']?[ \t]*:", re.MULTILINE)


@dataclass
class _Tree:
    """The files and folders below the benchmark's folder (relative, '/'-separated), hidden ones left out."""

    files: list[str] = field(default_factory=list)
    folders: dict[str, set[str]] = field(default_factory=dict)  # folder → the names of its files


def _walk(top: Path) -> _Tree:
    tree = _Tree()
    start = os.fspath(top)
    for folder, dirs, names in os.walk(start):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_FOLDERS)
        # Slicing, not relpath: relpath took a third of the walk over 3,500 task folders.
        prefix = "" if folder == start else folder[len(start) :].lstrip(os.sep).replace(os.sep, "/") + "/"
        kept = {n for n in names if not n.startswith(".") and not os.path.islink(os.path.join(folder, n))}
        tree.folders[prefix] = kept
        tree.files.extend(prefix + name for name in sorted(kept))
    return tree


def _read(path: Path, limit: int) -> bytes | None:
    try:
        return read_bounded(path, limit)
    except (OSError, ReadRefused):
        return None


def _folder_glob(folders: list[str]) -> str | None:
    """One glob naming exactly these folders (each ending in '/'): their common parent and ``*``, or
    ``*`` at each level when they lie at one depth in different parents; None when depths differ."""
    parents = {posixpath.dirname(f.rstrip("/")) for f in folders}
    if len(parents) == 1:
        parent = parents.pop()
        return f"{parent}/*/" if parent else "*/"
    depths = {f.count("/") for f in folders}
    return "*/" * depths.pop() if len(depths) == 1 else None


def _file_glob(files: list[str], suffix: str) -> str:
    """A glob naming these files: the one file itself, ``*<suffix>`` in their one folder, else at any depth."""
    if len(files) == 1:
        return files[0]
    parents = {posixpath.dirname(f) for f in files}
    if len(parents) == 1:
        parent = parents.pop()
        return f"{parent}/*{suffix}" if parent else f"*{suffix}"
    return f"**/*{suffix}"


def _harbor(tree: _Tree) -> tuple[BenchmarkLayout, list[str]] | None:
    tasks = sorted(f for f, names in tree.folders.items() if f and all(n in names for n in HARBOR_FILES))
    if not tasks:
        return None
    # A task folder holds everything below it: a task.toml deeper inside one is its own file. Sorted,
    # the folders below one follow it at once, so one look back at the last kept suffices.
    outermost: list[str] = []
    for folder in tasks:
        if not outermost or not folder.startswith(outermost[-1]):
            outermost.append(folder)
    glob = _folder_glob(outermost)
    if glob is None:
        raise InvalidInput(
            f"found {len(outermost)} Harbor task folders ({', '.join(HARBOR_FILES)}) at different depths "
            f"({outermost[0]}, {outermost[-1]}): freezer's fixtures glob names folders at one depth",
            hint="move the task folders to one depth, or write freezer.yaml by hand (docs/formats.md)",
        )
    with_environment = sum(1 for folder in outermost if folder + "environment/" in tree.folders)
    said = [
        f"kind folders: {len(outermost)} Harbor task folder(s), each with {' and '.join(HARBOR_FILES)} "
        f"({with_environment} with environment/)",
        "task_file 'task.toml', task id: each folder's name",
    ]
    return BenchmarkLayout("folders", glob, task_file="task.toml"), said


def _lm_eval(top: Path, tree: _Tree) -> tuple[BenchmarkLayout, list[str]] | None:
    yaml_files = [f for f in tree.files if f.endswith(YAML_SUFFIXES) and f != "version.yaml"]
    tasks, groups, other = [], [], []
    for rel in yaml_files:
        raw = _read(top / rel, MAX_DOCUMENT_BYTES)
        if raw is None or not _TASK_KEY.search(raw):
            other.append(rel)
            continue
        document = load_bytes(raw, rel).document
        data = document.data if document is not None else None
        if isinstance(data, dict) and isinstance(data.get("task"), str):
            tasks.append(rel)
        elif is_group_file(top / rel):
            groups.append(rel)
        else:
            other.append(rel)
    if not tasks:
        return None
    named = [rel for rel in tasks if not posixpath.basename(rel).startswith("_")]
    suffixes = {posixpath.splitext(rel)[1] for rel in named}
    glob = _file_glob(named, suffixes.pop() if len(suffixes) == 1 else ".yaml")
    said = [
        f"kind lm-eval: {len(named)} task file(s) (a top-level task: naming the task), "
        f"{len(groups)} group file(s) (group: and a task: list), frozen as assets",
        "task id: each file's task: name",
    ]
    if suffixes:  # more than one was there
        said.append("task files end in both .yaml and .yml: the glob names the .yaml ones; check it")
    loose = [rel for rel in other if not posixpath.basename(rel).startswith("_")]
    if loose:
        said.append(
            f"{len(loose)} YAML file(s) name no task ({loose[0]}, ...): templates lm-eval includes; "
            "freezer validate refuses those the glob names (rename them _<name>.yaml, as lm-eval does)"
        )
    return BenchmarkLayout("lm-eval", glob), said


def _first_record(path: Path) -> dict[str, object] | None:
    raw = _read(path, MAX_WHOLE_FILE_BYTES)
    if raw is None:
        return None
    try:
        if path.name.endswith(".jsonl"):
            line = next((line for line in raw.splitlines() if line.strip()), b"")
            value = json.loads(line)
        else:
            listed = json.loads(raw)
            value = listed[0] if isinstance(listed, list) and listed else None
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _records(top: Path, files: list[str]) -> tuple[BenchmarkLayout, list[str]] | None:
    found: dict[str, tuple[str, str]] = {}  # file → (suffix, its id field)
    for rel in files:
        if not rel.endswith(RECORD_SUFFIXES):
            continue
        first = _first_record(top / rel)
        named = next((f for f in ID_FIELDS if first is not None and isinstance(first.get(f), str)), None)
        if named is not None:
            found[rel] = (posixpath.splitext(rel)[1], named)
    if not found:
        return None
    # One suite reads one format with one id field: the most common pair, and say what is left out.
    pairs = [pair for pair in found.values()]
    suffix, id_field = max(set(pairs), key=pairs.count)
    chosen = sorted(rel for rel, pair in found.items() if pair == (suffix, id_field))
    glob = _file_glob(chosen, suffix)
    said = [
        f"kind records: {len(chosen)} {suffix} file(s) of JSON objects, each named by {id_field!r}",
        f"task_id {id_field!r}",
    ]
    left = sorted(set(found) - set(chosen))
    if left:
        said.append(f"left out {len(left)} file(s) of another format or id field: {', '.join(left[:3])}")
    return BenchmarkLayout("records", glob, task_id=id_field), said


def recognise(benchmark: Path) -> tuple[BenchmarkLayout, list[str]]:
    """The layout of the benchmark at ``benchmark`` (a folder, or a records file) relative to its
    own folder, and what was guessed, in words. Raises :class:`InvalidInput` when nothing is recognised."""
    if benchmark.is_file():
        found = _records(benchmark.parent, [benchmark.name])
    else:
        tree = _walk(benchmark)
        found = _harbor(tree) or _lm_eval(benchmark, tree) or _records(benchmark, tree.files)
    if found is None:
        raise InvalidInput(
            f"{display_path(benchmark)}: no benchmark freezer can adopt: looked for Harbor task folders "
            f"(each with {' and '.join(HARBOR_FILES)}), lm-eval task YAML files (a top-level task: name) "
            f"and .jsonl/.json files of JSON objects with one of the fields {', '.join(ID_FIELDS)}",
            hint="point --adopt at the benchmark's folder or instances file, or use freezer init --kind "
            "folders|records|lm-eval and write freezer.yaml's fixtures glob yourself (docs/formats.md)",
        )
    return found


def adopt(target: Path, benchmark: Path, suite: str, kind: str, code_repo: Path | None = None) -> InitResult:
    """A registry in ``target`` whose one suite freezes the benchmark at ``benchmark`` in place."""
    check_suite_name(suite)
    if code_repo is not None:
        raise UsageError(
            "--code-repo is for a suite of kind generic or graph: an adopted benchmark pins no code under test",
            hint="leave --code-repo out",
        )
    if not os.path.lexists(benchmark):
        raise UsageError(f"{display_path(benchmark)} does not exist", hint="pass the benchmark's folder or file")
    root, real = Path(os.path.abspath(target)).resolve(), benchmark.resolve()
    if not real.is_relative_to(root):
        raise UsageError(
            f"{display_path(benchmark)} is not inside the registry folder {display_path(target)}: "
            "freezer freezes a benchmark in place, inside its registry",
            hint="init the registry in a folder that holds the benchmark (freezer init FOLDER --adopt PATH)",
        )
    layout, guessed = recognise(benchmark)
    drafts = real.parent if real.is_file() else real
    glob = layout.fixtures
    if drafts == root:
        # The drafts cannot be the registry's top: there freezer.yaml and versions/ would be drafts.
        literal = glob.split("*", 1)[0].rsplit("/", 1)[0] if "/" in glob.split("*", 1)[0] else ""
        if not literal:
            raise InvalidInput(
                f"{display_path(benchmark)}: the benchmark's files lie at the top of the registry folder "
                f"{display_path(target)}, where freezer.yaml and versions/ would be part of its drafts",
                hint="init the registry in the folder above (freezer init .. --adopt NAME), "
                "or keep the benchmark in a folder of its own",
            )
        drafts, glob = drafts / literal, glob[len(literal) + 1 :]
    if kind not in ("generic", layout.kind):  # generic: --kind's default, not a choice
        guessed.append(f"--kind {kind} was passed, but the files are read as kind {layout.kind}")
    relative = drafts.relative_to(root).as_posix()
    guessed.append(
        f"drafts {relative!r}, fixtures {glob!r}: the benchmark stays where it is; freezer adds only version.yaml there"
    )
    found = BenchmarkLayout(layout.kind, glob, relative, layout.task_file, layout.task_id)
    result = init_registry(target, suite, layout.kind, None, found)
    result.guessed = guessed
    return result
