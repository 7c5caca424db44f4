"""Issue 37: an Inspect eval log is read strictly and every refusal says where.

A ``.json`` log that gives a key twice or holds a NaN is refused at its ``file:line:col`` before
Inspect's own (lenient) reader sees it; a contradiction in a ``.json`` log is refused at the line of
the value, and in a ``.eval`` log (a zip) at the member of the archive that holds it; a ``.eval``'s
JSON members that Inspect's reader parses are read as strictly, and refused at ``log.eval::member:line:col``. The
logs are written by Inspect's own writer (tests/test_results_import.py's ``_inspect``), against a
real registry from ``freezer demo``; the places expected are found in the written text here, by
searching it, not by freezer's locator.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hostile import evalzip
from test_results_import import SWE, _inspect, _refused

from conftest import needs_inspect

pytestmark = needs_inspect


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("inspect") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _at(text: str, needle: str, nth: int = 1) -> str:
    """``line:col`` where the ``nth`` ``needle`` starts in ``text``."""
    offset = -1
    for _ in range(nth):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _member(log: Path, name: str) -> str:
    """The text of the archive member ``name``, as Inspect's writer wrote it (zstd: Inspect's import,
    done by ``_inspect``, lets zipfile read it)."""
    import zipfile

    with zipfile.ZipFile(log) as archive:
        return archive.read(name).decode()


def _after(text: str, needle: str, nth: int = 1) -> str:
    """``line:col`` of the value that follows the ``nth`` ``needle`` (a ``"key": `` prefix)."""
    offset = -1
    for _ in range(nth):
        offset = text.index(needle, offset + 1)
    value = offset + len(needle)
    return f"{text.count(chr(10), 0, value) + 1}:{value - (text.rfind(chr(10), 0, value) + 1) + 1}"


@pytest.mark.parametrize(
    ("given", "twice", "key", "nth"),
    [
        ('"task_version": 1,', '"task_version": 4,\n    "task_version": 1,', "task_version", 1),
        # the second sample's score: the first sample's "value" comes before it
        ('"value": "I",', '"value": "C",\n          "value": "I",', "value", 2),
    ],
    ids=["eval-task-version", "sample-score-value"],
)
def test_json_log_with_a_key_given_twice_is_refused_at_its_line(
    demo: Path, tmp_path: Path, given: str, twice: str, key: str, nth: int
) -> None:
    """Inspect's reader would take the last copy (task version 1, score I) and import the log."""
    log = _inspect(tmp_path, {SWE[0]: "C", SWE[1]: "I"}, suffix=".json")
    text = log.read_text()
    assert text.count(given) == 1
    text = text.replace(given, twice)
    log.write_text(text)
    first_line, first_col = _at(text, f'"{key}"', nth).split(":")
    second = _at(text, f'"{key}"', nth + 1)  # the copy given twice: the strict reader stops there
    _refused(
        demo,
        "inspect",
        [log],
        "swe_v1",
        f"{log}:{second}: ",
        f"key '{key}' is given twice (first at line {first_line}, column {first_col}): give it once",
    )


def test_json_log_with_a_nan_score_is_refused_at_its_line(demo: Path, tmp_path: Path) -> None:
    log = _inspect(tmp_path, {SWE[0]: "C", SWE[1]: "I"}, suffix=".json")
    text = log.read_text()
    assert text.count('"value": "I"') == 1
    text = text.replace('"value": "I"', '"value": NaN')  # as Inspect's writer writes float("nan")
    log.write_text(text)
    place = _after(text, '"value": ', 2)
    _refused(demo, "inspect", [log], "swe_v1", f"{log}:{place}: $.samples[1].scores.match.value: NaN is not JSON")


def test_wrong_task_version_in_a_json_log_is_refused_at_its_line(demo: Path, tmp_path: Path) -> None:
    log = _inspect(tmp_path, {SWE[0]: "C"}, task_version=4, suffix=".json")
    place = _after(log.read_text(), '"task_version": ')
    _refused(
        demo,
        "inspect",
        [log],
        "swe_v1",
        f"{log}:{place}: $.eval.task_version: swe_slice ran at task version 4; the frozen version is swe_v1",
    )


def test_wrong_task_version_in_an_eval_log_names_the_header_member(demo: Path, tmp_path: Path) -> None:
    log = _inspect(tmp_path, {SWE[0]: "C"}, task_version=4, suffix=".eval")
    _refused(
        demo,
        "inspect",
        [log],
        "swe_v1",
        f"{log}::header.json: $.eval.task_version: swe_slice ran at task version 4; the frozen version is swe_v1",
    )


def test_unknown_sample_in_a_json_log_is_refused_at_its_id(demo: Path, tmp_path: Path) -> None:
    log = _inspect(tmp_path, {SWE[0]: "C", SWE[1]: "C", "toyshop__cart-999": "I"}, suffix=".json")
    place = _at(log.read_text(), '"toyshop__cart-999"')
    _refused(
        demo,
        "inspect",
        [log],
        "swe_v1",
        f"{log}:{place}: $.samples[2].id: 'toyshop__cart-999' names no landed fixture of swe_v1",
    )


def test_unknown_sample_in_an_eval_log_names_its_member(demo: Path, tmp_path: Path) -> None:
    log = _inspect(tmp_path, {SWE[0]: "C", "toyshop__cart-999": "I"}, suffix=".eval")
    _refused(
        demo,
        "inspect",
        [log],
        "swe_v1",
        f"{log}::samples/toyshop__cart-999_epoch_1.json: $.id: 'toyshop__cart-999' names no landed fixture",
    )


def test_json_log_without_samples_is_refused_at_its_empty_list(demo: Path, tmp_path: Path) -> None:
    log = _inspect(tmp_path, {}, suffix=".json")
    place = _after(log.read_text(), '\n  "samples": ')  # the log's own, not eval.dataset's
    _refused(demo, "inspect", [log], "swe_v1", f"{log}:{place}: $.samples: the log holds no samples")


def test_eval_log_whose_header_gives_a_key_twice_is_refused_at_the_member_line(demo: Path, tmp_path: Path) -> None:
    """Inspect's reader would take the last copy (task version 1, the frozen one) and import the log."""
    log = _inspect(tmp_path, {SWE[0]: "C", SWE[1]: "I"})
    header = _member(log, "header.json")
    assert header.count('"task_version":1,') == 1
    header = header.replace('"task_version":1,', '"task_version":4,"task_version":1,')
    evalzip.rewrite(log, {"header.json": header.encode()})
    first_line, first_col = _at(header, '"task_version"').split(":")
    second = _at(header, '"task_version"', 2)  # the copy given twice: the strict reader stops there
    _refused(
        demo,
        "inspect",
        [log],
        "swe_v1",
        f"{log}::header.json:{second}: $.eval",
        f"key 'task_version' is given twice (first at line {first_line}, column {first_col}): give it once",
    )


def test_eval_log_with_a_nan_score_is_refused_at_the_sample_member_line(demo: Path, tmp_path: Path) -> None:
    """Inspect's writer writes a scorer's float("nan") as a bare NaN, in the sample's member and in
    its summary (which Inspect's summary reader parses as a number)."""
    log = _inspect(tmp_path, {SWE[0]: "C", SWE[1]: "I"})
    member = f"samples/{SWE[1]}_epoch_1.json"
    sample, summaries = _member(log, member), _member(log, "summaries.json")
    assert sample.count('"value":"I"') == 1 and summaries.count('"value":"I"') == 1
    sample = sample.replace('"value":"I"', '"value":NaN')
    evalzip.rewrite(
        log, {member: sample.encode(), "summaries.json": summaries.replace('"value":"I"', '"value":NaN').encode()}
    )
    place = _after(sample, '"value":')
    _refused(demo, "inspect", [log], "swe_v1", f"{log}::{member}:{place}: $.scores.match.value: NaN is not JSON")


def test_eval_log_whose_summary_alone_gives_a_key_twice_is_refused_at_the_summaries_line(
    demo: Path, tmp_path: Path
) -> None:
    """The summaries are what Inspect's summary reader parses (the score freezer imports); when the
    sample's own member does not say the same, the refusal stays at the summaries."""
    log = _inspect(tmp_path, {SWE[0]: "C", SWE[1]: "I"})
    summaries = _member(log, "summaries.json")
    assert summaries.count('"value":"I",') == 1
    summaries = summaries.replace('"value":"I",', '"value":"C","value":"I",')
    evalzip.rewrite(log, {"summaries.json": summaries.encode()})
    second = _at(summaries, '"value"', 3)  # the first summary's value, then the two of the second
    _refused(demo, "inspect", [log], "swe_v1", f"{log}::summaries.json:{second}: $[1].scores.match", "given twice")
