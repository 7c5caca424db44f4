"""A fixture whose YAML is not a mapping (a list, a string, a number, null) gets one problem,
that it is not an object, and no second, false one about a field it cannot have."""

from __future__ import annotations

from pathlib import Path

from conftest import assert_clean_failure, run_inprocess


def test_a_fixture_that_is_not_a_mapping_gets_one_problem(reg: Path) -> None:
    texts = {"list": "- a\n- b\n", "text": "just text\n", "number": "42\n", "null": "null\n"}
    for name, text in texts.items():
        (reg / "drafts/graph" / f"{name}.yaml").write_text(text, encoding="utf-8")
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    for name in texts:
        lines = [line for line in result.out.splitlines() if line.startswith(f"drafts/graph/{name}.yaml")]
        # null reads as a file with no fields at all; the others as a value of the wrong type
        expected = (
            "holds no fields (it is empty, comments only or null): expected an object"
            if name == "null"
            else "expected object"
        )
        assert len(lines) == 1 and expected in lines[0], (name, result.out)
    assert "not allowed here" not in result.out, result.out
