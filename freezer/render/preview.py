"""``validate``'s look at a suite template as it renders: the drafts' own data through it, with a
stand-in §Delta, read as a Markdown viewer reads it (:mod:`freezer.render.shown`).

The cut renders with every field and checks the real block again; this lets ``validate`` (the
pre-commit hook) say at the template's line what the cut would refuse, before a cut is tried.
"""

from __future__ import annotations

from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import Problem, display_path
from freezer.registry.config import SuiteConfig
from freezer.render.render import MARKDOWN_RULES, TemplateProblem, render_preview
from freezer.render.shown import Unshown, delta_unshown, says_delta
from freezer.runtime.limits import MAX_TEMPLATE_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded
from freezer.validate.fixtureset import FixtureSet
from freezer.validate.template import DELTA_BLOCK, placement

# What freezer's block looks like where it matters here: its heading, then paragraphs.
# Without a newline at its end, as freezer renders it: the template's line end follows it.
STAND_IN = "## Delta vs the previous version\n\nWhat moved since the previous version, as freezer writes it."


def preview_problems(suite: SuiteConfig, fixture_set: FixtureSet) -> list[Problem]:
    """Where the suite's own template, rendered with the drafts, fails to show §Delta; empty when
    it shows it, when the suite has no template of its own, or when validate already says why the
    template cannot be rendered (unreadable, misplacing the block, or failing on data it lacks)."""
    if suite.template is None:
        return []
    try:
        text = read_bounded(suite.template, MAX_TEMPLATE_BYTES).decode("utf-8")
    except (ReadRefused, UnicodeDecodeError):
        return []  # validate's template check says why
    if placement(text):
        return []  # the same: where the template places the block comes first
    display = display_path(suite.template)
    try:
        rendered = render_preview(text, _context(suite, fixture_set), display)
    except TemplateProblem:
        return []  # a name the drafts do not give (the cut's render gives every one) or a runaway render
    return [_at_template(text, display, found) for found in delta_unshown(rendered, STAND_IN)]


def _context(suite: SuiteConfig, fixture_set: FixtureSet) -> JsonObject:
    version = fixture_set.version.data if fixture_set.version is not None else None
    fields: JsonObject = dict(version) if isinstance(version, dict) else {}
    fixtures: list[JsonValue] = [doc.data for doc in fixture_set.fixtures if isinstance(doc.data, dict)]
    return {
        **fields,
        "suite": suite.name,
        "fixtures": fixtures,
        "landed": [f for f in fixtures if isinstance(f, dict) and f.get("status", "landed") == "landed"],
        "dropped": [f for f in fixtures if isinstance(f, dict) and f.get("status") == "dropped"],
        "markdown_rules": MARKDOWN_RULES,
        DELTA_BLOCK: STAND_IN,
    }


def _at_template(text: str, display: str, found: Unshown) -> Problem:
    """The problem at the template's line: the one writing a heading that says Delta, or else the
    one placing the block."""
    lines = text.splitlines()
    claim = next((n for n, line in enumerate(lines, 1) if DELTA_BLOCK not in line and says_delta(line)), None)
    placed = next((n for n, line in enumerate(lines, 1) if DELTA_BLOCK in line), None)
    line = claim if claim is not None and "heading saying Delta" in found.message else placed
    said = f"rendered with the drafts, METHOD.md line {found.line}: {found.message}"
    return Problem(display, line, None, (), said, "template")
