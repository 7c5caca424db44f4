"""Issue 27, "the first week" items 6, 8 and 10: what the commands print, and how they exit."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import cmarkgfm  # type: ignore[import-untyped]
import pytest
from markdown_it import MarkdownIt
from test_json_output import _document

from freezer.cli.browse import SHIPPED_SCHEMAS

from conftest import REPO, assert_clean_failure, run_inprocess
from registry_helpers import set_drafts


@pytest.fixture
def demo(demo_build: Path, tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _no_python_none(text: str) -> None:
    assert not re.search(r"\bNone\b", text), text


# Item 6: nothing a command prints says "moved: " with nothing after it, nor Python's None.


def test_log_says_nothing_moved_when_a_cut_moved_nothing(demo: Path) -> None:
    for suite in ("swe", "tb"):
        assert run_inprocess("next", "--suite", suite, cwd=demo).code == 0
        cut = run_inprocess("cut", "v2", "--suite", suite, cwd=demo)
        assert cut.code == 0, cut.text
        logged = run_inprocess("log", "--suite", suite, cwd=demo)
        assert logged.code == 0, logged.text
        assert f"{suite}_v2  " in logged.out and "nothing moved" in logged.out, logged.out
        assert not re.search(r"moved: *$", logged.out, re.MULTILINE), logged.out
        method = (demo / f"versions/{suite}_v2/METHOD.md").read_text()
        assert f"Compared with `{suite}_v1`, no dimension moved." in method
        assert "moved: **—**" not in method
    assert run_inprocess("audit", "--no-code", cwd=demo).code == 0


@pytest.mark.parametrize("lost", ["manifest.json", "fixtures"])
def test_no_command_prints_none_about_a_version_it_cannot_read(demo: Path, lost: str) -> None:
    target = demo / "versions/graph_v1" / lost
    for path in [target, *target.rglob("*")] if target.is_dir() else [target]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (demo / "versions/graph_v1").chmod(0o755)
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    listed = run_inprocess("list", cwd=demo)
    assert listed.code == 1
    row = next(line for line in listed.out.splitlines() if line.startswith("graph_v1"))
    assert row.split()[:5] == ["graph_v1", "?", "unreadable", "?", "?"], row
    assert "FAILED" in row
    assert [line.split()[1] for line in listed.out.splitlines() if line.startswith(("tb_v1", "swe_v1"))] == [
        "no",
        "no",
    ]  # "no code", as log says it
    for args in (
        ["list"],
        ["log"],
        ["show", "graph_v2"],
        ["show", "api_v1"],
        ["show", "tb_v1"],
        ["diff", "tb_v1", "tb_v1"],
        ["compare", "swe_v1", "swe_v1"],
        ["status"],
        ["verify"],
        ["audit", "--no-code"],
        ["check"],
        ["attest", "graph_v2"],
        ["show", "graph_v1"],
    ):
        result = run_inprocess(*args, cwd=demo)
        _no_python_none(result.out)
        _no_python_none(result.err)


def _cut_without_tasks(reg: Path) -> Path:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    set_drafts(reg, "v2")
    record = reg / "drafts/graph/version.yaml"
    text = record.read_text()
    # Two of the three declared tool-surface commits lose their tracker task (it is optional).
    stripped = re.sub(r"\n    task: T20260423-0(452|525)[^\n]*", "", text)
    assert stripped.count("    task: ") == text.count("    task: ") - 2
    record.write_text(stripped)
    cut = run_inprocess("cut", "v2", cwd=reg)
    assert cut.code == 0, cut.text
    return reg / "versions/graph_v2"


def test_a_commit_without_a_task_shows_no_empty_dash(reg: Path) -> None:
    version = _cut_without_tasks(reg)
    method = (version / "METHOD.md").read_text()
    assert "— —" not in method
    assert "- `56117f6c` — Search results exclude" in method
    assert "- `5f861caf` — Every orbit.graph" in method
    shown = run_inprocess("show", "v2", cwd=reg)
    lines = [line for line in shown.out.splitlines() if "tool surface:" in line]
    assert "  tool surface: 56117f6c [indexer]" in lines and "  tool surface: 5f861caf [descriptions]" in lines
    assert all(line == line.rstrip() for line in lines), lines
    assert run_inprocess("audit", "--no-code", cwd=reg).code == 0


def _paragraphs(rendered: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", p)) for p in re.findall(r"<p>(.*?)</p>", rendered, re.DOTALL)]


def test_method_md_reads_the_same_raw_and_rendered(demo: Path) -> None:
    manifest = json.loads((demo / "versions/graph_v2/manifest.json").read_text())
    assert manifest["checks"]["markdown_rules"] == 4
    method = (demo / "versions/graph_v2/METHOD.md").read_text()
    # Raw: no entity and no doubled backslash where the fixture wrote neither.
    assert "&amp;" not in method and "&lt;" not in method
    assert "(ctx: &ToolContext)" in method and "sink.emit(&LoopAuditEvent::ToolCallRequested" in method
    assert "`'\\.run_deterministic\\s*\\('`" in method  # rg's pattern in the Gate B evidence: a code span
    assert "\\\\." not in method.split("## How to reproduce")[0]
    for rendered in (
        str(MarkdownIt("commonmark").enable("table").render(method)),
        str(cmarkgfm.github_flavored_markdown_to_html(method)),
    ):
        paragraphs = _paragraphs(rendered)
        joined = "\n".join(paragraphs)
        assert "(ctx: &ToolContext)" in joined and "rg -n '\\.run_deterministic\\s*\\('" in joined
        # Separate sentences stay separate paragraphs: CommonMark joins lines that touch.
        for start in ("These did not:", "Notes. Note on grep-hardness", "The code under test gained"):
            assert any(p.startswith(start) for p in paragraphs), (start, paragraphs)
        assert not any("These did not" in p and "these dimensions moved" in p for p in paragraphs)
        assert not any("Gate B." in p and "Notes." in p for p in paragraphs)
    # The raw file says the same: each of them opens its own block.
    for start in ("These did not:", "**Notes.**", "## Fixtures", "### 1. ", "### Checks"):
        assert f"\n\n{start}" in method, start
    assert run_inprocess("audit", "--no-code", cwd=demo).code == 0


def test_old_versions_keep_their_rules_and_re_render_byte_for_byte() -> None:
    """The frozen fixtures of older freezers record rules 3 or none: this freezer audits them unchanged."""
    manifests = [
        json.loads(p.read_text())
        for p in sorted((REPO / "tests/cases").rglob("manifest.json"))
        if "versions" in p.parts
    ]
    assert manifests
    assert all(m.get("checks", {}).get("markdown_rules") in (None, 3) for m in manifests)


# Item 8: schema --help, missing inputs, --against, rg's regex errors.


def test_schema_help_names_every_shipped_schema() -> None:
    shipped = sorted(p.name.removesuffix(".schema.json") for p in (REPO / "schemas").glob("*.schema.json"))
    assert sorted(SHIPPED_SCHEMAS) == shipped
    helped = run_inprocess("schema", "--help")
    assert helped.code == 0
    assert " ".join(helped.out.split()).count(f"One of: {', '.join(SHIPPED_SCHEMAS)}.") == 1
    for name in SHIPPED_SCHEMAS:
        assert run_inprocess("schema", name).code == 0, name
    unknown = run_inprocess("schema", "nosuch")
    assert_clean_failure(unknown, code=2)
    assert ", ".join(SHIPPED_SCHEMAS) in unknown.err


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "drafts/graph/nosuch.yaml"],
        ["validate", "nosuch-folder"],
        ["validate", "drafts/graph/version.yaml", "gone.yml"],
        ["results", "check", "nosuch.jsonl"],
        ["results", "check", "gone.jsonl", "--format", "json"],
    ],
)
def test_a_missing_input_is_a_usage_error(demo: Path, args: list[str]) -> None:
    result = run_inprocess(*args, cwd=demo)
    assert_clean_failure(result, code=2)
    named = next(a for a in args if "nosuch" in a or "gone" in a)
    assert named in result.err


@pytest.mark.parametrize("ref", ["nosuchref", "0000000"])
def test_audit_against_a_ref_that_names_nothing_is_a_usage_error(demo: Path, ref: str) -> None:
    result = run_inprocess("audit", "--against", ref, "graph_v1", cwd=demo)
    assert_clean_failure(result, code=2)
    assert f"--against ref {ref!r} does not name a commit" in result.err
    as_json = run_inprocess("audit", "--against", ref, "-f", "json", cwd=demo)
    assert _document(as_json, "audit")["error"]["message"].startswith(f"--against ref {ref!r}")


@pytest.mark.parametrize(
    "pattern, caret_under, last",
    [("(?:ZeroDivision(Error)", "(?:(?:ZeroDivision(Error))", "error: unclosed group"), ("[z-a]", "(?:[z-a])", None)],
)
def test_rg_regex_errors_keep_their_lines(reg: Path, pattern: str, caret_under: str, last: str | None) -> None:
    fixture = reg / "drafts/graph/fixtures/locate-register-tools.yaml"
    fixture.write_text(fixture.read_text().replace("  pattern: 'fn register_tools'", f"  pattern: '{pattern}'", 1))
    result = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(result)
    lines = result.err.splitlines()
    at = next(i for i, line in enumerate(lines) if "$.naive_grep.pattern: ripgrep" in line)
    assert lines[at].startswith("  drafts/graph/fixtures/locate-register-tools.yaml:")
    assert lines[at].endswith("refuses it: regex parse error:"), lines[at]
    block = lines[at + 1 : at + 4]
    assert block[0].strip() == caret_under and block[0].startswith("      ")
    assert block[1].strip() == "^" * len(block[1].strip()) and block[1].startswith("      ")
    # The caret still points into the line above it: both keep rg's own indentation.
    assert block[1].index("^") >= len(block[0]) - len(block[0].lstrip())
    if last is not None:
        assert block[2].strip() == last
    assert all(not line.startswith("drafts/") for line in block)


# Item 10: every command takes --format json.


def test_every_command_takes_format_json() -> None:
    from freezer.cli.app import root_command

    def leaves(group: object, prefix: str = "") -> list[tuple[str, object]]:
        found: list[tuple[str, object]] = []
        for name, sub in group.commands.items():  # type: ignore[attr-defined]
            found += leaves(sub, f"{prefix}{name} ") if hasattr(sub, "commands") else [(prefix + name, sub)]
        return found

    commands = leaves(root_command())
    assert len(commands) >= 22
    missing = [name for name, command in commands if not any(p.name == "fmt" for p in command.params)]  # type: ignore[attr-defined]
    assert missing == []


def test_schema_and_attest_print_the_json_document(demo: Path) -> None:
    for name in ("output", "manifest"):
        document = _document(run_inprocess("schema", name, "--format", "json"), "schema")
        assert document["result"]["name"] == name
        assert document["result"]["schema"] == json.loads((REPO / f"schemas/{name}.schema.json").read_text())
    for version in ("graph_v2", "tb_v1"):
        text = run_inprocess("attest", version, cwd=demo)
        document = _document(run_inprocess("attest", version, "-f", "json", cwd=demo), "attest")
        assert document["result"]["version"] == version
        assert document["result"]["statement"] == json.loads(text.out)
        assert re.fullmatch(r"[0-9a-f]{64}", document["result"]["sha256"])
    refused = run_inprocess("attest", "graph_v2", "--pae", "--format", "json", cwd=demo)
    assert _document(refused, "attest")["error"]["message"].startswith("--pae prints the exact bytes")
    assert_clean_failure(refused, code=2)
