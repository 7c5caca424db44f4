"""Issue 11: no change slips through without a word.

Each test is one of the review's cases, in the tests' own registries (real
git, real files). Each failed on 0.1.0.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import code_commit, commit_all, set_build_sha, set_drafts, snapshot

SURFACE_FILE = "crates/orbit-graph/src/tools/search.rs"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _cut(reg: Path, label: str) -> None:
    result = run_inprocess("cut", label, cwd=reg)
    assert result.code == 0, result.text


def _draft_v3(reg: Path) -> Path:
    """v3 repeats v2's fixtures and declares nothing yet."""
    version = reg / "drafts/graph/version.yaml"
    _edit(version, "version: 2\n", "version: 3\n")
    text = version.read_text(encoding="utf-8")
    text = re.sub(r"tool_surface_commits:\n(?:  .*\n)+", "tool_surface_commits: []\n", text)
    version.write_text(text, encoding="utf-8")
    return version


def _surface_commit(reg: Path, n: int) -> str:
    return code_commit(reg, {SURFACE_FILE: f"// search ranking, revision {n}\n"}, f"surface change {n}")


def _declare(version: Path, shas: list[str]) -> None:
    entries = "".join(
        f"  - sha: '{sha[:10]}'\n    dimension: surface\n    effect: ranking revision {i}\n"
        for i, sha in enumerate(shas)
    )
    _edit(version, "tool_surface_commits: []\n", "tool_surface_commits:\n" + entries)


# 1. check reads the base's config, not the one the change brings.
def test_check_cannot_be_switched_off_by_moving_the_versions_folder_in_the_config(v2_frozen: Path) -> None:
    target = v2_frozen / "versions/graph_v1/fixtures/locate-register-tools.yaml"
    target.chmod(0o644)
    target.write_text(target.read_text() + "# tweak\n")
    _edit(v2_frozen / "freezer.yaml", "versions: versions", "versions: archive")
    (v2_frozen / "archive").mkdir()
    (v2_frozen / "archive/.keep").write_text("")
    commit_all(v2_frozen, "tamper and look away")
    result = run_inprocess("check", "--base", "HEAD~1", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "versions/graph_v1/fixtures/locate-register-tools.yaml:1: $: frozen file modified" in result.out
    assert "now keeps its versions in archive/" in result.out


def test_check_reports_a_dropped_suite_and_narrowed_globs(v2_frozen: Path) -> None:
    _edit(v2_frozen / "freezer.yaml", "      - '.orbitignore'\n", "")
    commit_all(v2_frozen, "narrow the surface")
    result = run_inprocess("check", "--base", "HEAD~1", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "narrows its tool surface (drops .orbitignore)" in result.out


# 2. Under CI, an unfetched base is an error, never HEAD.
def test_check_under_ci_without_the_base_fetched_is_an_error(v2_frozen: Path) -> None:
    target = v2_frozen / "versions/graph_v2/METHOD.md"
    target.chmod(0o644)
    target.write_text(target.read_text() + "\n")
    commit_all(v2_frozen, "committed tamper")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main"}
    result = run_inprocess("check", cwd=v2_frozen, env=env)
    assert_clean_failure(result, code=2)
    assert "origin/main is not fetched" in result.err and "git fetch origin main" in result.err
    assert "✓" not in result.out
    local = run_inprocess("check", cwd=v2_frozen)  # no CI, no upstream: HEAD, and it says so
    assert local.code == 0, local.text
    assert "no upstream branch or origin/HEAD: the uncommitted changes; --base REF checks commits too" in local.out


def test_check_on_the_first_commit_of_a_registry(reg: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for name in ("freezer.yaml", ".gitignore"):
        (fresh / name).write_bytes((reg / name).read_bytes())
    shutil.copytree(reg / "drafts", fresh / "drafts")
    subprocess.run(["git", "init", "-q", str(fresh)], check=True)
    result = run_inprocess("check", cwd=fresh)
    assert "nothing committed yet" in result.out, result.text
    # A CI job on a brand-new repository has no base to fetch either.
    in_ci = run_inprocess("check", cwd=fresh, env={"CI": "true", "GITHUB_ACTIONS": "true"})
    assert in_ci.code == 0, in_ci.text
    assert "nothing committed yet" in in_ci.out


# 3. Narrowed globs: refused at cut, and caught by audit in a version cut as 0.1.0 would have.
def test_narrowed_globs_cannot_hide_a_commit_at_cut(v2_frozen: Path) -> None:
    hidden = code_commit(v2_frozen, {".orbitignore": "target/\nbenchmarks/\nvendor/\n"}, "ignore vendor/")
    version = _draft_v3(v2_frozen)
    set_build_sha(version, hidden)
    _edit(v2_frozen / "freezer.yaml", "      - '.orbitignore'\n", "")
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f"undeclared tool-surface commit {hidden[:12]}" in result.err


def test_audit_reports_a_commit_hidden_by_narrowed_globs(v2_frozen: Path) -> None:
    from freezer.domain.manifest import Scan
    from freezer.domain.manifestparts import CodeRepoIdentity
    from freezer.freeze import assemble as assemble_mod
    from freezer.freeze.snapshot import write_version
    from freezer.parse.yamlload import load_file
    from freezer.registry import config as config_mod
    from freezer.registry.model import Suite
    from freezer.registry.record import read_version_files, side
    from freezer.resolve.provenance import ResolvedProvenance

    hidden = code_commit(v2_frozen, {".orbitignore": "target/\nvendor/\n"}, "ignore vendor/")
    version = _draft_v3(v2_frozen)
    set_build_sha(version, hidden)
    _edit(v2_frozen / "freezer.yaml", "      - '.orbitignore'\n", "")
    # What 0.1.0 did: scan with the current (narrowed) globs only, find nothing, freeze.
    cfg = config_mod.load(v2_frozen)
    suite = cfg.suite(None)
    v2 = Suite.of(suite).versions()[-1]
    pinned = v2.manifest_model().pinned_sha
    resolved = ResolvedProvenance(
        pinned, hidden, [], Scan(v2.manifest_model().scan_tips, (hidden,), suite.tool_surface, True)
    )
    resolved.repo_identity = CodeRepoIdentity.from_data(v2.manifest()["code_repo"])
    resolved.grep = v2.manifest()["checks"]["grep"]
    doc = load_file(version, "version.yaml").document
    assert doc is not None
    drafts = {p.relative_to(suite.drafts).as_posix(): p.read_bytes() for p in suite.drafts.rglob("*.yaml")}
    parsed = read_version_files(drafts)
    frozen_v2 = {rel: (v2.path / rel).read_bytes() for rel in v2.manifest()["files"]}
    previous = side(v2.manifest_model(), *read_version_files(frozen_v2))
    template = (v2.path / "METHOD.md.j2").read_bytes()
    record = assemble_mod.record(suite, 3, doc.data, resolved, v2, template)
    files = assemble_mod.assemble(record, drafts, template, previous, suite.dimensions, parsed)
    write_version(cfg.root, suite.versions / "graph_v3", files)
    _edit(v2_frozen / "freezer.yaml", "    tool_surface:\n", "    tool_surface:\n      - '.orbitignore'\n")

    integrity = run_inprocess("audit", "--no-code", cwd=v2_frozen)
    assert integrity.code == 0, integrity.text  # consistent files: only the code can tell
    result = run_inprocess("audit", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f'undeclared tool-surface commit {hidden[:12]} "ignore vendor/" in the recorded range' in result.out


# 4. No build SHA: the scan reaches every declared commit, and METHOD.md never reads as complete.
def test_undeclared_commit_between_declared_ones_is_found_without_a_build_sha(v2_frozen: Path) -> None:
    first, second, missing, third = (_surface_commit(v2_frozen, n) for n in range(4))
    version = _draft_v3(v2_frozen)
    _declare(version, [first, second, third])
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f"undeclared tool-surface commit {missing[:12]}" in result.err


def test_undeclared_commit_after_every_declared_one_leaves_an_unmistakable_caveat(v2_frozen: Path) -> None:
    declared = [_surface_commit(v2_frozen, n) for n in range(3)]
    _surface_commit(v2_frozen, 3)  # after all of them: nothing can prove it is not in the binary
    version = _draft_v3(v2_frozen)
    _declare(version, declared)
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert result.code == 0, result.text
    assert "build SHA is unknown" in result.err
    method = (v2_frozen / "versions/graph_v3/METHOD.md").read_text()
    delta = method[method.index("## Delta vs v2") :]
    assert "**The binary's build SHA is unknown**" in method
    assert "> **Caveat.** graph_v3: the binary's build SHA is unknown" in delta
    assert "may be incomplete" in delta
    assert "did not move: no commit touching it is declared" not in delta
    assert "- **indexer**: no commit is declared or found up to the scanned tips" in delta


def test_a_binary_without_build_sha_or_reason_is_refused(v2_frozen: Path) -> None:
    version = _draft_v3(v2_frozen)
    text = re.sub(r"  build_sha_unknown: >-\n(?:    .*\n)+", "", version.read_text())
    version.write_text(text)
    result = run_inprocess("validate", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "$.binary: binary.build_sha is missing" in result.out


# 5. diff accumulates along the chain and says when it is reversed.
def test_diff_across_a_version_accumulates_the_surface_commits(v2_frozen: Path) -> None:
    _draft_v3(v2_frozen)
    _cut(v2_frozen, "v3")
    result = run_inprocess("diff", "v1", "v3", cwd=v2_frozen)
    assert result.code == 0, result.text
    for sha in ("56117f6c", "5f861caf", "7e86d41c"):
        assert sha in result.out and "(in graph_v2)" in result.out
    assert "did not move: " not in result.out or "indexer" not in result.out.split("did not move:")[1].split("\n")[0]
    assert "accumulated over: graph_v2, graph_v3" in result.out
    reverse = run_inprocess("diff", "v2", "v1", cwd=v2_frozen)
    assert reverse.code == 0
    assert "graph_v2 → graph_v1 is reversed" in reverse.out
    assert_clean_failure(run_inprocess("diff", "v2", "v2", cwd=v2_frozen), code=2)


# 6. §Delta lists every set-level change: record, template, globs; unknown is not unchanged.
def test_delta_lists_template_globs_and_record_changes(v2_frozen: Path) -> None:
    version = _draft_v3(v2_frozen)
    _edit(version, "purpose: >-\n", "purpose: >-\n  Re-measured.\n")
    _edit(version, "min_landed: 4", "min_landed: 3")
    template = v2_frozen / "METHOD.custom.j2"
    shipped = (v2_frozen / "versions/graph_v2/METHOD.md.j2").read_text()
    template.write_text(shipped.replace("## Purpose", "## Purpose of this set"))
    _edit(
        v2_frozen / "freezer.yaml",
        "    tool_surface:\n",
        "    template: METHOD.custom.j2\n    tool_surface:\n      - 'docs/**'\n",
    )
    _cut(v2_frozen, "v3")
    method = (v2_frozen / "versions/graph_v3/METHOD.md").read_text()
    delta = method[method.index("## Delta vs v2") :]
    assert "`$.purpose`:" in delta and "`$.acceptance.min_landed`: 4 → 3" in delta
    assert "- METHOD.md template (sha256):" in delta
    assert "- tool_surface globs: added docs/\\*\\*" in delta or "- tool_surface globs: added docs/**" in delta
    assert "- **binary build**: graph_v2:" in delta and "- **binary build**: graph_v3:" in delta


# 7. A re-cut compares everything that went into the version.
def test_recut_with_another_template_or_globs_is_refused(v2_frozen: Path) -> None:
    before = snapshot(v2_frozen / "versions")
    (v2_frozen / "METHOD.custom.j2").write_text(
        (v2_frozen / "versions/graph_v2/METHOD.md.j2").read_text().replace("## Purpose", "## Why")
    )
    config = v2_frozen / "freezer.yaml"
    original = config.read_text()
    _edit(config, "    tool_surface:\n", "    template: METHOD.custom.j2\n    tool_surface:\n")
    result = run_inprocess("cut", "v2", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "the METHOD.md template differs from the frozen copy" in result.err
    config.write_text(original)
    _edit(config, "    tool_surface:\n", "    tool_surface:\n      - 'crates/orbit-graph/src/tools/*.rs'\n")
    result = run_inprocess("cut", "v2", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "manifest tool_surface differs" in result.err
    config.write_text(original)
    same = run_inprocess("cut", "v2", cwd=v2_frozen)
    assert same.code == 0 and "identical inputs" in same.out, same.text
    assert snapshot(v2_frozen / "versions") == before


# 8. Valid drafts always cut.
def test_commit_without_task_and_a_binary_that_drops_fields_cut(reg: Path) -> None:
    _cut(reg, "v1")
    set_drafts(reg, "v2")
    version = reg / "drafts/graph/version.yaml"
    _edit(version, "    task: T20260423-0452 (.orbitignore)\n", "")
    _edit(version, "  path: /Users/daniel/.cargo/bin/orbit\n", "")
    text = version.read_text()
    text = re.sub(r"    - provider: Codex \(graph-only arm\)\n(?:      .*\n)+", "", text)
    version.write_text(text)
    _cut(reg, "v2")
    method = (reg / "versions/graph_v2/METHOD.md").read_text()
    assert "- `$.path`: removed (was /Users/daniel/.cargo/bin/orbit)" in method
    assert "| `56117f6c` | — | indexer |" in method
    assert run_inprocess("audit", "--no-code", cwd=reg).code == 0


def test_a_float_line_is_refused_where_it_is_written(reg: Path) -> None:
    fixture = reg / "drafts/graph/fixtures/locate-register-tools.yaml"
    _edit(fixture, "line: 15", "line: 15.0")
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    assert re.search(
        r"locate-register-tools\.yaml:\d+:\d+: \$\.ground_truth\[0\]\.line: expected integer, got number 15\.0",
        result.out,
    ), result.out


# Also found: a declared commit that touches no tool-surface path.
def test_declared_commit_touching_no_tool_surface_path_is_refused(v2_frozen: Path) -> None:
    readme = code_commit(v2_frozen, {"README.md": "# orbit\n\nupdated\n"}, "docs: README")
    version = _draft_v3(v2_frozen)
    _declare(version, [readme])
    set_build_sha(version, readme)
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "touches none of the tool-surface globs" in result.err and "widen tool_surface" in result.err


def test_labels_mean_the_same_everywhere(v2_frozen: Path) -> None:
    for label in ("v2", "2", "graph_v2"):
        shown = run_inprocess("show", label, cwd=v2_frozen)
        assert shown.code == 0 and shown.out.startswith("graph_v2"), (label, shown.text)
    assert "already frozen" in run_inprocess("cut", "graph_v2", cwd=v2_frozen).out
    assert_clean_failure(run_inprocess("cut", "other_v2", cwd=v2_frozen), code=2)
    listed = json.loads(run_inprocess("audit", "graph_v1", "2", "--no-code", "--format", "json", cwd=v2_frozen).out)
    assert [v["name"] for v in listed["result"]["versions"]] == ["graph_v1", "graph_v2"]


# Also found: a container must enclose the line, not merely precede it.
TRAIT_THEN_CONST = """\
pub trait Dispatch {
    fn dispatch(&self, name: &str) -> Result<(), String>;
}

pub const LIMIT: usize = 10;

pub fn outer(xs: [u8; 4]) -> usize {
    let inner = |x: u8| -> u8 { x + 1 };
    fn helper(y: u8) -> u8 {
        y * 2
    }
    let s = "}";
    helper(inner(xs[0])) as usize + LIMIT
}
"""

PYTHON = """\
def first(a,
          b):
    total = a + b

    return total

LIMIT = 10


def second():
    def inner():
        return 1
    return inner()
"""


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        (TRAIT_THEN_CONST, 2, "dispatch"),  # the declaration line itself
        (TRAIT_THEN_CONST, 5, None),  # after a trait whose method has no body
        (TRAIT_THEN_CONST, 8, "outer"),
        (TRAIT_THEN_CONST, 10, "helper"),
        (TRAIT_THEN_CONST, 12, "outer"),  # after the nested fn closed
        (TRAIT_THEN_CONST, 13, "outer"),  # a brace in a string closes nothing
        (PYTHON, 2, "first"),
        (PYTHON, 5, "first"),
        (PYTHON, 7, None),
        (PYTHON, 12, "inner"),
        (PYTHON, 13, "second"),
    ],
)
def test_container_is_the_function_whose_body_encloses_the_line(text: str, line: int, expected: str | None) -> None:
    from freezer.resolve.groundtruth import _container

    assert _container(text.splitlines(), line) == expected


def test_cut_refuses_a_container_that_does_not_enclose_the_line(v2_frozen: Path) -> None:
    sha = code_commit(v2_frozen, {"crates/orbit-core/src/dispatch.rs": TRAIT_THEN_CONST}, "add Dispatch")
    fixture = v2_frozen / "drafts/graph/fixtures/locate-loopaudit-variants.yaml"
    text = fixture.read_text()
    fixture.write_text(
        text.replace(
            "ground_truth:\n",
            "ground_truth:\n  - file: crates/orbit-core/src/dispatch.rs\n    line: 5\n    container: dispatch\n",
            1,
        )
    )
    version = _draft_v3(v2_frozen)
    _edit(version, "pinned_sha: 7df885db", f"pinned_sha: {sha}")
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert (
        "crates/orbit-core/src/dispatch.rs:5 at" in result.err and "is inside no function, not dispatch" in result.err
    )
