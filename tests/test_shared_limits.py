"""One table of size limits (freezer/runtime/limits.py) shared by validate, cut and every reader.

What cut accepts, audit, show, compare, site and freezer.load can read; what a reader would refuse
is refused at validate and cut first, with the file and the limit named.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from test_kind_folders import _tb
from test_kind_lmeval import _bbh
from test_kind_records import _record, _swe, _version_yaml

from freezer.runtime import limits

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all

FREEZER = Path(__file__).resolve().parent.parent / "freezer"


def _names_limit(text: str, limit: int) -> bool:
    return f"{limit:,}-byte limit" in text or f"{limit}-byte limit" in text


def _constants(module: Path) -> set[str]:
    """The module-level names a module assigns that read as a size or count limit."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    found = set()
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and "MAX" in target.id and "BYTES" in target.id:
                found.add(target.id)
    return found


def test_every_reader_takes_its_byte_limits_from_the_one_table() -> None:
    """No module of the readers validate, cut, audit, show, compare, site and the results readers share
    defines its own byte limit: they are all in freezer/runtime/limits.py."""
    readers = [
        "runtime/reading.py",
        "kinds",
        "parse",
        "registry",
        "resolve",
        "validate",
        "freeze",
        "guard",
        "site",
        "schema",
        "query",
    ]
    owners = {}
    for part in readers:
        root = FREEZER / part
        for module in [root] if root.is_file() else sorted(root.rglob("*.py")):
            if "_compiled" in module.parts:
                continue
            owners.update(dict.fromkeys(_constants(module), module.relative_to(FREEZER).as_posix()))
    assert owners == {}
    assert {
        "MAX_WHOLE_FILE_BYTES",
        "MAX_DOCUMENT_BYTES",
        "MAX_RECORD_BYTES",
        "MAX_FILE_BYTES",
        "MAX_RESULTS_FILE_BYTES",
        "MAX_INSPECT_MEMBER_BYTES",
    } <= _constants(FREEZER / "runtime/limits.py")


def _big_records(drafts: Path, size: int) -> int:
    """A JSON Lines file of SWE-bench-sized records (~35 KB each) of more than ``size`` bytes."""
    part = drafts / "instances" / "part2.jsonl"
    filler = "x" * 34_000
    count = 0
    with part.open("w", encoding="utf-8") as out:
        written = 0
        while written <= size:
            record = _record(f"big__big-{count}", note=" " + filler)
            line = json.dumps(record) + "\n"
            out.write(line)
            written += len(line)
            count += 1
    return count


@pytest.mark.slow
def test_a_records_file_over_64_mib_cuts_and_every_reader_reads_it(reg: Path) -> None:
    drafts = _swe(reg)
    count = _big_records(drafts, (64 << 20) + (1 << 20))
    assert (drafts / "instances" / "part2.jsonl").stat().st_size > 64 << 20
    commit_all(reg, "a records file over 64 MiB")
    cut = run_inprocess("cut", "swe_v1", cwd=reg)
    assert cut.code == 0, cut.text
    commit_all(reg, "freeze swe_v1")
    (drafts / "version.yaml").write_text(_version_yaml(2))
    cut = run_inprocess("cut", "swe_v2", cwd=reg)
    assert cut.code == 0, cut.text
    commit_all(reg, "freeze swe_v2")
    shown = ""
    for command in (
        ("audit", "swe_v1"),
        ("show", "swe_v1", "--format", "json"),
        ("show", "swe_v1"),
        ("compare", "swe_v1", "swe_v2", "--format", "json"),
        ("site", str(reg.parent / "site")),
    ):
        result = run_inprocess(*command, cwd=reg)
        assert result.code == 0, (command, result.text[-2000:])
        assert "limit" not in result.text, (command, result.text[-2000:])
        if command == ("show", "swe_v1", "--format", "json"):
            shown = result.out  # read-only: running it again after the others printed the same bytes
    assert shown.count("big__big-") >= count
    assert (reg.parent / "site" / "swe" / "swe_v1").exists() or any((reg.parent / "site").rglob("*big__big-7*"))


def test_a_records_file_over_the_whole_file_limit_is_refused_at_validate_and_cut_by_name(reg: Path) -> None:
    drafts = _swe(reg)
    big = drafts / "instances" / "part2.jsonl"
    with big.open("r+b") as out:  # sparse: no time or disk spent on the bytes
        out.truncate(limits.MAX_WHOLE_FILE_BYTES + 1)
    for command in (("validate", "--suite", "swe"), ("cut", "swe_v1")):
        result = run_inprocess(*command, cwd=reg)
        assert_clean_failure(result)
        assert "instances/part2.jsonl" in result.text
        assert _names_limit(result.text, limits.MAX_WHOLE_FILE_BYTES), result.text
    assert not (reg / "versions" / "swe_v1").exists()


def _over_the_document_cap(path: Path, head: str) -> None:
    """``head``, then comment lines to one byte past the document cap: valid YAML or TOML."""
    line = "# " + "padding " * 12 + "\n"
    path.write_text(head + line * (limits.MAX_DOCUMENT_BYTES // len(line) + 1), encoding="utf-8")
    assert path.stat().st_size > limits.MAX_DOCUMENT_BYTES


@pytest.mark.parametrize("name", ["tasks/logic-or.yaml", "tasks/_template.yaml"])
def test_an_lmeval_file_over_the_document_cap_is_refused_at_validate_and_cut(reg: Path, name: str) -> None:
    drafts = _bbh(reg)
    path = drafts / name
    _over_the_document_cap(path, path.read_text(encoding="utf-8"))
    for command in (("validate", "--suite", "bbh"), ("cut", "bbh_v1")):
        result = run_inprocess(*command, cwd=reg)
        assert_clean_failure(result)
        assert name in result.text, result.text
        assert _names_limit(result.text, limits.MAX_DOCUMENT_BYTES), result.text
    assert not (reg / "versions" / "bbh_v1").exists()


def test_a_folder_task_file_over_the_document_cap_is_refused_at_validate_and_cut(reg: Path) -> None:
    drafts = _tb(reg)
    path = drafts / "tasks" / "hello-world" / "task.toml"
    _over_the_document_cap(path, path.read_text(encoding="utf-8"))
    for command in (("validate", "--suite", "tb"), ("cut", "tb_v1")):
        result = run_inprocess(*command, cwd=reg)
        assert_clean_failure(result)
        assert "hello-world/task.toml" in result.text, result.text
        assert _names_limit(result.text, limits.MAX_DOCUMENT_BYTES), result.text
    assert not (reg / "versions" / "tb_v1").exists()


def test_an_lmeval_task_far_over_the_cap_is_refused_before_it_is_read(reg: Path) -> None:
    """A 200 MB task file (sparse) is refused by its size, as the cap, not as bytes YAML refuses."""
    drafts = _bbh(reg)
    path = drafts / "tasks" / "logic-or.yaml"
    with path.open("r+b") as out:
        out.truncate(200 << 20)
    result = run_inprocess("validate", "--suite", "bbh", cwd=reg)
    assert_clean_failure(result)
    assert "tasks/logic-or.yaml" in result.text and _names_limit(result.text, limits.MAX_DOCUMENT_BYTES)
    assert os.path.getsize(path) == 200 << 20
