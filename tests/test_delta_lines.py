"""Issue 25, class 8: a multi-line change shows as a line diff, and no change renders as ``X → X``.

Format 4 of the delta (new cuts) carries a line diff for multi-line text and escalates a pair of
values that would read alike (whitespace, NFC/NFD, a trailing space, look-alike letters, a type)
until they read differently. Formats 2 and 3 recompute as they were frozen.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from freezer.compare import fieldtext
from freezer.compare.delta import DELTA_FORMAT
from freezer.compare.fieldchange import FieldChange
from freezer.compare.fieldlevel import field_changes
from freezer.domain import canonical
from freezer.domain.jsontypes import JsonObject
from freezer.render.deltatext import change_lines, change_text

from conftest import run_inprocess
from registry_helpers import commit_all

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")

# Pairs of different values that collapsed or clipped text shows alike (each was "X → X" in format 3).
ALIKE = [
    ("A.\n\nB.", "A.\nB."),  # a blank line removed
    ("run the tests ", "run the tests"),  # a trailing space
    ("  indented", "indented"),  # leading spaces
    ("a  b", "a b"),  # a doubled space
    ("a\tb", "a b"),  # a tab for a space
    (NFC, NFD),  # the same letters, another normal form
    ("\u0430pi", "api"),  # a Cyrillic a for a Latin one
    ("zero\u200bwidth", "zerowidth"),  # a zero-width space
    ("x" * 300 + "end.", "x" * 300 + "end!"),  # past the clip
    (600, "600"),  # a number became a string
    (None, "None"),
    ("Å", "\u212b"),  # an Angstrom sign for a ring-A
]


def _pair(change: JsonObject) -> tuple[str, str]:
    return str(change["old"]), str(change["new"])


@pytest.mark.parametrize(("old", "new"), ALIKE)
def test_values_that_read_alike_are_shown_apart_in_format_4(old: object, new: object) -> None:
    [change] = field_changes({"f": old}, {"f": new}, delta_format=4)
    assert change["change"] == "changed"
    shown_old, shown_new = _pair(change)
    assert shown_old != shown_new and fieldtext.tellable(shown_old, shown_new), (shown_old, shown_new)
    assert len(shown_old) <= fieldtext.SHOWN and len(shown_new) <= fieldtext.SHOWN
    text = change_text(FieldChange.from_json(change))
    left, right = text.split(" → ") if " → " in text else (text, "")
    assert left != right


def test_format_3_still_collapses_as_it_was_frozen() -> None:
    """Audit recomputes old delta.json byte for byte: the old rendering is kept for them."""
    [change] = field_changes({"f": "A.\n\nB."}, {"f": "A.\nB."}, delta_format=3)
    assert change == {"path": "$.f", "change": "changed", "old": "A. B.", "new": "A. B."}
    [change] = field_changes({"f": "a "}, {"f": "a"}, delta_format=2)
    assert change == {"path": "$.f", "change": "changed", "old": "a", "new": "a"}


def test_a_blank_line_removed_is_a_line_diff() -> None:
    old = "Find the parser.\n\nSay which file builds the AST.\nThen stop."
    new = "Find the parser.\nSay which file builds the AST.\nThen stop."
    [change] = field_changes({"prompt": old}, {"prompt": new}, delta_format=4)
    assert change["lines"] == [
        "@@ -1,4 +1,3 @@",
        " Find the parser.",
        "-",
        " Say which file builds the AST.",
        " Then stop.",
    ]
    typed = FieldChange.from_json(change)
    assert typed.to_json() == change  # round-trips key for key
    shown = change_lines(typed, "      ")
    assert shown[0] == "      $.prompt: changed, line by line:" and shown[1:3] == [
        "          @@ -1,4 +1,3 @@",
        "           Find the parser.",
    ]


def test_line_diffs_mark_what_a_reader_cannot_see() -> None:
    cases = {
        ("keep\nrun it \nend", "keep\nrun it\nend"): ["-run it␠", "+run it"],
        ("keep\n\tstep\nend", "keep\n    step\nend"): ["-\\tstep", "+    step"],
        (f"keep\n{NFC}\nend", f"keep\n{NFD}\nend"): ['-"caf\\u00e9"', '+"cafe\\u0301"'],
        ("keep\nline\r\nend", "keep\nline\nend"): ["-line\\r", "+line"],
    }
    for (old, new), expected in cases.items():
        lines = fieldtext.line_diff(old, new)
        assert [line for line in lines if line[:1] in "-+"] == expected, lines


def test_a_huge_text_is_clipped_but_its_change_stays_in_view() -> None:
    old_lines = [f"line {n}" for n in range(5000)]
    new_lines = [f"LINE {n}" if n % 100 == 50 else line for n, line in enumerate(old_lines)]
    new_lines[10], new_lines[4000] = "line ten", "x" * 1000 + "!"
    del new_lines[2500]
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    lines = fieldtext.line_diff(old, new)
    assert len(lines) == fieldtext.MAX_DIFF_LINES + 1
    assert lines[-1].startswith("... ") and lines[-1].endswith("more line(s) of the diff not shown")
    assert "-line 10" in lines and "+line ten" in lines
    assert all(len(line) <= fieldtext.LINE_WIDTH + 1 for line in lines)
    full = fieldtext.line_diff(old, new, full=True)
    assert "-line 2500" in full and any(line.endswith("x!") for line in full) and len(full) > len(lines)
    # A single line that differs past the width: clipped around the difference, on both sides.
    [removed, added] = [
        line for line in fieldtext.line_diff("a\n" + "y" * 500 + "1", "a\n" + "y" * 500 + "2") if line[0] in "-+"
    ]
    assert removed.endswith("1") and added.endswith("2") and len(removed) <= fieldtext.LINE_WIDTH + 1


def test_added_and_removed_multi_line_text_and_unchanged_order_lists() -> None:
    [added] = field_changes({}, {"notes": "one\ntwo"}, delta_format=4)
    assert added["lines"] == ["@@ -0,0 +1,2 @@", "+one", "+two"] and added["new"] == "one two"
    [removed] = field_changes({"notes": "one\ntwo"}, {}, delta_format=4)
    assert removed["lines"] == ["@@ -1,2 +0,0 @@", "-one", "-two"]
    # A list that only changed order or repeats names no item: format 3 said "+[] -[]".
    [reordered] = field_changes({"tags": ["a", "b"]}, {"tags": ["b", "a"]}, delta_format=4)
    assert reordered == {"path": "$.tags", "change": "changed", "old": "['a', 'b']", "new": "['b', 'a']"}
    [repeated] = field_changes({"tags": ["a", "a"]}, {"tags": ["a"]}, delta_format=4)
    assert repeated["old"] != repeated["new"]
    [items] = field_changes({"tags": ["a "]}, {"tags": ["a"]}, delta_format=4)
    assert items["added"] != items["removed"] and items["added"] == ["a"] and items["removed"] == ["a␠"]
    # true and 1 are equal to Python and different to a digest: format 4 says so.
    assert field_changes({"n": 1}, {"n": True}, delta_format=3) == []
    [typed] = field_changes({"n": 1}, {"n": True}, delta_format=4)
    assert typed["old"] != typed["new"]


def test_diff_text_of_raw_values_never_reads_x_to_x() -> None:
    """The site and ``freezer diff --format json`` hold whole values; their text is shown apart too."""
    for old, new in ALIKE:
        [change] = field_changes({"f": old}, {"f": new}, full=True, delta_format=4)
        assert (change["old"], change["new"]) == (old, new)
        text = change_text(FieldChange.from_json(change))
        if not FieldChange.from_json(change).lines:
            left, right = text.split(" → ")
            assert left != right, text
    items = FieldChange("$.t", "items", added=(NFD,), removed=(NFC,))
    assert change_text(items) == '+["cafe\\u0301"] -["caf\\u00e9"]'


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.text(max_size=300), st.integers(), st.none(), st.booleans()),
    st.one_of(st.text(max_size=300), st.integers(), st.none(), st.booleans()),
)
def test_no_two_different_values_render_alike(old: str | int | bool | None, new: str | int | bool | None) -> None:
    if fieldtext.same(old, new):
        return
    shown_old, shown_new = fieldtext.shown_pair(old, new)
    assert shown_old != shown_new
    assert len(shown_old) <= fieldtext.SHOWN + 3 and len(shown_new) <= fieldtext.SHOWN + 3
    if isinstance(old, str) and isinstance(new, str):
        removed = [line for line in fieldtext.line_diff(old, new) if line.startswith("-")]
        added = [line for line in fieldtext.line_diff(old, new) if line.startswith("+")]
        assert not {line[1:] for line in removed} & {line[1:] for line in added}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_cut_shows_text_changes_as_line_diffs_and_apart_everywhere(api: Path) -> None:
    drafts = api / "drafts/api"
    question = "question: |-\n  Where is the ToolContext built?\n\n  Name the file.\n"
    _edit(
        drafts / "fixtures/explain-pipeline.yaml",
        "question: >-\n  Where does the runtime pipeline build its ToolContext, and what does it put\n  in it?\n",
        question,
    )
    _edit(drafts / "fixtures/explain-pipeline.yaml", "source: hand-written", f"source: {NFC}")
    _edit(drafts / "fixtures/add-timeout-flag.yaml", "source: hand-written", "source: 'tidy up '")
    assert run_inprocess("cut", "api_v1", cwd=api).code == 0
    commit_all(api, "freeze api_v1")
    _edit(drafts / "version.yaml", "version: 1\n", "version: 2\n")
    _edit(drafts / "fixtures/explain-pipeline.yaml", "built?\n\n  Name", "built?\n  Name")  # a blank line removed
    _edit(drafts / "fixtures/explain-pipeline.yaml", f"source: {NFC}", f"source: {NFD}")
    _edit(drafts / "fixtures/add-timeout-flag.yaml", "source: 'tidy up '", "source: 'tidy up'")
    cut = run_inprocess("cut", "v2", "--suite", "api", cwd=api)
    assert cut.code == 0, cut.text

    version = api / "versions/api_v2"
    delta = json.loads((version / "delta.json").read_text())
    assert delta["delta_format"] == DELTA_FORMAT == 6  # a new cut writes the newest format
    fields = {(c["task_id"], f["path"]): f for c in delta["fixtures"]["changed"] for f in c["fields"]}
    question_change = fields[("explain-pipeline", "$.question")]
    assert question_change["lines"] == [
        "@@ -1,3 +1,2 @@",
        " Where is the ToolContext built?",
        "-",
        " Name the file.",
    ]
    for key in (("explain-pipeline", "$.metadata.source"), ("add-timeout-flag", "$.metadata.source")):
        assert fields[key]["old"] != fields[key]["new"], fields[key]

    method = (version / "METHOD.md").read_text()
    assert "- `$.question`: changed, line by line:\n\n    ```diff\n    @@ -1,3 +1,2 @@\n" in method
    assert "\n    -\n     Name the file.\n    ```" in method
    assert "tidy up␠ → tidy up" in method
    # Markdown source (rules 4, issue 27): a backslash before a letter escapes nothing, so it stays as
    # written, raw and rendered.
    assert '"caf\\u00e9" → "cafe\\u0301"' in method

    diff = run_inprocess("diff", "api_v1", "api_v2", cwd=api)
    assert diff.code == 0, diff.text
    assert "      $.question: changed, line by line:\n          @@ -1,3 +1,2 @@\n" in diff.out
    assert "      $.metadata.source: tidy up␠ → tidy up" in diff.out
    for line in diff.out.splitlines():
        if line.startswith("      $.") and " → " in line:
            left, right = line.split(": ", 1)[1].split(" → ", 1)
            assert left != right, line
    as_json = run_inprocess("diff", "api_v1", "api_v2", "--format", "json", cwd=api)
    assert as_json.code == 0, as_json.text
    [changed] = [
        c for c in json.loads(as_json.out)["result"]["fixtures"]["changed"] if c["task_id"] == "explain-pipeline"
    ]
    [whole] = [f for f in changed["fields"] if f["path"] == "$.question"]
    assert whole["old"] == "Where is the ToolContext built?\n\nName the file." and "-" in whole["lines"]

    audit = run_inprocess("audit", "api_v2", cwd=api)
    assert audit.code == 0, audit.text


def _spaces_by_the_rule(text: str, leading: bool) -> str:
    """The rule, character by character: a space is marked when only spaces follow it, or (with
    ``leading``) when only spaces precede it or it touches another space."""
    out = []
    for index, char in enumerate(text):
        after, before = text[index + 1 :], text[:index]
        touching = text[index - 1 : index] == " " or text[index + 1 : index + 2] == " "
        edge = not after.strip(" ") or (leading and not before.strip(" "))
        out.append("␠" if char == " " and (edge or (leading and touching)) else char)
    return "".join(out)


@given(st.text(alphabet=" a\t\u00a0␠", max_size=14), st.booleans())
def test_spaces_are_marked_by_the_rule(text: str, leading: bool) -> None:
    assert fieldtext._mark_spaces(text, leading) == _spaces_by_the_rule(text, leading)


def test_a_long_value_with_many_spaces_is_marked_in_one_pass() -> None:
    # Per character, looking at the rest of the text took about half an hour for a value this long.
    text = "a " * 2_000_000 + "  "
    shown = fieldtext.marked(text)
    assert shown.endswith("a␠␠␠") and shown.count("␠") == 3
    assert len(shown) == len(text)


def _by_text(a: Any, b: Any) -> bool:
    """What ``fieldtext.same`` answered before it had a fast path: equal, and equal as canonical JSON."""
    if a is b:
        return True
    if a != b:
        return False
    try:
        return canonical.compact(a) == canonical.compact(b)
    except (TypeError, ValueError):
        return True


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, float("inf"), float("nan")]),
    st.sampled_from(["", "a", "1", "true"]),
)
_KEYS = st.one_of(st.sampled_from(["a", "b", "1"]), st.integers(0, 1), st.booleans(), st.sampled_from([0.0, 1.0]))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.tuples(inner, inner), st.dictionaries(_KEYS, inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=1500, deadline=None)
@given(_VALUES, _VALUES)
def test_same_answers_as_comparing_the_canonical_text(old: Any, new: Any) -> None:
    """``same`` skips serializing values whose types already say they read alike (a records suite's
    values are tens of KB); it must answer as the text comparison does for every value: 1, True and
    1.0, 0.0 and -0.0, lists and tuples, keys of other types, NaN and infinity."""
    assert fieldtext.same(old, new) is _by_text(old, new)
    assert fieldtext.same(old, old) is _by_text(old, old)
    twin = json.loads(json.dumps(old))  # another object of each node: no identity shortcut
    assert fieldtext.same(old, twin) is _by_text(old, twin)
