"""A suite's METHOD.md template over the size limit is refused by ``validate`` (exit 1), naming
freezer.yaml's line for ``template:`` and the limit, so ``cut --dry-run`` never runs every check to
stop at the render. The real CLI (in-process: the interpreter's start is not the subject), on a real registry."""

from __future__ import annotations

from pathlib import Path

from freezer.runtime.limits import MAX_TEMPLATE_BYTES

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all

FRAME = "# Method\n\n{{ delta_block }}\n"


def _use_template(reg: Path, text: bytes, name: str = "method.j2") -> int:
    (reg / name).write_bytes(text)
    config = reg / "freezer.yaml"
    named = f"versions: versions\n    template: {name}"
    lines = config.read_text(encoding="utf-8").replace("versions: versions", named)
    config.write_text(lines, encoding="utf-8")
    commit_all(reg, "own template")
    return next(i for i, line in enumerate(lines.splitlines(), 1) if line.strip() == f"template: {name}")


def test_a_template_over_the_limit_is_refused_by_validate_at_its_config_line(reg: Path) -> None:
    for size in (MAX_TEMPLATE_BYTES + 1, 2 << 20):
        config = (reg / "freezer.yaml").read_text(encoding="utf-8")
        line = _use_template(reg, (FRAME + "x" * size).encode())
        result = run_inprocess("validate", cwd=reg)
        assert_clean_failure(result)
        assert f"freezer.yaml:{line}:" in result.out and f"{MAX_TEMPLATE_BYTES:,}" in result.out, result.out
        dry = run_inprocess("cut", "v1", "--dry-run", cwd=reg)
        assert_clean_failure(dry)
        assert f"freezer.yaml:{line}:" in dry.text, dry.text
        (reg / "freezer.yaml").write_text(config, encoding="utf-8")


def test_a_template_that_is_not_utf8_or_not_a_file_is_refused_by_validate(reg: Path) -> None:
    config = (reg / "freezer.yaml").read_text(encoding="utf-8")
    line = _use_template(reg, FRAME.encode() + b"\xff\xfe")
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    assert f"freezer.yaml:{line}:" in result.out and "UTF-8" in result.out, result.out
    (reg / "freezer.yaml").write_text(config, encoding="utf-8")


def test_a_template_within_the_limit_still_cuts(reg: Path) -> None:
    # After a blank line: text on the next line would join §Delta's last sentence (issue 36).
    _use_template(reg, (FRAME + "\n" + "x" * 1000).encode())
    assert run_inprocess("validate", cwd=reg).code == 0
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
