"""The loader's fast path (no positions) and its located builder agree on every text.

For each text: when the fast path builds data, the located builder builds the
same data and finds no problem; when the located builder finds a problem, the
fast path gives up (so the problem is reported where it is written), and the
loader reports exactly the located builder's problems, message and position.
The texts include every hazard of issue 23's class 13 (tests/hostile/r3_yaml.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile.corpus import YAML_TEXTS
from hostile.r3_yaml import ACCEPTED, HAZARDS

from freezer.parse import yamlfast, yamlload
from freezer.parse.yamlload import Limits

# Every YAML text, in the default lane: the whole file takes about a second.

REPO = Path(__file__).resolve().parent.parent
REPO_YAML = sorted(
    p for p in REPO.glob("**/*.y*ml") if ".venv" not in p.parts and ".git" not in p.parts and p.is_file()
)

EDGE_TEXTS: dict[str, str] = {
    "anchor-without-alias": "a: &x 1\nb: 2\n",
    "alias-to-scalar": "a: &x 1\nb: *x\n",
    "escape-allowed-tab": 'a: "x\\ty"\n',
    "escape-forbidden": 'a: "x\\x1by"\n',
    "escape-in-single-quotes-is-text": "a: 'x\\x1by'\n",
    "plain-backslash": "pattern: \\bsym_1\\b\n",
    "duplicate-after-nested": "a: {b: 1}\nc: 2\na: 3\n",
    "same-key-different-maps": "a: {k: 1}\nb: {k: 2}\n",
    "bool-key": "true: 1\n",
    "int-value-cached-twice": "a: 1\nb: 1\nc: [1, 1]\n",
    "null-forms": "a: ~\nb: null\nc:\nd: Null\n",
    "bools": "a: yes\nb: No\nc: on\nd: FALSE\n",
    "floats": "a: 1.5\nb: 1e3\nc: -0.0\nd: .inf\n",
    "timestamp-as-text": "a: 2026-11-30\n",
    "merge-key": "<<: {a: 1}\n",
    "explicit-str-tag": "a: !!str 12\n",
    "explicit-int-tag": "a: !!int '12'\n",
    "non-specific-tag": "a: ! 12\n",
    "empty-document": "",
    "root-scalar": "text\n",
    "root-list": "- 1\n- [2, {a: b}]\n",
    "deep-at-limit": "a: " + "[" * 63 + "]" * 63 + "\n",
    "deep-past-limit": "a: " + "[" * 64 + "]" * 64 + "\n",
    "two-documents": "a: 1\n---\nb: 2\n",
    "explicit-document": "---\na: 1\n...\n",
    "container-as-key": "? {a: 1}\n: b\n",
    "bidi-in-comment": "a: 1  # \u202e\n",
    "crlf": "a: 1\r\nb: two words\r\n",
    "crlf-with-nel-in-comment": "a: 1 # x\x85b: 2\r\n",
    "lone-cr-in-quoted": "a: 'x\ry'\n",
    "escaped-nel-in-double-quotes": 'a: "x\\Ny"\n',
    "escaped-ls-in-double-quotes": 'a: "x\\Ly"\n',
    "anchor-in-nested-flow": "a: {b: [&x 1]}\n",
    "yaml-1-2-directive": "%YAML 1.2\n--- a\n",
    "tag-on-empty-value": "a: !!null\n",
    "y-n-are-text": "y: n\n",
    "octal-in-key-and-value": "010: 010\n",
}


def _texts() -> list[tuple[str, str]]:
    texts = [(name, text) for name, text in EDGE_TEXTS.items()]
    texts += [(f"r3-{name}", text) for name, (text, _) in HAZARDS.items()]
    texts += [(f"r3-accepted-{name}", text) for name, (text, _) in ACCEPTED.items()]
    for name, raw in YAML_TEXTS.items():
        decoded, _ = yamlload.decode(raw, name)
        if decoded is not None:
            texts.append((f"hostile-{name}", decoded))
    for path in REPO_YAML:
        texts.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
    return texts


@pytest.mark.parametrize(("name", "text"), _texts(), ids=[name for name, _ in _texts()])
def test_fast_path_and_located_builder_agree(name: str, text: str) -> None:
    fast = yamlload._fast_data(text, Limits())
    located = yamlload._located(text, name, Limits())
    if located.problems:
        assert fast is yamlfast.GIVE_UP, f"{name}: fast path accepted what the located builder refuses"
        assert yamlload.load_bytes(text.encode("utf-8"), name).problems == located.problems
    elif fast is not yamlfast.GIVE_UP:
        assert fast == located.result
        assert type(fast) is type(located.result)


def test_the_fast_path_takes_ordinary_fixtures() -> None:
    examples = [p for p in REPO_YAML if "examples" in p.parts and p.parent.name == "fixtures"]
    assert examples
    for path in examples:
        assert yamlload._fast_data(path.read_text(encoding="utf-8"), Limits()) is not yamlfast.GIVE_UP, path


def test_a_problem_found_later_is_located_from_the_kept_text(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text("task_id: x\nground_truth:\n  - file: a.rs\n    line: 3\n")
    doc = yamlload.load_file(path).document
    assert doc is not None and not doc.marks and doc.source is not None
    assert doc.locate(("ground_truth", 0, "line")) == (4, 5)  # a value is located at its key
    assert doc.source is None and doc.marks  # worked out once, then kept
    assert doc.problem(("ground_truth", 0, "file"), "m", "rule").line == 3


def test_positions_are_the_same_as_the_located_builders() -> None:
    text = (REPO / "examples" / "graph" / "v1" / "version.yaml").read_text(encoding="utf-8")
    assert yamlload.positions(text) == yamlload._located(text, "x", Limits()).marks
