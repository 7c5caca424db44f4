"""A kind is added in one place: a class registered in the catalog of kinds (freezer.kinds.catalog.KINDS).

The toy kind here reads one fixture per line of a text file (``id<TAB>prompt``). Registered and
nowhere else made known, a suite of it validates, cuts, audits and compares end to end, as a
suite of a shipped kind does; unregistered, freezer refuses the name in one clear message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.demo.samplecode import TOOL_SURFACE
from freezer.domain.fixturekind import FixtureKindRecord
from freezer.domain.problems import Problem
from freezer.kinds import catalog
from freezer.kinds.base import BenchmarkKind, Files, KindFixture, KindRead, LocatedDocument, identify
from freezer.parse.document import YamlDocument

from conftest import EXAMPLES, assert_clean_failure, run_inprocess
from registry_helpers import commit_all

LINES_SUITE = """\
  notes:
    kind: lines
    drafts: drafts/notes
    fixtures: "tasks/*.txt"
    versions: versions
    code_repo: sample-code
    tool_surface:
{globs}
"""
GLOBS = "\n".join(f"      - {glob!r}" for glob in TOOL_SURFACE)
PROMPTS = {"n1": "Name the entry point.", "n2": "Where is the index built?", "n3": "Which flag disables colour?"}


class LinesKind(BenchmarkKind):
    """Each non-empty line of a claimed file is one fixture: its id, a tab, its prompt."""

    file_fields: tuple[str, ...] = ()

    def __init__(self, record: FixtureKindRecord) -> None:
        self.record = record

    def claims(self, rel: str) -> bool:
        return rel.endswith(".txt")

    def read(self, files: Files) -> KindRead:
        found = KindRead()
        for rel in sorted(files.paths):
            data = files.bytes_of(rel, 1 << 20)
            if isinstance(data, Problem):
                found.problems.append(data)
                continue
            rows = [line.split("\t", 1) for line in data.decode("utf-8").splitlines() if line]
            parent = YamlDocument(files.display(rel), [{"prompt": row[-1]} for row in rows])
            for index, row in enumerate(rows):
                identity = identify(self.record, {"prompt": row[-1]}, parent, (index,), row[0])
                if isinstance(identity, Problem):
                    found.problems.append(identity)
                    continue
                task_id, status, parsed, aliases = identity
                located = LocatedDocument(parent.display, parsed, parent, (index,), aliases)
                found.fixtures.append(KindFixture(task_id, status, (rel,), {"prompt": row[-1]}, located))
        return found


def _version_yaml(number: int) -> str:
    text = (EXAMPLES / "generic/v1/version.yaml").read_text(encoding="utf-8")
    text = text.replace("suite: api\n", "suite: notes\n").replace("version: 1\n", f"version: {number}\n")
    return text.replace("reference: examples/generic/README.md", "reference: the tests")


def _lines(prompts: dict[str, str]) -> str:
    return "".join(f"{task}\t{prompt}\n" for task, prompt in prompts.items())


def _notes(reg: Path) -> Path:
    config = reg / "freezer.yaml"
    config.write_text(config.read_text() + LINES_SUITE.format(globs=GLOBS))
    drafts = reg / "drafts" / "notes"
    (drafts / "tasks").mkdir(parents=True)
    (drafts / "version.yaml").write_text(_version_yaml(1))
    (drafts / "tasks" / "all.txt").write_text(_lines(PROMPTS))
    (drafts / "README.md").write_text("Prompts written for freezer's tests.\n")
    commit_all(reg, "notes drafts")
    return drafts


def test_a_kind_registered_in_the_catalog_alone_is_cut_audited_and_compared(
    reg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(catalog.KINDS, "lines", LinesKind)
    drafts = _notes(reg)
    checked = run_inprocess("validate", "--suite", "notes", "--format", "json", cwd=reg)
    assert checked.code == 0, checked.text
    assert json.loads(checked.out)["result"]["sets"][0]["fixtures"] == sorted(PROMPTS)
    cut = run_inprocess("cut", "notes_v1", cwd=reg)
    assert cut.code == 0, cut.text
    manifest = json.loads((reg / "versions/notes_v1/manifest.json").read_text())
    assert manifest["fixture_kind"] == {"kind": "lines", "fixtures": "tasks/*.txt"}
    assert manifest["contents"] == {"fixtures": ["tasks/all.txt"], "assets": ["README.md"]}
    assert sorted(manifest["comparability"]["fixtures"]) == sorted(PROMPTS)
    audit = run_inprocess("audit", "notes_v1", cwd=reg)
    assert audit.code == 0, audit.text
    commit_all(reg, "freeze notes_v1")

    (drafts / "version.yaml").write_text(_version_yaml(2))
    (drafts / "tasks" / "all.txt").write_text(_lines({**PROMPTS, "n2": "Where is the index written?"}))
    cut = run_inprocess("cut", "notes_v2", cwd=reg)
    assert cut.code == 0, cut.text
    delta = json.loads((reg / "versions/notes_v2/delta.json").read_text())["fixtures"]
    assert [f["task_id"] for f in delta["changed"]] == ["n2"]
    assert [c["path"] for c in delta["changed"][0]["fields"]] == ["$.prompt"]
    assert delta["unchanged"] == ["n1", "n3"]
    compared = run_inprocess("compare", "notes_v1", "notes_v2", "--format", "json", cwd=reg)
    assert compared.code == 0, compared.text
    [arm] = json.loads(compared.out)["result"]["arms"]
    assert list(arm["excluded"]) == ["n2"] and "prompt" in arm["excluded"]["n2"]
    assert arm["comparable"] == ["n1", "n3"]
    for name in ("notes_v1", "notes_v2"):
        audit = run_inprocess("audit", name, cwd=reg)
        assert audit.code == 0, audit.text


def test_a_kind_no_catalog_registers_is_refused_at_the_config(reg: Path) -> None:
    _notes(reg)
    result = run_inprocess("validate", "--suite", "notes", cwd=reg)
    assert_clean_failure(result)
    assert "'lines' is not one of 'graph', 'generic', 'folders', 'records', 'lm-eval'" in result.text
