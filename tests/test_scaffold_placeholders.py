"""The prose freezer init writes where only the author knows what is true (a version's purpose, the
binary's build, the provenance, a graph fixture's explanations) is refused by a cut at its line, as a
``TODO(freezer …)`` line is, so the first week never freezes it; it comes from one list
(scaffold.PLACEHOLDERS) that the templates and the check share. Real registries and git in tmp_path.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from freezer.freeze.scaffold import PLACEHOLDERS, plan

from conftest import REPO, assert_clean_failure, run_inprocess
from registry_helpers import small_code_repo, snapshot

REAL_FIXTURE = (
    "task_id: find-main\nstatus: landed\nclass: locate\nquestion: Where is main defined?\n"
    "ground_truth: [{file: src/main.py, line: 1, symbol: def main}]\n"
    "oracle: {must_include: [main.py], must_not_include: []}\n"
)


def _first_week(tmp_path: Path) -> Path:
    """init with the code repository, the example replaced by a real task: only the prose is left."""
    small_code_repo(tmp_path / "code")
    made = run_inprocess("init", "reg", "--code-repo", "code", cwd=tmp_path)
    assert made.code == 0, made.text
    root = tmp_path / "reg"
    (root / "drafts/bench/fixtures/example-task.yaml").unlink()
    (root / "drafts/bench/fixtures/find-main.yaml").write_text(REAL_FIXTURE)
    return root


def _placeholder_lines(path: Path) -> list[int]:
    lines = path.read_text().splitlines()
    return [n for n, line in enumerate(lines, 1) if any(text in line for text in PLACEHOLDERS.values())]


def test_the_first_week_cut_refuses_each_placeholder_line_of_version_yaml(tmp_path: Path) -> None:
    root = _first_week(tmp_path)
    version = root / "drafts/bench/version.yaml"
    expected = _placeholder_lines(version)
    assert len(expected) == 4  # purpose, build_sha_unknown, mechanism, provenance_text
    before = snapshot(root)
    cut = run_inprocess("cut", "v1", cwd=root)
    assert_clean_failure(cut)
    assert snapshot(root) == before and not (root / "versions").exists()
    refused = sorted(int(n) for n in re.findall(r"drafts/bench/version\.yaml:(\d+):\d+: ", cut.err))
    assert refused == expected, cut.err
    assert "Why this version exists" in cut.err and "not recorded yet" in cut.err
    assert "write this version's own text in its place" in cut.err


def test_the_first_week_cuts_once_the_prose_is_the_authors(tmp_path: Path) -> None:
    root = _first_week(tmp_path)
    version = root / "drafts/bench/version.yaml"
    text = version.read_text()
    for name, own in {
        "purpose": "The first cut: where main is defined.",
        "build_sha_unknown": "no binary: the agent reads the files",
        "mechanism": "reads the files",
        "provenance_text": "Hand-written from src/main.py.",
    }.items():
        text = text.replace(PLACEHOLDERS[name], own)
    version.write_text(text)
    cut = run_inprocess("cut", "v1", cwd=root)
    assert cut.code == 0, cut.text
    method = (root / "versions/bench_v1/METHOD.md").read_text()
    assert "The first cut: where main is defined." in method
    assert not [text for text in PLACEHOLDERS.values() if text in method]


def test_a_graph_fixture_copied_from_the_example_keeps_no_placeholder(tmp_path: Path) -> None:
    small_code_repo(tmp_path / "code")
    assert run_inprocess("init", "reg", "--kind", "graph", "--code-repo", "code", cwd=tmp_path).code == 0
    fixture = tmp_path / "reg/drafts/bench/fixtures/example-task.yaml"
    copied = fixture.parent / "find-main.yaml"
    copied.write_text(fixture.read_text().replace("task_id: example-task", "task_id: find-main"))
    fixture.unlink()
    expected = _placeholder_lines(copied)
    assert len(expected) == 3  # why_grep_fails, the tool, resolution
    cut = run_inprocess("cut", "v1", "--dry-run", cwd=tmp_path / "reg")
    refused = {int(n) for n in re.findall(r"fixtures/find-main\.yaml:(\d+):\d+: \$: still holds", cut.text)}
    assert refused == set(expected), cut.text


@pytest.mark.parametrize("kind", ["generic", "graph", "folders", "records", "lm-eval"])
def test_every_placeholder_the_templates_write_comes_from_the_one_list(tmp_path: Path, kind: str) -> None:
    files, _ = plan(tmp_path / "reg", "bench", kind, None)
    written = "\n".join(files.values())
    for name in (REPO / "templates/init").iterdir():
        template = name.read_text()
        assert not [text for text in PLACEHOLDERS.values() if text in template], name  # named, never copied
    assert PLACEHOLDERS["purpose"] in written  # every kind's version.yaml asks for its purpose


def test_every_placeholder_is_written_by_some_kind(tmp_path: Path) -> None:
    written = "\n".join(
        text for kind in ("generic", "graph") for text in plan(tmp_path, "bench", kind, None)[0].values()
    )
    assert [name for name, text in PLACEHOLDERS.items() if text not in written] == []
