"""Issue 25, class 8: a change to a file a fixture names is that fixture's change, said where a
reader looks (§Delta, ``freezer diff``, ``compare``), and ``compare`` never gives an empty reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.compare import comparability
from freezer.compare.comparability import _what_changed
from freezer.compare.deltamodel import FilesChange, FixtureDelta
from freezer.registry.config import load as load_config
from freezer.registry.model import Suite
from freezer.registry.record import read

from conftest import run_inprocess
from registry_helpers import commit_all

PATCH = "assets/add-timeout-flag/expected.patch"
TARBALL = "assets/add-timeout-flag/repo.tar.gz"
GRADER = "assets/explain-pipeline/grade.py"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def asset_only(api: Path) -> Path:
    """api_v1, then api_v2 whose only changes are the bytes of files fixtures name: an asset and a
    grader of two fixtures, the fixtures' YAML untouched."""
    drafts = api / "drafts/api"
    (drafts / GRADER).parent.mkdir(parents=True)
    (drafts / GRADER).write_text("print('pass')\n")
    _edit(drafts / "fixtures/explain-pipeline.yaml", "metadata:\n", f"graders:\n  - {GRADER}\nmetadata:\n")
    assert run_inprocess("cut", "api_v1", cwd=api).code == 0
    commit_all(api, "freeze api_v1")
    _edit(drafts / "version.yaml", "version: 1\n", "version: 2\n")
    (drafts / PATCH).write_text("--- a/src/lib.rs\n+++ b/src/lib.rs\n")
    (drafts / GRADER).write_text("print('fail')\n")
    cut = run_inprocess("cut", "v2", "--suite", "api", cwd=api)
    assert cut.code == 0, cut.text
    commit_all(api, "freeze api_v2")
    return api


def test_an_asset_only_change_is_attributed_to_its_fixtures_everywhere(asset_only: Path) -> None:
    version = asset_only / "versions/api_v2"
    delta = json.loads((version / "delta.json").read_text())
    assert delta["fixtures"]["changed"] == []
    assert delta["fixtures"]["changed_through_files"] == [
        {"task_id": "add-timeout-flag", "files": [PATCH]},
        {"task_id": "explain-pipeline", "files": [GRADER]},
    ]
    method = (version / "METHOD.md").read_text()
    assert "No fixture present in both versions changed." not in method
    assert "Changed through their files, the same names with new content (2):" in method
    assert f"- `add-timeout-flag` (`{PATCH}` changed)" in method
    assert f"- `explain-pipeline` (`{GRADER}` changed)" in method

    diff = run_inprocess("diff", "api_v1", "api_v2", cwd=asset_only)
    assert diff.code == 0, diff.text
    assert f"  ~ add-timeout-flag through its files: {PATCH} changed" in diff.out
    assert f"  ~ explain-pipeline through its files: {GRADER} changed" in diff.out

    compared = run_inprocess("compare", "api_v1", "api_v2", "--format", "json", cwd=asset_only)
    assert compared.code == 0, compared.text
    records = json.loads(compared.out)["result"]["arms"]
    excluded = {task: why for record in records for task, why in record["excluded"].items()}
    assert f"its file {PATCH} changed" in excluded["add-timeout-flag"], excluded
    assert f"its file {GRADER} changed" in excluded["explain-pipeline"], excluded
    for why in excluded.values():
        assert not why.rstrip().endswith(":"), why
    text = run_inprocess("compare", "api_v1", "api_v2", cwd=asset_only)
    assert f"its file {PATCH} changed" in text.out and "grades it: \n" not in text.out + "\n", text.out

    audit = run_inprocess("audit", "api_v2", cwd=asset_only)
    assert audit.code == 0, audit.text


def test_frozen_comparability_formats_keep_their_reasons(asset_only: Path) -> None:
    """Comparability format 2, which versions cut before this froze, is recomputed as it was."""
    suite = load_config(asset_only).suites["api"]
    frozen = Suite.of(suite).versions()
    chain = [read(v).side() for v in frozen]
    meanings = {"surface": ""}
    groups = {"graders": "grading", "assets": "input", "question": "input", "prompt": "input", "metadata": "cosmetic"}
    arms = {"all": ["binary", "code"]}
    old = comparability.compare(chain, meanings, arms, groups, record_format=2)[0]
    new = comparability.compare(chain, meanings, arms, groups)[0]
    assert old.excluded["add-timeout-flag"] == "changed what the agent sees or what grades it: "
    assert (
        new.excluded["add-timeout-flag"] == f"changed what the agent sees or what grades it: its file {PATCH} changed"
    )
    assert new.excluded["explain-pipeline"].endswith(f"its file {GRADER} changed")


@pytest.mark.parametrize(
    ("old", "new", "files", "expected"),
    [
        # Nothing but the file's bytes: the file is named.
        ({"assets": ["a.sh"]}, {"assets": ["a.sh"]}, ({"a.sh": "1"}, {"a.sh": "2"}), "its file a.sh changed"),
        # A field and two files (grading and input), each named once.
        (
            {"prompt": "x", "assets": ["a.sh"], "graders": ["g.py", "a.sh"]},
            {"prompt": "y", "assets": ["a.sh"], "graders": ["g.py", "a.sh"]},
            ({"a.sh": "1", "g.py": "1"}, {"a.sh": "2", "g.py": "2"}),
            "prompt, its file a.sh changed, its file g.py changed",
        ),
        # true for 1: equal to Python, not to the digest.
        ({"budget": 1}, {"budget": True}, ({}, {}), "budget"),
        # A hash missing on one side is a change, as the digests see it; missing on both is none.
        ({"assets": ["a.sh"]}, {"assets": ["a.sh"]}, ({"a.sh": "1"}, {}), "its file a.sh changed"),
        ({"assets": ["a.sh"]}, {"assets": ["a.sh"]}, ({}, {"a.sh": ""}), "its input or grading digest changed"),
        # Nothing nameable at all: still a reason, never "...: ".
        ({"graders": ["g.py"]}, {"graders": ["g.py"]}, ({}, {}), "its input or grading digest changed"),
    ],
)
def test_what_changed_is_never_empty(
    old: dict[str, object], new: dict[str, object], files: tuple[dict[str, str], dict[str, str]], expected: str
) -> None:
    groups = {"graders": "grading"}
    assert _what_changed(old, new, groups, files) == expected


def test_through_files_round_trip_and_are_absent_before_format_4() -> None:
    counts: dict[str, object] = {"before": {}, "after": {}, "added": [], "removed": []}
    data = {"added": [], "removed": [], "changed": [], "unchanged": ["a"], "classes": counts}
    assert FixtureDelta.from_json(data).to_json() == data  # formats 2 and 3: no new key
    later = {**data, "changed_through_files": [{"task_id": "a", "files": ["x", "y"]}]}
    typed = FixtureDelta.from_json(later)
    assert typed.through_files == (FilesChange("a", ("x", "y")),) and typed.to_json() == later
