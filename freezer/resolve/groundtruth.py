"""Checking fixtures against the code at a commit: ground truth, traps, Gate B, oracle.

Everything is read from git objects (no checkout). Each finding is a
:class:`Problem` located at the fixture field it concerns, so a user sees
``fixture.yaml:24:5: $.ground_truth[1].line: ...`` and knows what to fix.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from freezer.domain.fixturekind import SITE_LISTS
from freezer.domain.model import Site
from freezer.domain.problems import Problem
from freezer.git.gitrepo import CodeRepo
from freezer.parse.document import YamlDocument
from freezer.resolve.grep import GrepResult, Ripgrep, count_many, locate
from freezer.resolve.rgflags import flag_problems
from freezer.schema import schemas

_DEFINITION = re.compile(r"\b(?:fn|def|func|function)\s+([A-Za-z_][A-Za-z0-9_]*)")
_PATHLIKE = re.compile(r"^[\w.-]+(?:/[\w.-]+)*\.[A-Za-z0-9]+(?::(\d+))?$")


def _quote(line: str) -> str:
    line = line.strip()
    return repr(line if len(line) <= 80 else line[:77] + "...")


def _container(lines: list[str], number: int) -> str | None:
    """The innermost function whose body encloses line ``number`` (1-based), or None.

    A ``fn``/``func``/``function`` body is the brace block that follows its signature (a
    signature ending in ``;`` first, like a trait method declaration, has none); a ``def``
    body is the indented block after its header. A definition merely above the line is
    not enough: its body must reach the line.
    """
    target = number - 1
    for index in range(target, -1, -1):
        found = _DEFINITION.search(lines[index])
        if found and _body_reaches(lines, index, found.group(0).split()[0], target):
            return found.group(1)
    return None


def _body_reaches(lines: list[str], start: int, keyword: str, target: int) -> bool:
    if start == target:
        return True
    if keyword == "def":
        return _indented_body_reaches(lines, start, target)
    end = _brace_body_end(lines, start)
    return end is not None and target <= end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _indented_body_reaches(lines: list[str], start: int, target: int) -> bool:
    """Python: the header runs to the line ending in ':', the body while lines are indented deeper."""
    header_end = start
    while header_end < len(lines) and not lines[header_end].split("#", 1)[0].rstrip().endswith(":"):
        header_end += 1
    if target <= header_end:
        return True
    level = _indent(lines[start])
    for index in range(header_end + 1, target + 1):
        line = lines[index]
        if line.strip() and _indent(line) <= level:
            return False
    return True


_SKIP = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'|[{};()\[\]]', re.S)


def _brace_body_end(lines: list[str], start: int) -> int | None:
    """The line (0-based) that closes the brace body of the definition at ``start``; None if it has none."""
    text = "\n".join(lines[start:])
    depth = 0
    grouping = 0  # parentheses and brackets: `[u8; 4]` in a signature is no end of declaration
    for token in _SKIP.finditer(text):
        mark = token.group(0)
        if mark in "([":
            grouping += 1
        elif mark in ")]":
            grouping -= 1
        elif mark == ";" and depth == 0 and grouping <= 0:
            return None  # a declaration without a body
        elif mark == "{":
            depth += 1
        elif mark == "}":
            depth -= 1
            if depth == 0:
                return start + text.count("\n", 0, token.start())
    return None


# What reading a field of the wrong shape raises. A draft never gets here with one (validate checks
# every field freezer reads against freezer's own shape), but a frozen file is read as it was written.
_WRONG_SHAPE = (TypeError, AttributeError, KeyError, IndexError, ValueError)


def _shaped(doc: YamlDocument, work: Callable[[], list[Problem]]) -> list[Problem]:
    """``work()``; or, if a field it reads has the wrong shape, where (freezer's own shape says)."""
    try:
        return work()
    except _WRONG_SHAPE:
        wrong = [doc.problem(path, message, "schema") for path, message in schemas.shape_errors(doc.data)]
        if not wrong:
            raise  # not the data's shape: a bug, shown as one
        return wrong


def check_sites(repo: CodeRepo, sha: str, doc: YamlDocument) -> list[Problem]:
    """Every ground-truth and trap site must exist at ``sha`` and say what the fixture claims."""
    found: list[Problem] = []
    short = sha[:8]
    tree: dict[str, tuple[str, str]] | None = None  # the commit's files: read at the first site, once
    for key in SITE_LISTS:
        for index, raw in enumerate(_list(doc.data.get(key) or [])):
            _list(raw.get("members") or [])
            site = Site.from_data(raw)
            for number in site.lines:
                if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                    raise ValueError("a line number that is not a positive integer")  # lines[-1] would read the last
            base = (key, index)
            if tree is None:
                tree = repo.tree(sha)
            entry = tree.get(site.file)
            if entry is None:
                where_else = repo.missing_file_hint(site.file, sha)
                found.append(doc.problem((*base, "file"), f"{site.file} does not exist at {short}{where_else}", "code"))
                continue
            lines = repo.lines(entry[1])
            too_far = [n for n in site.lines if n > len(lines)]
            if too_far:
                found.append(
                    doc.problem(
                        (*base, site.field),
                        f"{site.file} has {len(lines)} lines at {short}; line {too_far[0]} does not exist",
                        "code",
                    )
                )
                continue
            checked = site.lines[:1] if site.field == "range" else site.lines
            for number in checked:
                text = lines[number - 1]
                if site.symbol and site.symbol not in text:
                    found.append(
                        doc.problem(
                            (*base, site.field),
                            f"{site.file}:{number} at {short} does not contain {site.symbol!r} "
                            f"(it reads {_quote(text)})",
                            "code",
                        )
                    )
                if site.container:
                    actual = _container(lines, number)
                    if actual != site.container:
                        found.append(
                            doc.problem(
                                (*base, "container"),
                                f"{site.file}:{number} at {short} is inside {actual or 'no function'}, "
                                f"not {site.container}",
                                "code",
                            )
                        )
            if site.field == "range":
                start, end = site.lines
                span = "\n".join(lines[start - 1 : end])
                for m_index, member in enumerate(site.members):
                    if not re.search(rf"\b{re.escape(member)}\b", span):
                        found.append(
                            doc.problem(
                                (*base, "members", m_index),
                                f"{member!r} does not appear in {site.file}:{start}-{end} at {short}",
                                "code",
                            )
                        )
    return found


def _scope_problems(tree: Path, sha: str, doc: YamlDocument) -> list[Problem]:
    grep = doc.data["naive_grep"]
    found = [doc.problem(("naive_grep", "flags", i), why, "rule") for i, why in flag_problems(_flags(doc))]
    for index, scope in enumerate(grep["paths"]):
        if (tree / scope).is_symlink():
            found.append(
                doc.problem(
                    ("naive_grep", "paths", index),
                    f"{scope} is a symbolic link at {sha[:8]}; rg would follow it out of the tree, so name its target",
                    "code",
                )
            )
    return found


def _flags(doc: YamlDocument) -> list[str]:
    return [_text(flag) for flag in _list(doc.data["naive_grep"].get("flags") or [])]


def check_gate_b_all(repo: CodeRepo, sha: str, docs: list[YamlDocument], rg: Ripgrep | None = None) -> list[Problem]:
    """Gate B for many fixtures at one commit: one tree, and rg on every core. A fixture without a
    naive grep and a Gate B record (a generic suite's may have neither) has no Gate B to reproduce."""
    docs = [doc for doc in docs if doc.data.get("naive_grep") and doc.data.get("gate_b")]
    if not docs:
        return []
    rg = rg or locate()
    tree = repo.checkout(sha)
    found: list[Problem] = []
    runnable = []
    jobs: list[tuple[str, list[str], list[str]]] = []
    for doc in docs:
        problems = _shaped(doc, partial(_scope_problems, tree, sha, doc))
        if not problems:
            problems = _shaped(doc, partial(_job, doc, jobs))
        found.extend(problems)
        if not problems:
            runnable.append(doc)
    for doc, result in zip(runnable, count_many(rg, tree, jobs), strict=True):
        found.extend(_judge(doc, result, rg, sha))
    return found


def _job(doc: YamlDocument, jobs: list[tuple[str, list[str], list[str]]]) -> list[Problem]:
    """Add the rg run of ``doc``'s naive grep to ``jobs``, reading every field Gate B needs first
    (a field of the wrong shape raises here, for :func:`_shaped`, and not in the middle of a batch)."""
    grep, gate = doc.data["naive_grep"], doc.data["gate_b"]
    for key in ("expected_matches", "expected_files"):
        if not isinstance(gate[key], int):
            raise TypeError(f"gate_b.{key} is not an integer")
    jobs.append((_text(grep["pattern"]), [_text(scope) for scope in _list(grep["paths"])], _flags(doc)))
    return []


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _list(value: Any) -> list[Any]:
    """``value`` if it is a list: a string is iterable too, and would be read letter by letter."""
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _judge(doc: YamlDocument, result: GrepResult, rg: Ripgrep, sha: str) -> list[Problem]:
    grep, gate = doc.data["naive_grep"], doc.data["gate_b"]
    if result.pattern_error:
        # rg names what it refused: a regex, or else a flag's value (an unknown type, a bad glob).
        where = ("naive_grep", "pattern") if "regex" in result.pattern_error else ("naive_grep", "flags")
        return [doc.problem(where, f"{rg.label} refuses it: {result.pattern_error}", "code")]
    found = [
        doc.problem(("naive_grep", "paths", grep["paths"].index(scope)), f"{scope} does not exist at {sha[:8]}", "code")
        for scope in dict.fromkeys(result.missing_scopes)
    ]
    found += [doc.problem(("naive_grep",), f"{rg.label} reports: {error}", "code") for error in result.errors]
    expected = (gate["expected_matches"], gate["expected_files"])
    if not found and (result.matches, result.files) != expected:
        found.append(
            doc.problem(
                ("gate_b", "expected_matches"),
                f"Gate B does not reproduce at {sha[:8]}: {rg.label} returns {result.matches} matches "
                f"in {result.files} files, the fixture records {expected[0]} in {expected[1]}",
                "code",
            )
        )
    return found


def check_oracle(repo: CodeRepo, sha: str, doc: YamlDocument) -> list[Problem]:
    """Oracle entries that name a file (optionally ``path:line``) must still name something real.

    Bare names (symbols) must still occur in at least one ground-truth file.
    Entries in ``must_not_include`` are only checked when they name a path.
    """
    oracle = doc.data.get("oracle") or {}
    tree = repo.tree(sha)
    truth_text = ""
    for site in _list(doc.data.get("ground_truth") or []):
        data = repo.read(sha, site["file"])
        truth_text += data.decode("utf-8", errors="replace") if data else ""
    found: list[Problem] = []
    for key in ("must_include", "must_not_include"):
        for index, entry in enumerate(_list(oracle.get(key) or [])):
            pathlike = _PATHLIKE.match(entry)
            if pathlike:
                path = entry.rsplit(":", 1)[0] if pathlike.group(1) else entry
                matches = [p for p in tree if p == path or p.endswith("/" + path)]
                if not matches:
                    found.append(doc.problem(("oracle", key, index), f"{path} no longer exists at {sha[:8]}", "code"))
            elif key == "must_include" and truth_text and not re.search(rf"\b{re.escape(entry)}\b", truth_text):
                found.append(
                    doc.problem(
                        ("oracle", key, index),
                        f"{entry!r} no longer occurs in the ground-truth files at {sha[:8]}",
                        "code",
                    )
                )
    return found


def check_fixtures(
    repo: CodeRepo, sha: str, docs: list[YamlDocument], *, oracle: bool = False, rg: Ripgrep | None = None
) -> dict[str, list[Problem]]:
    """Every check against the code for the landed fixtures among ``docs``, by fixture file."""
    landed = [doc for doc in docs if isinstance(doc.data, dict) and doc.data.get("status") == "landed"]
    found = {doc.display: _shaped(doc, partial(check_sites, repo, sha, doc)) for doc in landed}
    for problem in check_gate_b_all(repo, sha, landed, rg):
        found[problem.file].append(problem)
    if oracle:
        for doc in landed:
            found[doc.display].extend(_shaped(doc, partial(check_oracle, repo, sha, doc)))
    return found
