"""The hostile-input classes of issue 10 beyond git and paths: escaping, values, crashes and hangs.

Each test builds its case in a real registry and runs the real CLI in a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from freezer.cli.output import dumps, github_annotation
from freezer.domain.problems import Problem
from freezer.render.render import cell, code, text

from conftest import REPO, Run, assert_clean_failure, run_cli, run_forked
from registry_helpers import code_commit, commit_all, set_drafts

# Slow (hostile input classes, each in its own registry and subprocess): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

# What may never reach a terminal raw: C0 controls but tab and newline, DEL, C1, bidi controls.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def assert_terminal_safe(result: Run) -> None:
    found = RAW_CONTROL.search(result.text)
    assert found is None, f"raw {found.group()!r} reached the terminal: {result.text!r}"


# --- 3. terminal and log injection ---------------------------------------------------------------


def test_a_key_cannot_forge_a_problem_line(tmp_path: Path) -> None:
    fixture = tmp_path / "f.yaml"
    fixture.write_text('task_id: a\n"x\\nother.yaml:9:9: $.forged: everything is fine": 1\n', encoding="utf-8")
    result = run_forked("validate", str(fixture), cwd=tmp_path)
    assert_clean_failure(result)
    assert not any(line.startswith("other.yaml") for line in result.text.splitlines()), result.text
    assert "\\nother.yaml:9:9" in result.out
    assert_terminal_safe(result)


def test_control_characters_in_data_are_refused_at_their_place(tmp_path: Path) -> None:
    fixture = tmp_path / "f.yaml"
    fixture.write_text('task_id: "a\\e[2Jb"\nquestion: "x\\u202ey"\nnotes: "a\\r# heading"\n', encoding="utf-8")
    result = run_forked("validate", str(fixture), cwd=tmp_path)
    assert_clean_failure(result)
    assert "f.yaml:1:10: $.task_id: the text holds the control character U+001B" in result.out
    assert "f.yaml:2:11: $.question: the text holds the control character U+202E" in result.out
    assert "f.yaml:3:8: $.notes: the text holds the control character U+000D" in result.out
    assert_terminal_safe(result)


def test_registry_folder_and_cwd_with_controls(reg: Path) -> None:
    odd = reg.parent / "reg\x1b[31m\nistry\u202e"
    reg.rename(odd)
    commands = (["validate"], ["cut", "v1"], ["list"], ["show", "v1"], ["diff", "v1", "v1"], ["audit"], ["audit", "x"])
    for command in commands:
        result = run_forked(*command, cwd=odd)
        assert "Traceback" not in result.text
        assert_terminal_safe(result)
    named = run_forked("validate", "--registry", str(odd), "no-such-file.yaml", cwd=odd.parent)
    assert_clean_failure(named, 2)  # a path that does not exist is a usage error (issue 27, item 8)
    assert_terminal_safe(named)


def test_commit_subjects_from_the_code_repository(reg: Path) -> None:
    assert run_forked("cut", "v1", cwd=reg).code == 0
    sha = code_commit(reg, {".orbitignore": "target/\n"}, "surface \x1b[2J\x1b]0;owned\x07 change\u202e")
    set_drafts(reg, "v2")
    version = reg / "drafts/graph/version.yaml"
    version.write_text(version.read_text().replace("pinned_sha: 7df885db", f"pinned_sha: '{sha[:12]}'"))
    result = run_forked("cut", "v2", cwd=reg)
    assert_clean_failure(result)
    assert "undeclared tool-surface commit" in result.err
    assert "\\x1b[2J" in result.err
    assert_terminal_safe(result)


def test_github_annotations_escape_properties_and_data() -> None:
    problem = Problem("a,b::c.yaml", 3, 4, ("k",), "bad\r\nvalue 100%\x1b[31m")
    line = github_annotation(problem)
    assert line.startswith("::error file=a%2Cb%3A%3Ac.yaml,line=3,col=4::")
    assert line.endswith("$.k: bad%0D%0Avalue 100%25\\x1b[31m")
    assert RAW_CONTROL.search(line) is None


def test_github_format_from_the_cli(tmp_path: Path) -> None:
    fixture = tmp_path / "x,y:z.yaml"
    fixture.write_text("task_id: [broken\n", encoding="utf-8")
    result = run_forked("validate", str(fixture), "--format", "github", cwd=tmp_path)
    assert_clean_failure(result)
    assert "::error file=x%2Cy%3Az.yaml,line=" in result.out


def test_markdown_filters_treat_cr_as_a_line_end() -> None:
    rendered = text("first\r# Forged heading\r\n## Another\nplain")
    for line in re.split(r"\r\n|\r|\n", rendered):
        assert not line.startswith("#"), rendered
    assert "\r" not in cell("a\rb") and "\r" not in code("a\rb")
    assert "\\x1b" in cell("a\x1bb") and "\\u202e" in text("a\u202eb")


def test_json_output_is_terminal_safe_and_never_nan() -> None:
    out = dumps({"a": "x\u202ey\x9bz", "b": "plain — text"})
    assert "\\u202e" in out and "\\u009b" in out and "plain — text" in out
    assert json.loads(out) == {"a": "x\u202ey\x9bz", "b": "plain — text"}
    with pytest.raises(ValueError):
        dumps({"n": float("nan")})


# --- 4. values accepted that must be refused, folders skipped ------------------------------------


def test_float_line_is_refused_at_validation(reg: Path) -> None:
    fixture = reg / "drafts/graph/fixtures/trace-run-deterministic-callers.yaml"
    fixture.write_text(re.sub(r"line: (\d+)", r"line: \1.0", fixture.read_text(), count=1))
    result = run_forked("cut", "--dry-run", "v1", cwd=reg)
    assert_clean_failure(result)
    assert "expected integer, got number" in result.err and "cut refused at step 'validate'" in result.err


def test_audit_of_a_version_folder_that_is_a_link(reg: Path) -> None:
    assert run_forked("cut", "v1", cwd=reg).code == 0
    moved = reg / "elsewhere"
    (reg / "versions/graph_v1").rename(moved)
    (reg / "versions/graph_v1").symlink_to(moved)
    for command in (["audit"], ["audit", "v1"], ["audit", "--no-code"]):
        result = run_forked(*command, cwd=reg)
        assert_clean_failure(result)
        assert "graph_v1: is a symbolic link" in result.out, result.text
        assert "audited 0 version(s)" not in result.out


def test_unreadable_fixtures_folder_is_reported(reg: Path) -> None:
    folder = reg / "drafts/graph/fixtures"
    folder.chmod(0)
    try:
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
        if prefix and shutil.which("setpriv") is None:
            pytest.skip("needs setpriv to drop root's file-access override")
        proc = subprocess.run(
            [*prefix, sys.executable, "-m", "freezer", "validate"],
            cwd=reg,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    finally:
        folder.chmod(0o755)
    result = Run(proc.returncode, proc.stdout, proc.stderr)
    assert_clean_failure(result)
    assert "drafts/graph/fixtures: $: folder cannot be read: Permission denied" in result.out, result.text


def test_two_suites_sharing_a_versions_folder(reg: Path) -> None:
    api = reg / "drafts/api"
    shutil.copytree(reg / "drafts/graph", api)
    version = api / "version.yaml"
    version.write_text(version.read_text().replace("suite: graph", "suite: api"))
    config = reg / "freezer.yaml"
    text_now = config.read_text()
    graph_block = text_now[text_now.index("  graph:") :]
    config.write_text(text_now + graph_block.replace("  graph:", "  api:", 1).replace("drafts/graph", "drafts/api"))
    assert run_forked("cut", "v1", "--suite", "graph", cwd=reg).code == 0
    commit_all(reg, "graph v1 and the api suite")
    cut = run_forked("cut", "v1", "--suite", "api", cwd=reg)
    assert cut.code == 0, cut.text
    result = run_forked("check", "--base", "HEAD", cwd=reg)
    assert result.code == 0, result.text
    assert "new: api_v1" in result.out


# --- 5. crashes, hangs and memory --------------------------------------------------------------------


def _refrozen(version: Path, rel: str, data: bytes) -> None:
    """Replace a frozen file and make every hash agree, as a careful forger would."""
    for path in version.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (version / rel).write_bytes(data)
    manifest = json.loads((version / "manifest.json").read_text())
    manifest["files"][rel] = hashlib.sha256(data).hexdigest()
    (version / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    sums = [
        f"{hashlib.sha256((version / name).read_bytes()).hexdigest()}  {name}"
        for name in sorted(p.relative_to(version).as_posix() for p in version.rglob("*") if p.is_file())
        if name != "SHA256SUMS"
    ]
    (version / "SHA256SUMS").write_text("\n".join(sums) + "\n")


HANG = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


def test_a_frozen_template_that_never_finishes_cannot_stall_audit(reg: Path) -> None:
    assert run_forked("cut", "v1", cwd=reg).code == 0
    # It places §Delta, as a template must, so the render itself is what has to be stopped.
    _refrozen(reg / "versions/graph_v1", "METHOD.md.j2", (HANG + "\n{{ delta_block }}\n").encode())
    result = run_cli("audit", "--no-code", cwd=reg, env={"FREEZER_RENDER_SECONDS": "2"}, timeout=60)
    assert_clean_failure(result)
    assert "METHOD.md: cannot be re-rendered: METHOD.md.j2: the template render did not finish within 2 s" in result.out


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (HANG.encode(), "did not finish within 2 s"),
        (b"{{ 'x' * 4000000000 }}", "more memory"),
        (b"{% include 'other.j2' %}", "may not include, import or extend"),
        (b"{% import 'macros.j2' as m %}", "may not include, import or extend"),
        (b"{% extends 'base.j2' %}", "may not include, import or extend"),
        (b"{{ range(10000000) | list }}", "MAX_RANGE"),
        (b"{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "recurses too deeply"),
        (b"{% set d = {} %}{% for i in range(100000) %}{% set _ = d.update({i: 'x' * 100000}) %}{% endfor %}", ""),
        (b"caf\xe9 {{ name }}", "not UTF-8"),
        (b"{{ name", "template syntax error"),
    ],
    ids=[
        "endless-loop",
        "string-bomb",
        "include",
        "import",
        "extends",
        "huge-range",
        "recursion",
        "dict-bomb",
        "not-utf8",
        "syntax",
    ],
)
def test_registry_templates_are_bounded(reg: Path, template: bytes, message: str) -> None:
    # Each places §Delta, as a suite template must, so the render itself is what stops it.
    (reg / "method.j2").write_bytes(template + b"\n{{ delta_block }}\n")
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("versions: versions", "versions: versions\n    template: method.j2"))
    result = run_cli("cut", "--dry-run", "v1", cwd=reg, env={"FREEZER_RENDER_SECONDS": "2"}, timeout=60)
    assert_clean_failure(result)
    assert message in result.err, result.err
    assert "method.j2" in result.err


def test_a_sparse_template_is_refused_by_its_size(reg: Path) -> None:
    with open(reg / "method.j2", "wb") as handle:
        handle.truncate(1100 << 20)
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("versions: versions", "versions: versions\n    template: method.j2"))
    result = run_forked("cut", "--dry-run", "v1", cwd=reg)
    # Invalid input, refused by the validate step at the config line that names the template (it was
    # an exit 2 from the render, after every other check, with no freezer.yaml line).
    assert_clean_failure(result, code=1)
    assert "freezer.yaml:7: $.template:" in result.err
    assert "over the 1048576-byte limit" in result.err


@pytest.mark.parametrize("kind", ["sparse", "deep", "not-an-object"])
def test_hostile_manifests(reg: Path, kind: str) -> None:
    assert run_forked("cut", "v1", cwd=reg).code == 0
    manifest = reg / "versions/graph_v1/manifest.json"
    manifest.chmod(0o644)
    if kind == "sparse":
        with open(manifest, "wb") as handle:
            handle.truncate(1100 << 20)
    elif kind == "deep":
        manifest.write_text("[" * 100_000 + "]" * 100_000)
    else:
        manifest.write_text("[1, 2]")
    for command in (["audit", "--no-code"], ["list"], ["show", "v1"], ["cut", "v2"], ["diff", "v1", "v1"]):
        result = run_forked(*command, cwd=reg)
        assert result.code in (1, 2), (command, result.text)
        assert "Traceback" not in result.text and "internal error" not in result.text, (command, result.text)


def test_an_empty_version_folder(reg: Path) -> None:
    assert run_forked("cut", "v1", cwd=reg).code == 0
    (reg / "versions/graph_v2").mkdir()
    set_drafts(reg, "v2")
    for command in (
        ["audit", "--no-code"],
        ["list"],
        ["show", "v2"],
        ["cut", "v2"],
        ["cut", "v3"],
        ["diff", "v1", "v2"],
    ):
        result = run_forked(*command, cwd=reg)
        assert result.code in (1, 2), (command, result.text)
        assert "Traceback" not in result.text and "internal error" not in result.text, (command, result.text)
    assert run_forked("audit", "--no-code", cwd=reg).out.count("manifest.json: missing") == 1


def test_output_to_a_full_device_or_a_closed_stdout(reg: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "freezer", "validate"],
            cwd=reg,
            stdout=full,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "freezer: error: writing the output: No space left on device"
    closed = subprocess.run(
        ["sh", "-c", f"exec {sys.executable} -m freezer validate >&-"], cwd=reg, capture_output=True, text=True, env=env
    )
    assert closed.returncode == 2
    assert "standard output is closed" in closed.stderr and "Exception ignored" not in closed.stderr
