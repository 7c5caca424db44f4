"""Issue 25, the lead's held-out list (notes/heldout25.md): ten more ways a benchmark version
could change while freezer says nothing. Each test builds a real registry over a real code
repository in tmp_path and runs the CLI in-process. Cases 3 (the drafts' side), 4 and 5 are
in test_silent_change_bytes.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from freezer.resolve import grep

from conftest import REPO, assert_clean_failure, run_inprocess
from registry_helpers import code_commit, commit_all, set_build_sha, set_drafts, snapshot

SURFACE_FILE = "crates/orbit-graph/src/tools/search.rs"


def git(cwd: Path, *args: str) -> str:
    """Plain git, as a user at the terminal runs it (not under freezer's policy)."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout.strip()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _cut(reg: Path, label: str, *extra: str) -> None:
    result = run_inprocess("cut", label, *extra, cwd=reg)
    assert result.code == 0, result.text


def _draft_v3(reg: Path) -> Path:
    """v3 repeats v2's fixtures and declares no tool-surface commit."""
    version = reg / "drafts/graph/version.yaml"
    _edit(version, "version: 2\n", "version: 3\n")
    text = version.read_text(encoding="utf-8")
    text = re.sub(r"tool_surface_commits:\n(?:  .*\n)+", "tool_surface_commits: []\n", text)
    version.write_text(text, encoding="utf-8")
    return version


def _delta(reg: Path, name: str) -> str:
    method = (reg / "versions" / name / "METHOD.md").read_text(encoding="utf-8")
    return method[method.index("## Delta vs") :]


V1_PIN = "bb736e3961b0d3bec4631c48782ff0c286a01456"


def _full(code: Path, rev: str) -> str:
    return git(code, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}")


def _side_commit(code: Path, parent: str, files: dict[str, str], message: str) -> str:
    """A commit on no branch, child of ``parent``, with ``files`` changed: made in a scratch worktree
    so the code repository's own checkout stays as it is."""
    scratch = code.parent / f"scratch-{message.replace(' ', '-')}"
    git(code, "worktree", "add", "-q", "--detach", str(scratch), parent)
    for rel, text in files.items():
        (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
        (scratch / rel).write_text(text, encoding="utf-8")
    git(scratch, "add", "-A")
    git(scratch, "commit", "-q", "-m", message)
    sha = git(scratch, "rev-parse", "HEAD")
    git(code, "worktree", "remove", "--force", str(scratch))
    return sha


# 1. Replace refs and grafts: freezer reads the objects the SHA names, never a replacement.
def test_case1_a_replace_ref_cannot_swap_the_pinned_tree(reg: Path) -> None:
    _cut(reg, "v1")
    commit_all(reg, "freeze v1")
    code = reg / "sample-code"
    registry_rs = "crates/orbit-graph/src/registry.rs"
    shown = git(code, "show", f"{V1_PIN}:{registry_rs}")
    # Another tree under the pinned SHA: the register_tools site moves down and Gate B counts two.
    other = _side_commit(
        code, V1_PIN, {registry_rs: "// moved\n// moved\n" + shown + "\nfn register_tools_v2() {}\n"}, "swap"
    )
    git(code, "replace", V1_PIN, other)
    assert "// moved" in git(code, "show", f"{V1_PIN}:{registry_rs}")  # plain git now shows the other tree
    before = snapshot(reg / "versions")
    again = run_inprocess("cut", "v1", cwd=reg)
    assert again.code == 0 and "identical inputs" in again.out, again.text
    audited = run_inprocess("audit", "v1", cwd=reg)
    assert audited.code == 0 and "code: verified at bb736e39" in audited.out, audited.text
    assert snapshot(reg / "versions") == before


@pytest.mark.parametrize("how", ["replace-graft", "info-grafts"])
def test_case1_a_graft_cannot_hide_an_undeclared_surface_commit(v2_frozen: Path, how: str) -> None:
    code = v2_frozen / "sample-code"
    v2_pin = _full(code, "7df885db")
    hidden = code_commit(v2_frozen, {SURFACE_FILE: "// search ranking, changed\n"}, "surface change")
    build = code_commit(v2_frozen, {"README.md": "# orbit\n\nupdated\n"}, "docs: README")
    if how == "replace-graft":
        git(code, "replace", "--graft", build, v2_pin)
    else:
        (code / ".git/info").mkdir(exist_ok=True)
        (code / ".git/info/grafts").write_text(f"{build} {v2_pin}\n", encoding="ascii")
    assert hidden not in git(code, "log", "--format=%H", "-3", build)  # plain git no longer sees it
    version = _draft_v3(v2_frozen)
    set_build_sha(version, build)
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f"undeclared tool-surface commit {hidden[:12]}" in result.err, result.err
    assert not (v2_frozen / "versions/graph_v3").exists()


# 2. A shallow clone cuts the history the scans walk: refused, or unknown; never "did not move".
def _shallow_clone(reg: Path, revs: list[str]) -> Path:
    """Replace the registry's code repository by a shallow clone holding each of ``revs`` at depth 1,
    so that the history between them is cut."""
    code = reg / "sample-code"
    full = reg.parent / "full-code"
    code.rename(full)
    git(reg.parent, "clone", "-q", "--depth", "1", "--no-local", f"file://{full}", str(code))
    for n, rev in enumerate(revs):
        git(full, "tag", f"keep-{n}", rev)
        git(code, "fetch", "-q", "--depth", "1", "origin", f"refs/tags/keep-{n}:refs/tags/keep-{n}")
    assert git(code, "rev-parse", "--is-shallow-repository") == "true"
    return code


def _v2_objects(code: Path) -> list[str]:
    """Every commit graph_v2 names: its pin, its declared commits, and graph_v1's pin."""
    return [_full(code, sha) for sha in ("7df885db", "56117f6c", "5f861caf", "7e86d41c", V1_PIN)]


@pytest.mark.parametrize("surface_change", [True, False])
def test_case2_a_cut_over_a_shallow_clone_is_refused(v2_frozen: Path, surface_change: bool) -> None:
    code = v2_frozen / "sample-code"
    pins = _v2_objects(code)
    if surface_change:
        code_commit(v2_frozen, {SURFACE_FILE: "// search ranking, changed\n"}, "surface change")
    build = code_commit(v2_frozen, {"README.md": "# orbit\n\nupdated\n"}, "docs: README")
    _shallow_clone(v2_frozen, [*pins, build])
    version = _draft_v3(v2_frozen)
    set_build_sha(version, build)
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    # Refused for what it is: the clone's cut-off commit would read as a root that adds every file.
    assert "shallow clone" in result.err and "git fetch --unshallow" in result.err, result.err
    assert "docs: README" not in result.err and "undeclared" not in result.err, result.err
    assert not (v2_frozen / "versions/graph_v3").exists()


def test_case2_a_shallow_clone_whose_pins_are_cut_off_is_refused_with_the_unshallow_hint(v2_frozen: Path) -> None:
    build = code_commit(v2_frozen, {"README.md": "# orbit\n\nupdated\n"}, "docs: README")
    _shallow_clone(v2_frozen, [build])  # graph_v2's pins are not in it at all
    version = _draft_v3(v2_frozen)
    set_build_sha(version, build)
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "git fetch --unshallow" in result.err, result.err
    assert not (v2_frozen / "versions/graph_v3").exists()


def test_case2_audit_over_a_shallow_clone_does_not_say_verified(v2_frozen: Path) -> None:
    _shallow_clone(v2_frozen, _v2_objects(v2_frozen / "sample-code"))
    result = run_inprocess("audit", "v2", cwd=v2_frozen)
    assert result.code == 0, result.text  # integrity holds; the code is what cannot be read in full
    assert "code: unreachable" in result.out and "code: verified" not in result.out, result.out
    assert "shallow clone" in result.out and "different repository" not in result.out, result.out
    strict = run_inprocess("audit", "v2", "--strict", cwd=v2_frozen)
    assert_clean_failure(strict)


# 3 (asset modes), 4 (Unicode normalisation) and 5 (line endings): test_silent_change_bytes.py.


# 6. Dropped then re-added changed: v1 and v3 are not comparable at that fixture.
@pytest.mark.parametrize(
    ("old", "new", "group"),
    [
        (
            "question: Where are the graph tools registered?",
            "question: Where exactly are the tools registered?",
            "question",
        ),
        ("  must_include: [register_tools]", "  must_include: [register_tools, registry.rs]", "oracle"),
    ],
)
def test_case6_a_fixture_dropped_then_re_added_changed_is_not_comparable(
    reg: Path, old: str, new: str, group: str
) -> None:
    fixture = reg / "drafts/graph/fixtures/locate-register-tools.yaml"
    version = reg / "drafts/graph/version.yaml"
    _cut(reg, "v1")
    kept = reg / "kept.yaml"
    fixture.rename(kept)
    _edit(version, "version: 1\n", "version: 2\n")
    _edit(version, "min_landed: 6", "min_landed: 5")
    _cut(reg, "v2")
    kept.rename(fixture)
    _edit(fixture, old, new)
    _edit(version, "version: 2\n", "version: 3\n")
    _cut(reg, "v3")
    result = run_inprocess("compare", "v1", "v3", cwd=reg)
    assert result.code == 0, result.text
    row = next(line for line in result.out.splitlines() if line.strip().startswith("locate-register-tools"))
    assert "changed" in row and "✓" not in row, result.out
    for arm in ("graph-tools", "grep-only"):
        section = result.out[result.out.index(f"arm {arm}") :]
        assert f"✗ locate-register-tools: changed what the agent sees or what grades it: {group}" in section
    assert "`locate-register-tools` (locate, landed)" in _delta(reg, "graph_v3")  # added back, vs v2


# 7. Another ripgrep at the new cut: the oracle moved, in §Delta and delta.json, both ways.
def _fake_ripgrep(folder: Path, version: str) -> Path:
    """An rg that says it is ``version`` and searches as the pinned one does."""
    real = grep.locate().path
    assert not grep.locate().explicit, "unset FREEZER_RG to run the held-out tests"
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "rg"
    script.write_text(
        f'#!/bin/sh\nif [ "$1" = --version ]; then echo "ripgrep {version}"; exit 0; fi\nexec "{real}" "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def test_case7_another_grep_oracle_is_a_move_of_gate_b(v2_frozen: Path, tmp_path: Path) -> None:
    other = _fake_ripgrep(tmp_path / "bin", "14.1.1")
    version = _draft_v3(v2_frozen)
    result = run_inprocess("cut", "v3", cwd=v2_frozen, env={"FREEZER_RG": str(other)})
    assert result.code == 0, result.text
    assert "not the pinned ripgrep 15.2.0" in result.err
    delta = _delta(v2_frozen, "graph_v3")
    assert "these dimensions moved: **Gate B grep oracle**" in delta
    assert "Gate B grep oracle: ripgrep 15.2.0 → ripgrep 14.1.1" in delta
    recorded = json.loads((v2_frozen / "versions/graph_v3/delta.json").read_text())
    assert "Gate B grep oracle" in recorded["moved"]
    assert recorded["grep_oracle"] == {"before": "ripgrep 15.2.0", "after": "ripgrep 14.1.1"}
    audited = run_inprocess("audit", "v3", cwd=v2_frozen)
    assert audited.code == 0 and "graph_v3 was cut with ripgrep 14.1.1" in audited.out, audited.text
    # Back to the pinned ripgrep at v4: a move again, the other way.
    _edit(version, "version: 3\n", "version: 4\n")
    _cut(v2_frozen, "v4")
    back = _delta(v2_frozen, "graph_v4")
    assert "these dimensions moved: **Gate B grep oracle**" in back
    assert "Gate B grep oracle: ripgrep 14.1.1 → ripgrep 15.2.0" in back


# 8. The suite's own fixture schema changes a constraint, no group: "fixture schema" moved.
@pytest.mark.parametrize("constraint", ["enum", "required"])
def test_case8_a_custom_schema_constraint_change_moves_the_checks(api: Path, constraint: str) -> None:
    schema = json.loads((REPO / "schemas/generic.schema.json").read_text(encoding="utf-8"))
    (api / "suite.schema.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    _edit(api / "freezer.yaml", "    kind: generic\n", "    schema: suite.schema.json\n")
    commit_all(api, "the api suite's own schema")
    _cut(api, "v1", "--suite", "api")
    groups = {k: v.get("x-freezer-group") for k, v in schema["properties"].items()}
    if constraint == "enum":
        schema["properties"]["class"]["enum"] = ["edit", "explain"]
    else:
        schema["required"] = [*schema["required"], "class"]
    assert {k: v.get("x-freezer-group") for k, v in schema["properties"].items()} == groups
    (api / "suite.schema.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    _edit(api / "drafts/api/version.yaml", "version: 1\n", "version: 2\n")
    _cut(api, "v2", "--suite", "api")
    delta = _delta(api, "api_v2")
    assert "these dimensions moved: **checks**" in delta
    assert re.search(r"- fixture schema: custom [0-9a-f]{16} → custom [0-9a-f]{16}", delta), delta
    recorded = json.loads((api / "versions/api_v2/delta.json").read_text())
    assert "checks" in recorded["moved"]
    assert [c["path"] for c in recorded["checks"]] == ["fixture schema"]
    assert (api / "versions/api_v2/fixture.schema.json").read_bytes() == (api / "suite.schema.json").read_bytes()


# 9. GIT_* variables of the caller (a hook, a CI step) never redirect freezer's git calls.
@pytest.mark.parametrize(
    "variables",
    [
        ("GIT_DIR", "GIT_WORK_TREE"),
        ("GIT_INDEX_FILE",),
        ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"),
        ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_NAMESPACE"),
    ],
)
def test_case9_git_variables_of_the_caller_are_ignored(reg: Path, tmp_path: Path, variables: tuple[str, ...]) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "README.md").write_text("another repository\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "another history")
    values = {
        "GIT_DIR": str(other / ".git"),
        "GIT_WORK_TREE": str(other),
        "GIT_INDEX_FILE": str(other / ".git/index"),
        "GIT_OBJECT_DIRECTORY": str(other / ".git/objects"),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(other / ".git/objects"),
        "GIT_COMMON_DIR": str(other / ".git"),
        "GIT_NAMESPACE": "elsewhere",
    }
    env = {name: values[name] for name in variables}
    _cut(reg, "v1")
    commit_all(reg, "freeze v1")
    before = snapshot(reg / "versions")
    set_drafts(reg, "v2")
    cut = run_inprocess("cut", "v2", cwd=reg, env=env)
    assert cut.code == 0, cut.text
    assert "resolves to 7df885dbe3b4ac5017f1bbfb08604e60dabb1f25" in cut.out
    clean = run_inprocess("audit", cwd=reg)  # without the variables: what was frozen is the real code's
    assert clean.code == 0 and clean.out.count("code: verified") == 2, clean.text
    for command in (["audit"], ["check"], ["validate"], ["cut", "v2"]):
        result = run_inprocess(*command, cwd=reg, env=env)
        assert result.code == 0, (command, result.text)
    assert "identical inputs" in result.out, result.out
    assert {k: v for k, v in snapshot(reg / "versions").items() if k.startswith("graph_v1/")} == before
    # The registry's own index is the one check reads: a tampered frozen file is still found.
    target = reg / "versions/graph_v1/METHOD.md"
    target.chmod(0o644)
    target.write_text(target.read_text() + "\n")
    tampered = run_inprocess("check", cwd=reg, env=env)
    assert_clean_failure(tampered)
    assert "versions/graph_v1/METHOD.md" in tampered.out


# 10. A key written twice: refused at validate, where it is written.
@pytest.mark.parametrize(
    ("suite", "rel", "old", "new", "key"),
    [
        ("api", "fixtures/add-timeout-flag.yaml", "prompt: >-\n", "prompt: Rename the crate.\nprompt: >-\n", "prompt"),
        (
            "graph",
            "fixtures/locate-register-tools.yaml",
            "question: Where",
            "question: What registers the graph tools?\nquestion: Where",
            "question",
        ),
        ("graph", "fixtures/locate-register-tools.yaml", "    line: 15\n", "    line: 15\n    line: 16\n", "line"),
        ("graph", "version.yaml", "purpose: >-\n", "purpose: Re-measured.\npurpose: >-\n", "purpose"),
    ],
)
def test_case10_a_duplicate_key_is_refused_where_it_is_written(
    api: Path, suite: str, rel: str, old: str, new: str, key: str
) -> None:
    target = api / "drafts" / suite / rel
    _edit(target, old, new)
    lines = target.read_text(encoding="utf-8").splitlines()
    line = [n for n, text in enumerate(lines, 1) if text.strip().startswith(f"{key}:")][1]  # the second one
    for command in (["validate"], ["cut", "v1", "--suite", suite]):
        result = run_inprocess(*command, cwd=api)
        assert_clean_failure(result)
        assert f"drafts/{suite}/{rel}:{line}:" in result.text, result.text
        assert f"duplicate key {key}" in result.text or f"duplicate key '{key}'" in result.text, result.text
    assert not (api / "versions" / f"{suite}_v1").exists()


# 3, the registry's side: a frozen file's execute bit flipped in the working tree (bytes unchanged) is a
# modification to check, as it is to git status. (The drafts' side, modes recorded and shown in §Delta,
# is in test_silent_change_bytes.py.)
@pytest.mark.parametrize("rel", ["graph_v1/METHOD.md", "graph_v1/fixtures/locate-register-tools.yaml"])
def test_case3_a_frozen_file_made_executable_is_a_modification_to_check(reg: Path, rel: str) -> None:
    _cut(reg, "v1")
    commit_all(reg, "freeze v1")
    target = reg / "versions" / rel
    data = target.read_bytes()
    target.chmod(0o555)
    result = run_inprocess("check", cwd=reg)
    assert_clean_failure(result)
    assert f"versions/{rel}" in result.out and "frozen file modified" in result.out, result.out
    assert target.read_bytes() == data
    target.chmod(0o444)
    assert run_inprocess("check", cwd=reg).code == 0


def test_case1_a_replace_ref_in_the_registry_cannot_hide_a_tampered_frozen_file(v2_frozen: Path) -> None:
    base = git(v2_frozen, "rev-parse", "HEAD")
    target = v2_frozen / "versions/graph_v1/METHOD.md"
    target.chmod(0o644)
    target.write_text(target.read_text() + "\nA sentence nobody froze.\n")
    commit_all(v2_frozen, "tamper")
    tampered = git(v2_frozen, "rev-parse", "HEAD")
    git(v2_frozen, "replace", base, tampered)  # the base now shows the tampered tree to plain git
    assert git(v2_frozen, "diff", "--stat", base, "HEAD") == ""
    result = run_inprocess("check", "--base", base, cwd=v2_frozen)
    assert_clean_failure(result)
    assert "versions/graph_v1/METHOD.md" in result.out and "frozen file modified" in result.out, result.out
