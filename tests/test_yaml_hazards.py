"""Issue 23, class 13: YAML that reads other than it looks is refused where it is written.

The hazards (tests/hostile/yaml_hazards.py) through the loader, each problem at
its line, column and JSON path; the issue's own cases in a real registry with
a real code repository (where the ground-truth check used to verify the
weaker value); every file freezer reads (config, version.yaml, fixtures);
what is accepted read the same by a YAML 1.2 reader (ruamel.yaml); and the
hazards as subprocess cases of the hostile campaign (slow).
"""

from __future__ import annotations

import datetime
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile import corpus
from hostile.yaml_hazards import ACCEPTED, HAZARDS, yaml_cases
from hypothesis import given, settings
from hypothesis import strategies as st

from freezer.parse import yamlfast, yamlload
from freezer.parse.yamllocate import Limits

from conftest import REPO, assert_clean_failure, run_forked, run_inprocess
from registry_helpers import sample_repo, snapshot

FIXTURE = "drafts/graph/fixtures/trace-run-deterministic-callers.yaml"


def _problems(text: str) -> list[tuple[int | None, int | None, str, str]]:
    result = yamlload.load_bytes(text.encode("utf-8"), "f.yaml")
    assert (result.document is None) == bool(result.problems)
    return [(p.line, p.col, p.path_text(), p.message) for p in result.problems]


@pytest.mark.parametrize("name", list(HAZARDS))
def test_each_hazard_is_refused_where_it_is_written(name: str) -> None:
    text, expected = HAZARDS[name]
    got = _problems(text)
    assert [g[:3] for g in got] == [e[:3] for e in expected], got
    for (*_, fragment), (*_, message) in zip(expected, got, strict=True):
        assert fragment in message
        assert len(message) < 400  # bounded, whatever the value
    # The fast path never takes a hazard: it gives up, and the located builder says the above.
    assert yamlload._fast_data(text, Limits()) is yamlfast.GIVE_UP


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_what_reads_alike_still_loads(name: str) -> None:
    text, data = ACCEPTED[name]
    result = yamlload.load_bytes(text.encode("utf-8"), "f.yaml")
    assert result.problems == []
    assert result.document is not None
    assert _typed(result.document.data) == _typed(data)


def test_quoting_is_the_way_out_for_every_refused_scalar() -> None:
    """Each refused plain value, quoted as its message says, loads as the text it looks like."""
    for value in (
        "&mut deterministic(",
        "*const",
        "0414",
        "1_0_0",
        "0x1F",
        "+12",
        "1:20",
        "1e3",
        "yes",
        "OFF",
        "<<",
        "=",
    ):
        assert _problems(f"a: {value}\n"), value
        result = yamlload.load_bytes(f"a: '{value}'\n".encode(), "f.yaml")
        assert result.document is not None and result.document.data == {"a": value}


def test_the_line_break_check_counts_lines_as_grep_does(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes("a: 1\r\nb: 2\n# fine\nc: 3 # x\u2028d: 4\n".encode())
    grep = subprocess.run(["grep", "-n", "\u2028", str(path)], capture_output=True, text=True, check=True)
    [problem] = yamlload.load_file(path, "f.yaml").problems
    assert grep.stdout.startswith(f"{problem.line}:")
    assert (problem.line, problem.col) == (4, 9)


def test_long_values_are_cut_short_in_messages() -> None:
    huge = "0" + "7" * 100_000
    [(line, col, path, message)] = _problems(f"a: {huge}\n")
    assert (line, col, path) == (1, 4, "$.a")
    assert len(message) < 400 and "…" in message
    [(*_, message)] = _problems(f"a: 1_{'1' * 5000}\n")  # past the interpreter's int digit limit
    assert "reads as an integer in YAML 1.1" in message
    [(*_, message)] = _problems(f"a: {'1' * 5000}\n")
    assert "too long to read" in message


def _registry(tmp_path: Path, cache_root: Path) -> Path:
    from registry_helpers import make_registry

    return make_registry(tmp_path, cache_root)


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        # The ground-truth check used to verify '.run_deterministic(' and pass.
        (
            "    symbol: .run_deterministic(",
            "    symbol: &mut .run_deterministic(",
            ":20:13: $.ground_truth[0].symbol: ",
        ),
        # Line 268 read as octal 0414 passed; a YAML 1.2 reader of the frozen file sees 414.
        ("    line: 268", "    line: 0414", ":19:11: $.ground_truth[0].line: '0414' reads as the integer 268"),
        ("    line: 268", "    line: !!int '268'", ":19:11: $.ground_truth[0].line: YAML tag !!int is not allowed"),
        ("    line: 268", "    line: !!int ''", ":19:11: $.ground_truth[0].line: YAML tag !!int"),  # was an IndexError
        ("status: landed", "status: landed # done\x85difficulty: hard", ":4:22: $: U+0085 (NEL, next line)"),
        ("status: landed", "status: landed # done\rdifficulty: hard", ":4:22: $: a carriage return not followed"),
    ],
    ids=["anchor", "octal", "tag", "tag-empty", "nel-comment", "cr-comment"],
)
def test_the_issue_cases_are_refused_in_a_registry(
    tmp_path: Path, cache_root: Path, old: str, new: str, where: str
) -> None:
    root = _registry(tmp_path, cache_root)
    assert run_inprocess("validate", cwd=root).code == 0
    _edit(root, FIXTURE, old, new)
    result = run_inprocess("validate", cwd=root)
    assert_clean_failure(result)
    assert FIXTURE + where in result.out, result.out


def test_no_version_is_cut_from_a_hazard(tmp_path: Path, cache_root: Path) -> None:
    root = _registry(tmp_path, cache_root)
    _edit(root, FIXTURE, "    symbol: .run_deterministic(", "    symbol: &mut .run_deterministic(")
    before = snapshot(root / "drafts")
    result = run_inprocess("cut", "v1", cwd=root)
    assert result.code == 1, result.text
    assert FIXTURE + ":20:13: $.ground_truth[0].symbol: YAML anchor &mut" in result.text
    assert snapshot(root / "drafts") == before
    assert not (root / "versions").exists()


@pytest.mark.parametrize(
    ("rel", "old", "new", "where"),
    [
        ("drafts/graph/version.yaml", "version: 1", "version: 0x1", ":4:10: $.version: '0x1' reads as the integer 1"),
        ("drafts/graph/version.yaml", "suite: graph", "suite: &s graph", ":3:8: $.suite: YAML anchor &s"),
        ("freezer.yaml", "freezer: 1", "freezer: !!int 1", ":2:10: $.freezer: YAML tag !!int"),
        ("freezer.yaml", "  graph:", "  graph: &g", ":4:10: $.suites.graph: YAML anchor &g"),
        ("freezer.yaml", "freezer: 1", "%YAML 1.1\n---\nfreezer: 1", ":2:1: $: YAML directive %YAML 1.1"),
    ],
    ids=["version-hex", "version-anchor", "config-tag", "config-anchor", "config-directive"],
)
def test_every_file_freezer_reads_refuses_them(
    tmp_path: Path, cache_root: Path, rel: str, old: str, new: str, where: str
) -> None:
    root = _registry(tmp_path, cache_root)
    _edit(root, rel, old, new)
    result = run_inprocess("validate", cwd=root)
    assert result.code in (1, 2), result.text
    assert "Traceback" not in result.text and "internal error" not in result.text
    assert rel + where in result.text, result.text


# What freezer accepts, a YAML 1.2 reader reads the same (ruamel.yaml comes with check-jsonschema).


def _typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its type, so 1 != True != 1.0 and dates stay dates."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?")


def _yaml12(text: str) -> Any:
    ruamel = pytest.importorskip("ruamel.yaml")
    loader = ruamel.YAML(typ="safe", pure=True)
    loader.version = (1, 2)
    return loader.load(text)


def _as_freezer_reads_dates(value: Any) -> Any:
    """ruamel keeps YAML 1.1's timestamps in 1.2 mode; the core schema (and freezer) read them as text."""
    if isinstance(value, dict):
        return {k: _as_freezer_reads_dates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_freezer_reads_dates(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return _DATE
    return value


_DATE = object()


def _agree_with_yaml12(text: str) -> None:
    result = yamlload.load_bytes(text.encode("utf-8"), "f.yaml")
    if result.document is None:
        return
    theirs = _as_freezer_reads_dates(_yaml12(text))
    ours = result.document.data
    assert _typed(_dates_as_marker(ours, theirs)) == _typed(theirs), text


def _dates_as_marker(ours: Any, theirs: Any) -> Any:
    if theirs is _DATE:
        assert isinstance(ours, str) and _TIMESTAMP.fullmatch(ours), ours
        return _DATE
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return {k: _dates_as_marker(v, theirs.get(k)) for k, v in ours.items()}
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [_dates_as_marker(a, b) for a, b in zip(ours, theirs, strict=True)]
    return ours


def _repo_yaml() -> list[Path]:
    return sorted(p for p in REPO.glob("**/*.y*ml") if ".venv" not in p.parts and ".git" not in p.parts and p.is_file())


def test_what_freezer_accepts_a_yaml_1_2_reader_reads_the_same() -> None:
    texts = {name: text for name, (text, _) in ACCEPTED.items()}
    texts |= {str(p): p.read_text(encoding="utf-8") for p in _repo_yaml() if "negative" not in p.parts}
    compared, unreadable = 0, set()
    for name, text in texts.items():
        if yamlload.load_bytes(text.encode("utf-8"), name).document is None:
            continue
        try:
            _yaml12(text)
        except pytest.importorskip("ruamel.yaml").YAMLError:
            unreadable.add(name)
            continue
        _agree_with_yaml12(text)
        compared += 1
    assert compared > 40
    # ruamel's scanner refuses a tab inside a plain scalar, which YAML 1.2 allows (nb-ns-plain-in-line).
    assert unreadable == {"tab-in-text"}


# The YAML 1.2.2 core schema (spec 10.3.2), written out from the spec as the oracle for single scalars.
_CORE: list[tuple[re.Pattern[str], Callable[[str], Any]]] = [
    (re.compile(r"null|Null|NULL|~|"), lambda s: None),
    (re.compile(r"true|True|TRUE"), lambda s: True),
    (re.compile(r"false|False|FALSE"), lambda s: False),
    (re.compile(r"[-+]?[0-9]+"), lambda s: int(s, 10)),
    (re.compile(r"0o[0-7]+"), lambda s: int(s[2:], 8)),
    (re.compile(r"0x[0-9a-fA-F]+"), lambda s: int(s[2:], 16)),
    (re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"), float),
    (re.compile(r"[-+]?(\.inf|\.Inf|\.INF)"), lambda s: float(s.replace(".", ""))),
    (re.compile(r"\.nan|\.NaN|\.NAN"), lambda s: float("nan")),
]


def _core_value(plain: str) -> Any:
    for pattern, value in _CORE:
        if pattern.fullmatch(plain):
            return value(plain)
    return plain


_SCALAR_CHARS = "0123456789+-._:eExXoObBaAfFyYnNsStTrRuUlL~=<"


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=_SCALAR_CHARS, min_size=1, max_size=8))
def test_any_plain_scalar_freezer_accepts_reads_the_same_in_yaml_1_2(scalar: str) -> None:
    result = yamlload.load_bytes(f"k: {scalar}\n".encode(), "f.yaml")
    if result.document is None:
        return
    # Dates included: they are text to the core schema, and to freezer.
    assert _typed(result.document.data["k"]) == _typed(_core_value(scalar)), scalar


def test_the_oracle_tells_the_readings_apart() -> None:
    """The spec oracle differs from PyYAML exactly where the issue says: so the property above can fail."""
    import yaml

    for plain in ("0414", "1_000", "yes", "off", "0o17", "1e3", "1:20"):
        assert _typed(yaml.safe_load(f"k: {plain}")["k"]) != _typed(_core_value(plain)), plain
    for plain in ("268", "-3", "1.5", "true", "NULL", "x"):
        assert _typed(yaml.safe_load(f"k: {plain}")["k"]) == _typed(_core_value(plain)), plain


# The hazards as subprocess cases of the hostile campaign (see tests/test_hostile.py).

CASES = list(yaml_cases())
MEMORY_LIMIT = 1 << 30


@pytest.fixture(scope="module")
def code_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_repo(tmp_path_factory.mktemp("yaml-hazards-cache"))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_case(case: corpus.Case, code_repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "registry"
    root.mkdir()
    corpus.base_registry(root, code_repo)
    case.build(root)

    ran = run_forked(*case.command, cwd=root, memory_limit=MEMORY_LIMIT, timeout=30)
    output = ran.out + ran.err
    assert ran.code == 1, output
    assert "Traceback" not in output and "internal error" not in output, output
    assert re.search(re.escape(case.names) + r":\d+:\d+: \$", output), output
    assert not (root / "versions").exists()
