"""The loader's fast path (no positions) and its located builder agree on every text.

For each text: when the fast path builds data, the located builder builds the
same data and finds no problem; when the located builder finds a problem, the
fast path gives up (so the problem is reported where it is written), and the
loader reports exactly the located builder's problems, message and position.
The texts include every hazard of issue 23's class 13 (tests/hostile/yaml_hazards.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile.corpus import YAML_TEXTS
from hostile.yaml_hazards import ACCEPTED, HAZARDS

from freezer.parse import yamlfast, yamlload, yamllocate
from freezer.parse.yamllocate import Limits

# Every YAML text, in the default lane: the whole file takes about a second.

REPO = Path(__file__).resolve().parent.parent


def _repo_yaml() -> list[str]:
    """The repository's own YAML files (relative paths), found without walking .venv or .git."""
    found = []
    for folder, dirs, names in os.walk(REPO):
        dirs[:] = sorted(d for d in dirs if d not in (".venv", ".git"))
        found += [os.path.relpath(os.path.join(folder, n), REPO) for n in names if n.endswith((".yaml", ".yml"))]
    return sorted(p for p in found if (REPO / p).is_file())


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


# Only the names are listed at collection; each text is made (or read) inside its test, as the hostile
# corpus holds texts of up to a megabyte.
NAMES = (
    [*EDGE_TEXTS, *(f"hazard-{name}" for name in HAZARDS), *(f"accepted-{name}" for name in ACCEPTED)]
    + [f"hostile-{name}" for name in YAML_TEXTS]
    + _repo_yaml()
)


def _text(name: str) -> str | None:
    """The text named, or None for a hostile byte string that is not text at all."""
    if name in EDGE_TEXTS:
        return EDGE_TEXTS[name]
    kind, _, key = name.partition("-")
    if kind == "hazard":
        return HAZARDS[key][0]
    if kind == "accepted":
        return ACCEPTED[key][0]
    if kind == "hostile":
        raw = YAML_TEXTS[key]
        raw = raw() if callable(raw) else raw
        decoded, _ = yamlload.decode(raw, key)
        if decoded is None:
            assert yamlload.load_bytes(raw, key).problems, f"{name}: bytes that are not text were accepted"
        return decoded
    return (REPO / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_fast_path_and_located_builder_agree(name: str) -> None:
    text = _text(name)
    if text is None:
        return  # bytes that are not text: refused before either builder (asserted in _text)
    fast = yamlload._fast_data(text, Limits())
    located = yamlload._located(text, name, Limits())
    if located.problems:
        assert fast is yamlfast.GIVE_UP, f"{name}: fast path accepted what the located builder refuses"
        assert yamlload.load_bytes(text.encode("utf-8"), name).problems == located.problems
    elif fast is not yamlfast.GIVE_UP:
        assert fast == located.result
        assert type(fast) is type(located.result)


def test_the_fast_path_takes_ordinary_fixtures() -> None:
    examples = [REPO / p for p in _repo_yaml() if p.startswith("examples/") and Path(p).parent.name == "fixtures"]
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
    assert yamllocate.positions(text) == yamlload._located(text, "x", Limits()).marks
