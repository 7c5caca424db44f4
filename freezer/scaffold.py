"""``freezer init``: a new registry that works from its first commit.

It writes freezer.yaml, one suite's drafts (a commented version.yaml and a
fixture to copy), a pre-commit config and a GitHub Actions workflow that run
the guard, and copies of the schemas for editors (each YAML file names its
schema in a ``yaml-language-server`` modeline). Nothing existing is ever
overwritten: every file is rendered first, and if writing one fails, the
files and folders already made are removed again.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from freezer import __version__, resources
from freezer.errors import FreezerError, UsageError
from freezer.gitrepo import git_status
from freezer.problems import display_path

KINDS = ("generic", "graph")
_SUITE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,59}$")
_FALLBACK_EXAMPLE = "src/main.py"
SCHEMAS_FOLDER = ".freezer/schemas"


@dataclass
class InitResult:
    root: Path
    suite: str
    kind: str
    written: list[str] = field(default_factory=list)
    git_initialized: bool = False
    pinned_sha: str | None = None
    code_repo: str = ""


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


def _render(name: str, values: dict[str, object]) -> str:
    from jinja2 import Environment, StrictUndefined

    text = (resources.data_dir("templates") / "init" / name).read_text(encoding="utf-8")
    environment = Environment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    return environment.from_string(text).render(**values)


def plan(target: Path, suite: str, kind: str, code_repo: Path | None) -> tuple[dict[str, str], InitResult]:
    """Every file of the new registry (path relative to ``target`` → text), rendered, nothing written."""
    if not _SUITE_NAME.match(suite):
        raise UsageError(
            f"{suite!r} is not a suite name: use lower-case letters, digits, '-' and '_', starting with a letter"
        )
    if kind not in KINDS:
        raise UsageError(f"{kind!r} is not a suite kind: use one of {', '.join(KINDS)}")
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
    folder = f"drafts/{suite}"
    values: dict[str, object] = {
        "suite": suite,
        "kind": kind,
        "version": 1,
        "pinned_sha": pinned,
        "code_repo_yaml": _quoted(written_path) + ("" if code_repo else "  # TODO: the code under test"),
        "tool_surface_yaml": _quoted("tools/**") + "  # TODO: the paths of your tool's code",
        "example_file": _quoted(example),
        "example_name": _quoted(Path(example).name),
        "freezer_version": __version__,
    }
    schema_names = ["registry", "version", "generic" if kind == "generic" else "fixture"]
    files = {
        "freezer.yaml": _render("freezer.yaml.j2", values),
        f"{folder}/version.yaml": _render("version.yaml.j2", values),
        f"{folder}/fixtures/example-task.yaml": _render(f"fixture-{kind}.yaml.j2", values),
        ".pre-commit-config.yaml": _render("pre-commit-config.yaml", values),
        ".github/workflows/freezer.yml": _render("github-workflow.yml.j2", values),
        ".gitattributes": _render("gitattributes", values),
        **{f"{SCHEMAS_FOLDER}/{name}.schema.json": resources.schema_text(name) for name in schema_names},
    }
    return files, result


def init_registry(
    target: Path, suite: str = "bench", kind: str = "generic", code_repo: Path | None = None
) -> InitResult:
    """Create the registry in ``target`` (a new or empty folder, or one without any of its files)."""
    if target.exists() and not target.is_dir():
        raise UsageError(f"{display_path(target)} exists and is not a folder", hint="pick a new folder")
    files, result = plan(target, suite, kind, code_repo)
    taken = sorted(rel for rel in files if os.path.lexists(target / rel))
    if taken:
        raise UsageError(
            f"{display_path(target)} already has {', '.join(taken)}; freezer init never overwrites a file",
            hint="init another folder, or move those files away first",
        )
    made: list[Path] = []
    try:
        for folder in [target, *sorted({(target / rel).parent for rel in files})]:
            for level in reversed([folder, *folder.parents]):
                if not level.exists():
                    level.mkdir()
                    made.append(level)
        for rel, text in files.items():
            path = target / rel
            with open(path, "x", encoding="utf-8", newline="\n") as handle:
                made.append(path)
                handle.write(text)
    except OSError as exc:
        for path in reversed(made):
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
        raise FreezerError(f"{display_path(target)}: cannot write the registry: {exc.strerror or exc}") from None
    result.written = list(files)
    code, inside, _ = git_status(["rev-parse", "--is-inside-work-tree"], target)
    if code != 0 or inside.strip() != "true":
        initialized, _, _ = git_status(["init", "-q", "."], target)
        result.git_initialized = initialized == 0
    return result
