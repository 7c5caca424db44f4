"""METHOD.md's count line and a first version's §Delta heading read as plain English."""

from __future__ import annotations

from pathlib import Path

from conftest import run_inprocess


def _method(reg: Path, name: str) -> str:
    return (reg / "versions" / name / "METHOD.md").read_text(encoding="utf-8")


def test_a_first_version_says_it_has_no_previous_one_and_names_its_classes(api: Path) -> None:
    assert run_inprocess("cut", "v1", "--suite", "graph", cwd=api).code == 0
    method = _method(api, "graph_v1")
    assert "## Delta vs the previous version: none, this is the first\n" in method
    assert "Delta vs v0" not in method
    assert "6 landed across 3 classes (impact, locate, trace); 0 dropped." in method


def test_a_version_of_one_class_does_not_count_classes(api: Path) -> None:
    fixture = api / "drafts/api/fixtures/explain-pipeline.yaml"
    fixture.write_text(fixture.read_text(encoding="utf-8").replace("class: explain", "class: edit"), encoding="utf-8")
    result = run_inprocess("cut", "v1", "--suite", "api", cwd=api)
    assert result.code == 0, result.text
    method = _method(api, "api_v1")
    assert "2 landed in class edit; 1 dropped." in method, [x for x in method.splitlines() if "landed" in x]
    assert "across 1 classes" not in method
