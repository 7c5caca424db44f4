"""``freezer init``: a new registry that works from its first commit.

It writes freezer.yaml, one suite's drafts (a commented version.yaml and a
fixture to copy), a pre-commit config and a GitHub Actions workflow that run
the guard, and copies of the schemas for editors (each YAML file names its
schema in a ``yaml-language-server`` modeline). The pre-commit config and the
workflow go where pre-commit and GitHub read them: the top of the git
repository, which may be above the registry; one already there is kept, and
init says what to add to it. Nothing existing is ever
overwritten, and nothing is written through a link: the folder may come
from a clone whose ``.freezer``, ``drafts`` or ``.github`` is a committed
link to somewhere else. Every file is rendered and written in a temporary
folder first, then placed with renames that refuse to replace anything,
under the registry lock; if one fails, what was placed is removed again.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.problems import display_path
from freezer.domain.release import DISTRIBUTION, REPOSITORY, __version__, action_ref
from freezer.domain.taskid import safe_file_name
from freezer.git.gitrepo import git_status
from freezer.kinds.yamlfiles import schema_name
from freezer.runtime import resources
from freezer.runtime.lock import WORK_DIR, registry_lock
from freezer.runtime.paths import unsafe_reason

KINDS = ("generic", "graph")  # freezer's own fixture format: init writes an example fixture


@dataclass(frozen=True)
class BenchmarkLayout:
    """Where a suite of a benchmark's own format is and how its kind reads it: what freezer.yaml says."""

    kind: str
    fixtures: str  # the fixtures glob, relative to the drafts
    drafts: str | None = None  # relative to the registry; None: drafts/<suite>, a new folder
    task_file: str | None = None
    task_id: str | None = None


# The layout ``freezer init --kind`` writes for each kind of a benchmark's own format (docs/formats.md).
BENCHMARK_LAYOUTS = {
    "folders": BenchmarkLayout("folders", "tasks/*/", task_file="task.toml"),
    "records": BenchmarkLayout("records", "instances/*.jsonl", task_id="instance_id"),
    "lm-eval": BenchmarkLayout("lm-eval", "tasks/*.yaml"),
}
_WHAT_THE_GLOB_NAMES = {
    "folders": "Each folder the glob names is one task, with every file in it (a glob ending in '/').",
    "records": "The files whose records are the tasks: JSON Lines, a JSON array or a YAML list.",
    "lm-eval": "The task YAML files; _x.yaml files and group files beside them are frozen as assets.",
}
# What init leaves for the author to do next, by whether the suite is in freezer's own format.
_NEXT_OWN = "edit the drafts (every TODO), then freezer validate, freezer cut v1, git commit"
_NEXT_BENCHMARK = "write version.yaml's title and purpose, then freezer validate, freezer cut v1, git commit"
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
WORKFLOW = ".github/workflows/freezer.yml"
# What pre-commit and GitHub read only at the top of the repository: written there, wherever the registry is.
AT_REPOSITORY_TOP = (PRE_COMMIT_CONFIG, WORKFLOW)
# Files a registry may do without, that a folder adopted in place may already hold: kept as they are.
OPTIONAL_FILES = (*AT_REPOSITORY_TOP, ".gitattributes")
_SUITE_NAME = re.compile(r"[a-z][a-z0-9_-]{0,59}")  # whole names only: fullmatch, never match
_FALLBACK_EXAMPLE = "src/main.py"
SCHEMAS_FOLDER = ".freezer/schemas"
# Cuts keep their lock and staging in .freezer/; the schemas beside them are committed for editors.
WORK_GITIGNORE = "# freezer's lock and staging folder; the schemas beside them are committed\n/lock\n/staging/\n"


@dataclass
class InitResult:
    """``freezer init``'s outcome: the registry it wrote (or adopted in place), and what the author does next."""

    root: Path
    suite: str
    kind: str
    written: list[str] = field(default_factory=list)
    git_initialized: bool = False
    pinned_sha: str | None = None
    code_repo: str = ""
    # What each file written is for (path relative to the registry → what it is), in order.
    described: dict[str, str] = field(default_factory=dict)
    guessed: list[str] = field(default_factory=list)  # what --adopt read the benchmark as
    kept: list[str] = field(default_factory=list)  # optional files already there, left as they were
    # What the author must do by hand for the guard to run: a file kept, with what to add to it.
    to_add: dict[str, str] = field(default_factory=dict)
    next_step: str = _NEXT_OWN
    ok: bool = True  # an init that could not write raises instead

    def to_json(self) -> dict[str, object]:
        return {
            "root": display_path(self.root),
            "suite": self.suite,
            "kind": self.kind,
            "written": self.written,
            "git_initialized": self.git_initialized,
            "pinned_sha": self.pinned_sha,
            "code_repo": self.code_repo,
            "guessed": self.guessed,
            "kept": self.kept,
            "to_add": self.to_add,
            "action_uses": ACTION_USES,
        }


def _quoted(text: str) -> str:
    """A YAML scalar that reads back as ``text`` whatever it holds (a JSON string is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _code_facts(code_repo: Path) -> tuple[str | None, str]:
    """HEAD of the code repository and a tracked file to point the example fixture at."""
    code, head, _ = git_status(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], code_repo)
    if code != 0:
        return None, _FALLBACK_EXAMPLE
    code, listed, _ = git_status(["ls-files", "-z"], code_repo)
    names = [name for name in listed.split("\0") if name] if code == 0 else []
    readable = [n for n in names if not n.startswith(".") and "\n" not in n]
    return head.strip(), (readable[0] if readable else _FALLBACK_EXAMPLE)


# The one line that replaces the workflow's install and guard steps once the Action is published.
ACTION_USES = f"uses: {REPOSITORY}@{action_ref()}"


def _guard_values(registry_path: str, drafts: str) -> dict[str, object]:
    """What the pre-commit config and the workflow need to know of the registry: where it is from the
    repository's top (``registry_path``, "." at the top) and where its drafts are in it."""
    prefix = "" if registry_path == "." else registry_path + "/"
    return {
        # Any file of the drafts is the suite's (a fixture, an instruction.md, a .jsonl, a !function
        # module), and freezer.yaml: pre-commit matches the path from the repository's top.
        "validate_files": _quoted(f"^{re.escape(prefix)}(?:{re.escape(drafts)}/|freezer\\.yaml$)"),
        "registry_args": json.dumps(["-C", registry_path]) if prefix else "",
        "registry_yaml": _quoted(registry_path),
        "distribution": DISTRIBUTION,
        "freezer_version": __version__,
        "action_repository": REPOSITORY,
        "action_ref": action_ref(),
        "placeholder": PLACEHOLDERS,
    }


def _render(name: str, values: dict[str, object]) -> str:
    from jinja2 import Environment, StrictUndefined  # Jinja2 costs ~40 ms at start-up: only for init

    text = (resources.data_dir("templates") / "init" / name).read_text(encoding="utf-8")
    environment = Environment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    return environment.from_string(text).render(**values)


EXAMPLE_TASK_ID = "example-task"  # the task_id of the fixture init writes (templates/init/fixture-*.yaml.j2)
MARKER = "TODO(freezer"  # what every line init or next leaves for the author to do carries
# The prose init writes where only the author knows what is true. The templates take each text from
# here by name, and a cut refuses any line still holding one (scaffoldcheck), so none is ever frozen:
# neither from the scaffold nor copied forward by `freezer next` from a version frozen before this.
PLACEHOLDERS = {
    "purpose": "Why this version exists: what it measures, and what changed since the last one.",
    "build_sha_unknown": "not recorded yet (replace this line with build_sha and the commit)",
    "mechanism": "how the agent reaches the tool (a CLI on $PATH, an MCP server, ...)",
    "provenance_text": "Where the fixtures come from, how the binary was built, and how it was run.",
    "why_grep_fails": "Explain why the naive grep does not answer the question.",
    "graph_tool": "your.graph.tool",
    "resolution": "Explain how the graph tools answer it.",
}


def example_fixture(kind: str, example_file: str) -> str:
    """The example fixture init writes for a suite of ``kind`` whose code's first file is ``example_file``."""
    return _render(
        f"fixture-{kind}.yaml.j2",
        {
            "example_file": _quoted(example_file),
            "example_name": _quoted(Path(example_file).name),
            "placeholder": PLACEHOLDERS,
        },
    )


def check_suite_name(suite: str) -> None:
    if _SUITE_NAME.fullmatch(suite) is None:
        raise UsageError(
            f"{suite!r} is not a suite name: use lower-case letters, digits, '-' and '_', starting with a letter"
        )


def plan(
    target: Path,
    suite: str,
    kind: str,
    code_repo: Path | None,
    layout: BenchmarkLayout | None = None,
    registry_path: str = ".",
) -> tuple[dict[str, str], InitResult]:
    """Every file of the new registry (path relative to ``target`` → text), rendered, nothing written.
    ``layout``: the benchmark ``--adopt`` found; else a kind of :data:`BENCHMARK_LAYOUTS` gets its own.
    ``registry_path``: where ``target`` is from the top of its git repository (the guard files name it)."""
    check_suite_name(suite)
    if kind not in KINDS and kind not in BENCHMARK_LAYOUTS:
        known = ", ".join((*KINDS, *BENCHMARK_LAYOUTS))
        raise UsageError(f"{kind!r} is not a suite kind: use one of {known}")
    if kind in BENCHMARK_LAYOUTS:
        if code_repo is not None:
            raise UsageError(
                f"--code-repo is for a suite of kind generic or graph: a {kind} suite pins no code under test",
                hint="leave --code-repo out",
            )
        return _benchmark_plan(target, suite, layout or BENCHMARK_LAYOUTS[kind], registry_path)
    result = InitResult(target, suite, kind)
    pinned, example = None, _FALLBACK_EXAMPLE
    if code_repo is not None:
        if not code_repo.is_dir():
            raise UsageError(f"{display_path(code_repo)} is not a folder", hint="pass the code repository's folder")
        pinned, example = _code_facts(code_repo)
        if pinned is None:
            raise UsageError(
                f"{display_path(code_repo)} is not a git repository with a commit",
                hint="commit the code under test first; freezer pins its SHA",
            )
        written_path = os.path.relpath(code_repo.resolve(), target.resolve())
    else:
        written_path = "../code"
    result.pinned_sha, result.code_repo = pinned, written_path
    folder = f"drafts/{safe_file_name(suite)}"  # the name is plain, so this is the name itself
    values: dict[str, object] = {
        "suite": suite,
        "kind": kind,
        "version": 1,
        "pinned_sha": pinned,
        "code_repo_yaml": _quoted(written_path) + ("" if code_repo else f"  # {MARKER} init): the code under test"),
        "tool_surface_yaml": _quoted("tools/**") + f"  # {MARKER} init): the paths of your tool's code",
        "example_file": _quoted(example),
        "example_name": _quoted(Path(example).name),
        **_guard_values(registry_path, folder),
    }
    schema_names = ["registry", "version", schema_name(kind)]
    files = {
        "freezer.yaml": _render("freezer.yaml.j2", values),
        f"{folder}/version.yaml": _render("version.yaml.j2", values),
        f"{folder}/fixtures/example-task.yaml": _render(f"fixture-{kind}.yaml.j2", values),
        ".pre-commit-config.yaml": _render("pre-commit-config.yaml", values),
        ".github/workflows/freezer.yml": _render("github-workflow.yml.j2", values),
        ".gitattributes": _render("gitattributes", values),
        f"{WORK_DIR}/.gitignore": WORK_GITIGNORE,
        **{f"{SCHEMAS_FOLDER}/{name}.schema.json": resources.schema_text(name) for name in schema_names},
    }
    result.described = {
        "freezer.yaml": f"the registry config (code_repo: {written_path})",
        f"{folder}/version.yaml": "the record of v1; "
        + (f"pinned_sha {pinned[:8]} (HEAD of the code)" if pinned else "pinned_sha: TODO"),
        f"{folder}/fixtures/example-task.yaml": "a fixture: edit it, copy it for each task",
        **_GUARD_FILES,
    }
    return files, result


_GUARD_FILES = {
    ".pre-commit-config.yaml": "the guard on every commit: run pre-commit install",
    ".github/workflows/freezer.yml": "the guard on every pull request",
    f"{SCHEMAS_FOLDER}/": "schemas for your editor (yaml-language-server)",
}


def _benchmark_plan(
    target: Path, suite: str, layout: BenchmarkLayout, registry_path: str
) -> tuple[dict[str, str], InitResult]:
    """The registry of a suite in a benchmark's own format: freezer.yaml names where it is and how its
    kind reads it, version.yaml is the one file freezer adds to its drafts; no example task."""
    drafts = layout.drafts or f"drafts/{safe_file_name(suite)}"
    result = InitResult(target, suite, layout.kind, next_step=_NEXT_BENCHMARK)
    depth = len(Path(drafts).parts)
    values: dict[str, object] = {
        "suite": suite,
        "kind": layout.kind,
        "version": 1,
        "drafts_yaml": _quoted(drafts),
        "fixtures_yaml": _quoted(layout.fixtures),
        "fixtures_comment": _WHAT_THE_GLOB_NAMES[layout.kind],
        "task_file_yaml": _quoted(layout.task_file) if layout.task_file else "",
        "task_id_yaml": _quoted(layout.task_id) if layout.task_id else "",
        "schema_path": "../" * depth + f"{SCHEMAS_FOLDER}/version.schema.json",
        **_guard_values(registry_path, drafts),
    }
    files = {
        "freezer.yaml": _render("freezer-benchmark.yaml.j2", values),
        f"{drafts}/version.yaml": _render("version-benchmark.yaml.j2", values),
        ".pre-commit-config.yaml": _render("pre-commit-config.yaml", values),
        ".github/workflows/freezer.yml": _render("github-workflow.yml.j2", values),
        ".gitattributes": _render("gitattributes", values),
        f"{WORK_DIR}/.gitignore": WORK_GITIGNORE,
        **{f"{SCHEMAS_FOLDER}/{name}.schema.json": resources.schema_text(name) for name in ("registry", "version")},
    }
    where = f"{drafts}/{layout.fixtures}"
    result.described = {
        "freezer.yaml": f"the registry config: suite {suite!r}, kind {layout.kind}, tasks {where}",
        f"{drafts}/version.yaml": "the record of v1: its title and purpose",
        **_GUARD_FILES,
    }
    if layout.drafts is None:
        result.described[where] = _where_tasks_go(layout)
    return files, result


def _where_tasks_go(layout: BenchmarkLayout) -> str:
    if layout.kind == "folders":
        return f"add each task here: a folder with its {layout.task_file}, instruction.md, environment/, tests/"
    if layout.kind == "records":
        return f"add the records here, one JSON object a line, each named by its {layout.task_id}"
    return "add each lm-eval task YAML here (task: its name)"


def _place(target: Path) -> tuple[Path, Path]:
    """(the registry's folder, the nearest folder of it that exists), both absolute. The folder the user
    names is resolved once, as a registry root always is; below it, nothing freezer writes may be a link."""
    absolute = Path(os.path.abspath(target))
    if os.path.lexists(absolute):
        if not absolute.is_dir():
            raise UsageError(f"{display_path(target)} exists and is not a folder", hint="pick a new folder")
        root = absolute.resolve()
        return root, root
    existing = absolute.parent
    while not os.path.lexists(existing):
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{display_path(existing)} is not a folder", hint="pick a folder that can hold the registry")
    real = existing.resolve()
    return real / absolute.relative_to(existing), real


def _refuse_unsafe(target: Path, base: Path, paths: dict[str, Path]) -> None:
    """Refuse a link or a file on the way to any path init writes (the path guard's rule), then any path
    that is taken: init never writes through a link and never overwrites."""
    through: dict[str, str] = {}
    taken = []
    for rel, path in paths.items():
        why = unsafe_reason(base, path)
        if why is not None:
            through.setdefault(why, rel)
        elif os.path.lexists(path):
            taken.append(rel)
    if through:
        found = "; ".join(f"{rel} {why}" for why, rel in through.items())
        raise UsageError(
            f"{display_path(target)}: freezer init writes only to real folders, never through a link: {found}",
            hint="remove that link or file (git rm it if it is committed) and run init again, or init another folder",
        )
    if taken:
        raise UsageError(
            f"{display_path(target)} already has {', '.join(sorted(taken))}; freezer init never overwrites a file",
            hint="init another folder, or move those files away first",
        )


def _repository_top(base: Path) -> Path | None:
    """The top of the git work tree ``base`` is in (resolved, as a registry root is), or None."""
    code, top, _ = git_status(["rev-parse", "--show-toplevel"], base)
    return Path(top.strip()).resolve() if code == 0 and top.strip() else None


def _needs_git_init(target: Path, root: Path, top: Path | None) -> bool:
    """Whether the registry needs a ``git init``: not when it is inside a work tree already."""
    if top is not None:
        return False
    if os.path.lexists(root / ".git"):
        raise UsageError(
            f"{display_path(target)}/.git exists, but git does not read it as a repository; "
            "freezer init would run git init over it",
            hint="remove it (or make it a real git folder), or init another folder",
        )
    return True


def _move_to_top(files: dict[str, str], paths: dict[str, Path], result: InitResult, root: Path, top: Path) -> None:
    """Place the pre-commit config and the workflow at the repository's top, where their tools read
    them (the registry is a folder below it); one already there is kept, and what to add to it said."""
    for rel in AT_REPOSITORY_TOP:
        shown = os.path.relpath(top / rel, root)
        what = result.described.pop(rel, "")
        if os.path.lexists(top / rel):
            result.kept.append(shown)
            result.to_add[shown] = files.pop(rel)
            del paths[rel]
            continue
        paths[rel] = top / rel
        result.described[shown] = what


def _entries_to_place(base: Path, paths: list[Path]) -> list[Path]:
    """The topmost missing level of each path, relative to ``base``: each is placed in one rename."""
    entries: set[Path] = set()
    for path in paths:
        level = base
        for part in path.relative_to(base).parts:
            level = level / part
            if not os.path.lexists(level):
                entries.add(level.relative_to(base))
                break
    return sorted(entries)


def _place_entry(built: Path, path: Path) -> None:
    """Move ``built`` to ``path``, which must not exist: a folder by rename (refused onto anything but
    an empty folder), a file by a hard link (refused onto anything at all, a link included)."""
    if built.is_dir():
        os.rename(built, path)
        return
    try:
        os.link(built, path, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        if os.path.lexists(path):  # a file system without hard links: check, then rename
            raise FileExistsError(errno.EEXIST, "appeared while init ran", str(path)) from None
        os.rename(built, path)


def _remove_placed(placed: list[Path]) -> None:
    for path in reversed(placed):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def init_registry(
    target: Path,
    suite: str = "bench",
    kind: str = "generic",
    code_repo: Path | None = None,
    layout: BenchmarkLayout | None = None,
) -> InitResult:
    """Create the registry in ``target`` (a new or empty folder, or one without any of its files).
    With ``layout`` (a benchmark adopted in place), the files a registry may do without
    (:data:`OPTIONAL_FILES`) that the folder already holds are kept as they are, and said.

    Every file is built in a temporary folder beside the ones it goes to, then placed, each new
    top-level entry in one rename; a failure removes what was placed, so nothing is left behind.
    """
    root, base = _place(target)
    top = _repository_top(base)
    below_top = top is not None and top != root and root.is_relative_to(top)
    registry_path = root.relative_to(top).as_posix() if top is not None and below_top else "."
    files, result = plan(root, suite, kind, code_repo, layout, registry_path)
    result.root = target
    paths = {rel: root / rel for rel in files}
    if below_top:
        assert top is not None
        _move_to_top(files, paths, result, root, top)
        base = top  # every path init writes is below the repository's top
    if layout is not None:
        for rel in [rel for rel in OPTIONAL_FILES if rel in files and os.path.lexists(paths[rel])]:
            result.kept.append(rel)
            result.to_add[rel] = files.pop(rel)
            del paths[rel]
            result.described.pop(rel, None)
    _refuse_unsafe(target, base, paths)
    git_init = _needs_git_init(target, root, top)
    placed: list[Path] = []
    try:
        staging = Path(tempfile.mkdtemp(prefix=".freezer-init-", dir=base))
    except OSError as exc:
        raise FreezerError(f"{display_path(target)}: cannot write the registry: {exc.strerror or exc}") from None
    try:
        for rel, text in files.items():
            built = staging / paths[rel].relative_to(base)
            built.parent.mkdir(parents=True, exist_ok=True)
            with open(built, "x", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        entries = _entries_to_place(base, list(paths.values()))
        work = root / WORK_DIR
        # The lock lives in .freezer/: a new .freezer (with its .gitignore) is placed first, then locked.
        first = [entry for entry in entries if work == base / entry or work.is_relative_to(base / entry)]
        for entry in first:
            _place_entry(staging / entry, base / entry)
            placed.append(base / entry)
        with registry_lock(root):
            rest = [entry for entry in entries if entry not in first]
            _refuse_unsafe(target, base, {str(entry): base / entry for entry in rest})
            for entry in rest:
                _place_entry(staging / entry, base / entry)
                placed.append(base / entry)
    except BaseException as exc:
        _remove_placed(placed)
        if isinstance(exc, OSError):
            raise FreezerError(
                f"{display_path(target)}: cannot write the registry ({exc.strerror or exc}); nothing was written"
            ) from None
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    result.written = [os.path.relpath(paths[rel], root) for rel in files]
    if git_init:
        initialized, _, _ = git_status(["init", "-q", "."], root)
        result.git_initialized = initialized == 0
    return result
