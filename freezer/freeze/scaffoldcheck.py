"""The cut's refusal of drafts that are still the scaffold ``freezer init`` or ``freezer next`` wrote.

A ``TODO(freezer …)`` line is work the author has not done yet (set ``pinned_sha``, fill a path), the
scaffold's placeholder prose (a purpose, a provenance that only the author can write) and the example
fixture are not the benchmark's: frozen, any of them would stand in a version forever. All are found in
the drafts' own files, located to the line.
"""

from __future__ import annotations

from freezer.domain.problems import Problem
from freezer.freeze.scaffold import EXAMPLE_TASK_ID, KINDS, MARKER, PLACEHOLDERS, example_fixture
from freezer.registry.config import SuiteConfig
from freezer.registry.model import Suite
from freezer.runtime.reading import read_whole
from freezer.validate.fixtureset import FixtureSet
from freezer.validate.validate import VERSION_NAME


def scaffold_problems(suite: SuiteConfig, fixture_set: FixtureSet) -> list[Problem]:
    """Every ``TODO(freezer`` line and placeholder of version.yaml and the fixtures, and the untouched example."""
    found: list[Problem] = []
    # A benchmark's own files (folders, records) are its bytes, not freezer's scaffold.
    scaffolded = Suite.of(suite).kind.scaffolded
    checked = {display: path for display, path in fixture_set.files.items() if scaffolded or path.name == VERSION_NAME}
    texts: dict[str, str] = {}
    for display, path in sorted(checked.items()):
        text = read_whole(path).decode("utf-8", errors="replace")
        texts[display] = text
        if not _may_hold_scaffold(text):
            continue  # most files: no line to look at (a 10,000-fixture cut has 450,000 lines)
        for number, line in enumerate(text.splitlines(), start=1):
            said = _scaffold_left_in(line)
            if said is not None:
                column, what = said
                found.append(Problem(display, number, column, (), what, "rule"))
    for doc in fixture_set.fixtures if scaffolded else ():
        if doc.data.get("task_id") != EXAMPLE_TASK_ID:
            continue
        untouched = suite.kind in KINDS and _is_the_example(suite.kind, doc.data, texts.get(doc.display))
        what = (
            "is the example fixture freezer init wrote, untouched"
            if untouched
            else (f"carries the example fixture's task_id {EXAMPLE_TASK_ID!r}")
        )
        found.append(
            doc.problem(
                ("task_id",),
                f"{what}: write a task of your benchmark here, with its own task_id, or delete the file",
                "rule",
            )
        )
    return found


def _is_the_example(kind: str, data: dict[str, object], text: str | None) -> bool:
    """Whether ``text`` is byte for byte the example init writes (its one variable: the code's file)."""
    truth = data.get("ground_truth")
    first = truth[0] if isinstance(truth, list) and truth and isinstance(truth[0], dict) else {}
    file = first.get("file")
    return text is not None and isinstance(file, str) and text == example_fixture(kind, file)


def _may_hold_scaffold(text: str) -> bool:
    """Whether any line of ``text`` can hold a marker or a placeholder (each is a substring of it)."""
    return MARKER in text or any(placeholder in text for placeholder in PLACEHOLDERS.values())


def _scaffold_left_in(line: str) -> tuple[int, str] | None:
    """(column, what to do) when ``line`` still holds a ``TODO(freezer`` marker or a placeholder."""
    column = line.find(MARKER)
    if column >= 0:
        comment = line.rfind("#", 0, column)  # the comment the marker begins, as the user sees it
        column = comment if comment >= 0 else column
        said = line[column:].strip()
        return column + 1, f"still holds the scaffold's marker '{said}': do what it says, then delete the line"
    for placeholder in PLACEHOLDERS.values():
        if placeholder in line:
            return line.find(placeholder) + 1, (
                f"still holds the scaffold's placeholder '{placeholder}': write this version's own text in its place"
            )
    return None
