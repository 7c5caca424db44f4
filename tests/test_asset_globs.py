"""Issue 26: a fixture's ``assets:`` and ``graders:`` may name a folder (``data/``) or a git glob
(``data/*.csv``) besides a file. validate expands and checks them; the fixture digests and "changed
through their files" cover every file matched; the frozen fixture keeps what its author wrote and
audit recomputes the expansion from the frozen version alone. Real registries in tmp_path."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from freezer.git.globs import compile_glob
from freezer.validate.namedfiles import AssetFiles

from conftest import run_inprocess
from registry_helpers import commit_all

FIXTURE = """task_id: {task}
status: landed
class: explain
question: What does {task} read?
ground_truth:
  - file: crates/orbit-core/src/runtime/pipeline.rs
    line: 122
    symbol: ToolContext {{
oracle:
  must_include: [pipeline.rs]
  must_not_include: []
{key}:
  - {entry}
"""
DATA = {
    "data/shared/a.json": '{"a": 1}\n',
    "data/shared/deep/b.json": '{"b": 2}\n',
    "data/tables/one.csv": "x,y\n1,2\n",
    "data/tables/two.csv": "x,y\n3,4\n",
    "data/tables/readme.txt": "tables of numbers\n",
    "graders/check.py": "print('pass')\n",
}
# Each fixture by what it names: a folder, a glob, a folder without its slash, a plain file.
USES = {
    "by-folder": ("assets", "data/shared/"),
    "by-glob": ("assets", "'data/tables/*.csv'"),
    "by-bare-folder": ("graders", "graders"),
    "by-file": ("assets", "data/tables/readme.txt"),
}


def _cut(reg: Path, label: str) -> None:
    result = run_inprocess("cut", label, "--suite", "api", cwd=reg)
    assert result.code == 0, result.text


@pytest.fixture
def globbed(api: Path) -> Path:
    """api_v1 with four more fixtures, each naming its files by folder, glob, bare folder or file."""
    drafts = api / "drafts/api"
    for rel, text in DATA.items():
        (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts / rel).write_text(text)
    for task, (key, entry) in USES.items():
        (drafts / f"fixtures/{task}.yaml").write_text(FIXTURE.format(task=task, key=key, entry=entry))
    _cut(api, "v1")
    commit_all(api, "freeze api_v1")
    return api


def _v2(reg: Path, change: dict[str, str | None]) -> dict[str, str]:
    """Cut api_v2 with ``change`` applied to the drafts (None removes a file); the classes compare gives."""
    drafts = reg / "drafts/api"
    for rel, text in change.items():
        if text is None:
            (drafts / rel).unlink()
        else:
            (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
            (drafts / rel).write_text(text)
    version = drafts / "version.yaml"
    version.write_text(version.read_text().replace("version: 1\n", "version: 2\n", 1))
    _cut(reg, "v2")
    commit_all(reg, "freeze api_v2")
    compared = run_inprocess("compare", "api_v1", "api_v2", "--format", "json", cwd=reg)
    assert compared.code == 0, compared.text
    classes: dict[str, str] = json.loads(compared.out)["result"]["arms"][0]["classes"]
    return classes


def test_the_frozen_fixture_keeps_the_entry_and_audit_recomputes_it(globbed: Path) -> None:
    version = globbed / "versions/api_v1"
    for task in USES:
        rel = f"fixtures/{task}.yaml"
        assert (version / rel).read_bytes() == (globbed / "drafts/api" / rel).read_bytes()
    for rel in DATA:
        assert (version / rel).read_text() == DATA[rel]
    manifest = json.loads((version / "manifest.json").read_text())
    digests = manifest["comparability"]["fixtures"]
    assert len({digests[task]["input"] for task in USES}) == len(USES)
    audit = run_inprocess("audit", cwd=globbed)
    assert audit.code == 0, audit.text


@pytest.mark.parametrize(
    ("change", "moved", "files"),
    [
        ({"data/shared/deep/b.json": '{"b": 3}\n'}, "by-folder", ["data/shared/deep/b.json"]),
        ({"data/shared/new.json": "{}\n"}, "by-folder", ["data/shared/new.json"]),
        ({"data/tables/two.csv": "x,y\n3,5\n"}, "by-glob", ["data/tables/two.csv"]),
        ({"data/tables/one.csv": None}, "by-glob", ["data/tables/one.csv"]),
        ({"graders/check.py": "print('fail')\n"}, "by-bare-folder", ["graders/check.py"]),
        ({"data/tables/readme.txt": "tables\n"}, "by-file", ["data/tables/readme.txt"]),
    ],
)
def test_one_file_edited_moves_exactly_the_fixtures_that_use_it(
    globbed: Path, change: dict[str, str | None], moved: str, files: list[str]
) -> None:
    classes = _v2(globbed, change)
    landed = {*USES, "add-timeout-flag", "explain-pipeline"}
    assert classes == {task: "changed" if task == moved else "unchanged" for task in landed}
    version = globbed / "versions/api_v2"
    delta = json.loads((version / "delta.json").read_text())
    assert delta["fixtures"]["changed"] == []
    assert delta["fixtures"]["changed_through_files"] == [{"task_id": moved, "files": files}]
    old = json.loads((globbed / "versions/api_v1/manifest.json").read_text())["comparability"]["fixtures"]
    new = json.loads((version / "manifest.json").read_text())["comparability"]["fixtures"]
    assert {task for task in landed if old[task] != new[task]} == {moved}
    diff = run_inprocess("diff", "api_v1", "api_v2", cwd=globbed)
    assert f"  ~ {moved} through its files: {', '.join(files)} changed" in diff.out, diff.out
    audit = run_inprocess("audit", cwd=globbed)
    assert audit.code == 0, audit.text


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("'data/none/*.csv'", "the glob 'data/none/*.csv' matches no asset in the drafts"),
        ("data/missing/", "no file 'data/missing/' in the drafts"),
        ("'fixtures/*.yaml'", "the glob 'fixtures/*.yaml' matches no asset in the drafts"),
        ("./data/shared/", "holds an empty or '.' folder"),
        ("data//shared/", "holds an empty or '.' folder"),
        ("../data/", "climbs out with '..'"),
        ("'data/[tables/*.csv'", "data/[tables/*.csv"),
    ],
)
def test_validate_refuses_an_entry_that_names_no_asset(api: Path, entry: str, says: str) -> None:
    drafts = api / "drafts/api"
    for rel, text in DATA.items():
        (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts / rel).write_text(text)
    fixture = drafts / "fixtures/bad.yaml"
    fixture.write_text(FIXTURE.format(task="bad", key="assets", entry=entry))
    result = run_inprocess("validate", str(drafts), cwd=api)
    assert result.code == 1, result.text
    assert "$.assets[0]" in result.out and says in result.out, result.out
    assert "Traceback" not in result.text


def test_expand_agrees_with_matching_every_file() -> None:
    """The bisect on the entry's literal part finds exactly what matching every asset finds."""
    rng = random.Random(26)
    parts = ["data", "d", "data2", "tables", "t.csv", "x.json", "a b", "é.csv"]
    assets = sorted({"/".join(rng.choice(parts) for _ in range(rng.randint(1, 4))) for _ in range(400)})
    files = AssetFiles(dict.fromkeys(assets, ""))
    for entry in ["data/", "data", "d", "data/*.csv", "*/t.csv", "data/**/x.json", "d?ta/*", "data/[td]*", "**"]:
        glob = compile_glob(entry)
        wanted = tuple(rel for rel in assets if glob.matches(rel))
        if entry in assets:
            assert files.expand(entry) is None
        else:
            assert (files.expand(entry) or ()) == wanted, entry
