"""Where a suite's own METHOD.md template places §Delta.

freezer owns §Delta: it renders the block from its own template and hands it to the METHOD.md
template as ``delta_block``. A suite template may put text around the block, not replace it, alter
it or show it only sometimes, so it must write ``{{ delta_block }}`` exactly once, alone, at its top
level. This is read from the template's syntax tree (never by running it: parsing evaluates
nothing); that the rendered METHOD.md then holds the block verbatim is checked after rendering
(:func:`freezer.render.method.method_from_files`).
"""

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from freezer.domain.problems import Problem, display_path
from freezer.runtime.limits import MAX_TEMPLATE_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

DELTA_BLOCK = "delta_block"
PLACE_IT = "write {{ delta_block }} exactly once, alone, at the top level of the template"


class Misplaced(NamedTuple):
    """One way a template fails to place §Delta: the line (None: the whole template) and why."""

    line: int | None  # None: the template cannot be read at all
    message: str
    syntax: bool = False  # the template does not parse, so where it places §Delta cannot be told


@lru_cache(maxsize=8)
def placement(template_text: str) -> tuple[Misplaced, ...]:
    """Every way ``template_text`` fails to place the §Delta block once, verbatim; empty when it does."""
    # Jinja2 costs ~40 ms at start-up: only a suite with its own template pays it here.
    from jinja2 import Environment, TemplateSyntaxError, nodes

    try:
        tree = Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True).parse(template_text)
    except TemplateSyntaxError as exc:
        return (Misplaced(exc.lineno, f"template syntax error: {exc.message}", syntax=True),)
    except RecursionError:
        return (Misplaced(None, "the template nests too deeply to compile", syntax=True),)
    placed = [
        child
        for output in tree.body
        if isinstance(output, nodes.Output)
        for child in output.nodes
        if isinstance(child, nodes.Name) and child.name == DELTA_BLOCK and child.ctx == "load"
    ]
    found: list[Misplaced] = []
    for node in tree.find_all(nodes.Name):
        if node.name != DELTA_BLOCK or any(node is p for p in placed):
            continue
        if node.ctx != "load":
            found.append(
                Misplaced(
                    node.lineno,
                    "the template assigns delta_block, which is freezer's §Delta and cannot be replaced: "
                    f"remove the assignment and {PLACE_IT}",
                )
            )
        elif _is_plain_output(tree, node):
            found.append(
                Misplaced(
                    node.lineno,
                    "{{ delta_block }} is inside an if, for, macro, call or filter block, so §Delta could be "
                    f"hidden, repeated or altered: {PLACE_IT}",
                )
            )
        else:
            found.append(
                Misplaced(
                    node.lineno,
                    "delta_block is used in an expression (a filter, test, slice, comparison or call), which "
                    f"could alter or hide §Delta: freezer's block is placed verbatim; {PLACE_IT}",
                )
            )
    for extra in placed[1:]:
        found.append(
            Misplaced(
                extra.lineno,
                f"the template places §Delta a second time (first at line {placed[0].lineno}): {PLACE_IT}",
            )
        )
    if not placed and not found:
        found.append(
            Misplaced(
                _own_delta_line(template_text),
                "the template does not place §Delta: freezer renders that section and a suite template may "
                f"frame it, not replace it; {PLACE_IT}, where the section goes",
            )
        )
    return tuple(sorted(found, key=lambda m: m.line or 0))


def _own_delta_line(template_text: str) -> int:
    """Where a template that leaves §Delta out writes its own Delta heading (1 if it writes none)."""
    for number, line in enumerate(template_text.splitlines(), 1):
        if re.match(r"\s*#{1,6}\s.*\bDelta\b", line, re.IGNORECASE):
            return number
    return 1


def _is_plain_output(tree: object, name: object) -> bool:
    """Whether ``name`` is a whole ``{{ ... }}`` somewhere below the top level."""
    from jinja2 import nodes  # loaded by placement already; local for the same start-up reason

    assert isinstance(tree, nodes.Template)
    return any(any(child is name for child in output.nodes) for output in tree.find_all(nodes.Output))


def template_problems(template: Path, origin: str) -> list[Problem]:
    """Where a suite template places §Delta, as validate reports problems (file and line). A
    template cut could not read (a link, not a file, over the size limit, not UTF-8) is refused here,
    at ``origin`` (freezer.yaml's line naming it), so a cut never runs every check to stop at the
    render. A syntax error is left to the render, which names its line."""
    display = display_path(template)
    try:
        text = read_bounded(template, MAX_TEMPLATE_BYTES).decode("utf-8")
    except ReadRefused as exc:
        why = f"the suite template {display} cannot be used: {exc} (a template is at most {MAX_TEMPLATE_BYTES:,} bytes)"
        return [_at_config(origin, why)]
    except UnicodeDecodeError as exc:
        why = f"the suite template {display} is not UTF-8 text (byte {exc.start + 1:,} is not): save it as UTF-8"
        return [_at_config(origin, why)]
    return [Problem(display, m.line, None, (), m.message, "template") for m in placement(text) if not m.syntax]


def _at_config(origin: str, why: str) -> Problem:
    config, _, line = origin.rpartition(":")
    return Problem(config or origin, int(line) if line.isdigit() else None, None, ("template",), why, "template")
