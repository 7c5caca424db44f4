"""Finding: the one shape Problem and Failure are built on, printing and serialising as before."""

from __future__ import annotations

import pickle
from pathlib import Path

from freezer.domain.findings import Finding, Location
from freezer.domain.problems import Problem
from freezer.parse.yamlload import load_file
from freezer.registry.verdict import CodeVerdict, Failure, VersionAudit


def test_a_problem_is_a_finding_and_prints_as_before() -> None:
    problem = Problem("f.yaml", 3, 7, ("sites", 0, "odd key"), "is wrong", "schema")
    assert isinstance(problem, Finding)
    assert problem.where == Location("f.yaml", 3, 7) and problem.severity == "error"
    assert str(problem) == "f.yaml:3:7: $.sites[0]['odd key']: is wrong"
    assert problem.location() == "f.yaml:3:7" and str(Location("f.yaml", 3)) == "f.yaml:3"
    assert problem.to_json() == {
        "file": "f.yaml",
        "line": 3,
        "col": 7,
        "json_path": "$.sites[0]['odd key']",
        "layer": "schema",
        "message": "is wrong",
    }
    assert Problem("f.yaml").layer == "rule" and str(Problem("f.yaml", None, 2)) == "f.yaml: $: "


def test_problems_sort_and_compare_by_their_fields_as_before() -> None:
    late, early = Problem("b", 1, 1, (), "m"), Problem("a", 9, 9, (), "m")
    assert sorted([late, early]) == [early, late]
    assert Problem("a", 1, 1, (), "m", "yaml") != Problem("a", 1, 1, (), "m", "rule")
    assert len({Problem("a", 1), Problem("a", 1)}) == 1
    assert pickle.loads(pickle.dumps(late)) == late  # problems come back from forked workers


def test_a_failure_is_a_finding_and_prints_as_before(tmp_path: Path) -> None:
    failure = Failure("versions/g_v1/manifest.json", "does not match")
    assert isinstance(failure, Finding) and failure.where == Location("versions/g_v1/manifest.json")
    assert str(failure) == "versions/g_v1/manifest.json: does not match"
    assert pickle.loads(pickle.dumps(failure)) == failure  # audits come back from forked workers
    audit = VersionAudit("g_v1", tmp_path, failures=[failure], code=CodeVerdict("failed", "failed: the sha is gone"))
    assert audit.code_status == "failed"
    assert audit.to_json()["failures"] == [{"file": "versions/g_v1/manifest.json", "message": "does not match"}]


def test_a_located_problem_from_a_real_file(tmp_path: Path) -> None:
    path = tmp_path / "fixture.yaml"
    path.write_text("a: 1\nb:\n  - x\n  - {c: [1, 2\n", encoding="utf-8")
    [problem] = load_file(path, "fixture.yaml").problems
    assert problem.where.file == "fixture.yaml" and problem.where.line == 5
    ok = tmp_path / "ok.yaml"
    ok.write_text("a: 1\nb:\n  - x\n", encoding="utf-8")
    doc = load_file(ok, "ok.yaml").document
    assert doc is not None and doc.problem(("b", 0), "odd", "rule").where[1:] == (3, 5)
