"""Issue 25, class 4 (and class 8's merge commit): the tool-surface scan follows content, not names.

Each test builds the case in the tests' own registry (real git, a real submodule,
real symbolic links) and cuts through freezer's command line: a link whose target
moves or changes, a submodule whose gitlink is bumped (with and without its
repository), a folder that moved away from its glob, a binary rolled back to an
older build, and a merge commit. What freezer cannot see is unknown in METHOD.md,
the manifest and audit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from freezer.domain.manifestparts import CodeRepoIdentity
from freezer.git.gitrepo import DETERMINISTIC_ENV

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import code_commit, commit_all, set_build_sha

TOOLS = "crates/orbit-graph/src/tools"
LINK = f"{TOOLS}/rank.rs"


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **DETERMINISTIC_ENV, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _head(repo: Path) -> str:
    return _git(repo, "rev-parse", "HEAD")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _cut(reg: Path, label: str) -> str:
    result = run_inprocess("cut", label, cwd=reg)
    assert result.code == 0, result.text
    return result.text


def _draft(reg: Path, number: int, build: str, declared: list[str]) -> Path:
    """The next draft: v2's fixtures, ``declared`` as its tool-surface commits, built at ``build``."""
    version = reg / "drafts/graph/version.yaml"
    text = version.read_text(encoding="utf-8")
    text = re.sub(r"^version: \d+\n", f"version: {number}\n", text, flags=re.M)
    entries = "".join(
        f"  - sha: '{sha}'\n    dimension: surface\n    effect: change {i}\n" for i, sha in enumerate(declared)
    )
    text = re.sub(
        r"tool_surface_commits:(?: \[\])?\n(?:  .*\n)*",
        "tool_surface_commits:\n" + entries if declared else "tool_surface_commits: []\n",
        text,
    )
    version.write_text(text, encoding="utf-8")
    set_build_sha(version, build)
    return version


def _link(code: Path, path: str, target: str, message: str) -> str:
    where = code / path
    if where.is_symlink() or where.exists():
        where.unlink()
    where.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, where)
    commit_all(code, message)
    return _head(code)


def _manifest(reg: Path, name: str) -> Any:
    return json.loads((reg / f"versions/{name}/manifest.json").read_text(encoding="utf-8"))


def _scan(reg: Path, name: str) -> Any:
    return _manifest(reg, name)["tool_surface"]["scan"]


def _delta_section(reg: Path, name: str) -> str:
    method = (reg / f"versions/{name}/METHOD.md").read_text(encoding="utf-8")
    return method[method.index("## Delta vs") :]


@pytest.fixture
def linked(v2_frozen: Path) -> Path:
    """v3 declares the commit that makes a tool file a link to lib/rank.rs, outside the globs."""
    code = v2_frozen / "sample-code"
    (code / "lib").mkdir()
    (code / "lib/rank.rs").write_text("// ranking, first revision\n", encoding="utf-8")
    (code / "lib/other.rs").write_text("// other ranking\n", encoding="utf-8")
    made = _link(code, LINK, "../../../../lib/rank.rs", "tools: rank.rs is lib/rank.rs")
    _draft(v2_frozen, 3, made, [made[:12]])
    _cut(v2_frozen, "v3")
    commit_all(v2_frozen, "freeze v3")
    return v2_frozen


# 1. Symbolic links: a change to the target, and a retarget whose new target then changes.
def test_a_change_to_a_linked_tool_file_outside_the_globs_must_be_declared(linked: Path) -> None:
    scan = _scan(linked, "graph_v3")
    assert scan["rules"] == 2
    assert {"path": LINK, "via": "symlink", "target": "lib/rank.rs"} in scan["followed"]
    changed = code_commit(linked, {"lib/rank.rs": "// ranking, second revision\n"}, "lib: rerank")
    _draft(linked, 4, changed, [])
    result = run_inprocess("cut", "v4", cwd=linked)
    assert_clean_failure(result)
    assert f'undeclared tool-surface commit {changed[:12]} "lib: rerank" touches lib/rank.rs' in result.err
    _draft(linked, 4, changed, [changed[:12]])
    _cut(linked, "v4")
    assert "surface" in json.loads((linked / "versions/graph_v4/delta.json").read_text())["moved"]
    commit_all(linked, "freeze v4")
    audit = run_inprocess("audit", cwd=linked)
    assert audit.code == 0, audit.text


def test_a_retargeted_link_is_followed_to_its_new_target(linked: Path) -> None:
    code = linked / "sample-code"
    retarget = _link(code, LINK, "../../../../lib/other.rs", "tools: rank.rs is lib/other.rs")
    changed = code_commit(linked, {"lib/other.rs": "// other ranking, revised\n"}, "lib: other revised")
    _draft(linked, 4, changed, [])
    result = run_inprocess("cut", "v4", cwd=linked)
    assert_clean_failure(result)
    assert f"undeclared tool-surface commit {retarget[:12]}" in result.err
    assert f'undeclared tool-surface commit {changed[:12]} "lib: other revised" touches lib/other.rs' in result.err
    # The old target is no longer what the tools read, but it was at the previous tip: still watched.
    _draft(linked, 4, changed, [retarget[:12], changed[:12]])
    _cut(linked, "v4")
    targets = {f["target"] for f in _scan(linked, "graph_v4")["followed"]}
    assert {"lib/rank.rs", "lib/other.rs"} <= targets


def test_a_link_through_a_linked_folder_is_followed_link_by_link(v2_frozen: Path) -> None:
    code = v2_frozen / "sample-code"
    (code / "real").mkdir()
    (code / "real/impl.rs").write_text("// impl\n", encoding="utf-8")
    os.symlink("real", code / "alias")
    made = _link(code, f"{TOOLS}/impl.rs", "../../../../alias/impl.rs", "tools: impl.rs through alias/")
    _draft(v2_frozen, 3, made, [made[:12]])
    _cut(v2_frozen, "v3")
    targets = {f["target"] for f in _scan(v2_frozen, "graph_v3")["followed"]}
    assert {"alias", "real/impl.rs"} <= targets
    commit_all(v2_frozen, "freeze v3")
    changed = code_commit(v2_frozen, {"real/impl.rs": "// impl, revised\n"}, "real: revise impl")
    _draft(v2_frozen, 4, changed, [])
    result = run_inprocess("cut", "v4", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f"undeclared tool-surface commit {changed[:12]}" in result.err


def test_a_glob_under_a_linked_folder_scans_the_folder_it_links_to(v2_frozen: Path) -> None:
    code = v2_frozen / "sample-code"
    (code / "src/plugins").mkdir(parents=True)
    (code / "src/plugins/rank.rs").write_text("// plugin ranking\n", encoding="utf-8")
    made = _link(code, "plugins", "src/plugins", "plugins/ is src/plugins/")
    _edit(v2_frozen / "freezer.yaml", "    tool_surface:\n", "    tool_surface:\n      - 'plugins/**'\n")
    _draft(v2_frozen, 3, made, [made[:12]])
    out = _cut(v2_frozen, "v3")
    assert "'plugins/**' matches no file" not in out  # it names files, through the link
    assert {"path": "plugins", "via": "symlink", "target": "src/plugins"} in _scan(v2_frozen, "graph_v3")["followed"]
    commit_all(v2_frozen, "freeze v3")
    changed = code_commit(v2_frozen, {"src/plugins/rank.rs": "// plugin ranking, revised\n"}, "plugins: rerank")
    _draft(v2_frozen, 4, changed, [])
    result = run_inprocess("cut", "v4", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f'undeclared tool-surface commit {changed[:12]} "plugins: rerank" touches src/plugins/rank.rs' in result.err


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("/usr/share/orbit/rank.rs", "outside the repository"),
        ("../../../../../elsewhere/rank.rs", "leaves the repository"),
        ("../../../../lib/missing.rs", "which is not in the tree"),
    ],
)
def test_a_link_freezer_cannot_follow_makes_the_surface_unknown(v2_frozen: Path, target: str, why: str) -> None:
    code = v2_frozen / "sample-code"
    made = _link(code, LINK, target, "tools: rank.rs elsewhere")
    _draft(v2_frozen, 3, made, [made[:12]])
    out = _cut(v2_frozen, "v3")
    assert "tool surface unknown" in out
    unknown = _scan(v2_frozen, "graph_v3")["unknown"]
    assert [u["path"] for u in unknown] == [LINK] and why in unknown[0]["why"]
    delta = json.loads((v2_frozen / "versions/graph_v3/delta.json").read_text())
    names = [u["dimension"] for u in delta["unknown"]]
    assert f"tool surface at {LINK}" in names
    assert "indexer" in names and "indexer" not in delta["unmoved"]
    section = _delta_section(v2_frozen, "graph_v3")
    assert f"**tool surface at {LINK}**" in section.replace("\\", "")
    assert "**indexer** (" in section and "did not move: no commit touching it" not in section
    commit_all(v2_frozen, "freeze v3")
    audit = run_inprocess("audit", "v3", cwd=v2_frozen)
    assert audit.code == 0, audit.text
    assert f"tool surface unknown at {LINK}" in audit.out


# 2. Submodules: a gitlink bump under a glob, with and without the submodule's repository.
def _submodule(tmp_path: Path, code: Path, path: str) -> Path:
    upstream = tmp_path / "upstream-tools"
    upstream.mkdir()
    _git(upstream, "init", "-q", "-b", "main")
    (upstream / "search.rs").write_text("// vendored search\n", encoding="utf-8")
    _git(upstream, "add", "-A")
    _git(upstream, "commit", "-q", "-m", "vendored search")
    _git(code, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), path)
    _git(code, "commit", "-q", "-m", f"vendor {path}")
    return upstream


def _bump(code: Path, upstream: Path, path: str, text: str) -> tuple[str, str]:
    (upstream / "search.rs").write_text(text, encoding="utf-8")
    _git(upstream, "commit", "-q", "-am", "vendored search revised")
    new = _head(upstream)
    _git(code / path, "-c", "protocol.file.allow=always", "fetch", "-q", "origin")
    _git(code / path, "checkout", "-q", new)
    _git(code, "add", path)
    _git(code, "commit", "-q", "-m", f"bump {path}")
    return _head(code), new


@pytest.mark.parametrize("where", [f"{TOOLS}/vendored", "vendor/tools"])
def test_a_gitlink_bump_is_a_surface_change_and_its_history_is_read(
    v2_frozen: Path, tmp_path: Path, where: str
) -> None:
    code = v2_frozen / "sample-code"
    if not where.startswith(TOOLS):  # a submodule above a glob: the surface is inside it
        _edit(v2_frozen / "freezer.yaml", "    tool_surface:\n", f"    tool_surface:\n      - '{where}/*.rs'\n")
        commit_all(v2_frozen, "the vendored tools are tool surface")
    upstream = _submodule(tmp_path, code, where)
    added = _head(code)
    _draft(v2_frozen, 3, added, [added[:12]])
    _cut(v2_frozen, "v3")
    commit_all(v2_frozen, "freeze v3")
    bump, inner = _bump(code, upstream, where, "// vendored search, revised\n")
    _draft(v2_frozen, 4, bump, [])
    result = run_inprocess("cut", "v4", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f'undeclared tool-surface commit {bump[:12]} "bump {where}" touches {where}' in result.err
    _draft(v2_frozen, 4, bump, [bump[:12]])
    _cut(v2_frozen, "v4")
    [sub] = _scan(v2_frozen, "graph_v4")["submodules"]
    assert sub["path"] == where and sub["after"] == inner and sub["unreadable"] is None
    assert [c["subject"] for c in sub["commits"]] == ["vendored search revised"]
    commit_all(v2_frozen, "freeze v4")
    audit = run_inprocess("audit", "v4", cwd=v2_frozen)
    assert audit.code == 0, audit.text


def test_a_gitlink_bump_without_the_submodule_repository_is_unknown(v2_frozen: Path, tmp_path: Path) -> None:
    code = v2_frozen / "sample-code"
    where = f"{TOOLS}/vendored"
    upstream = _submodule(tmp_path, code, where)
    added = _head(code)
    _draft(v2_frozen, 3, added, [added[:12]])
    _cut(v2_frozen, "v3")
    commit_all(v2_frozen, "freeze v3")
    bump, inner = _bump(code, upstream, where, "// vendored search, revised\n")
    _git(code, "submodule", "deinit", "-q", "-f", where)  # the clone now lacks the submodule's repository
    shutil.rmtree(code / ".git/modules")
    _draft(v2_frozen, 4, bump, [bump[:12]])
    out = _cut(v2_frozen, "v4")
    assert "tool surface unknown" in out
    [sub] = _scan(v2_frozen, "graph_v4")["submodules"]
    assert sub["after"] == inner and "not present" in sub["unreadable"]
    delta = json.loads((v2_frozen / "versions/graph_v4/delta.json").read_text())
    assert f"tool surface at {where}" in [u["dimension"] for u in delta["unknown"]]
    assert "indexer" not in delta["unmoved"]
    section = _delta_section(v2_frozen, "graph_v4")
    assert "what it brings is unknown" in section
    commit_all(v2_frozen, "freeze v4")
    audit = run_inprocess("audit", "v4", cwd=v2_frozen)
    assert audit.code == 0, audit.text
    assert f"tool surface unknown at {where}" in audit.out
    # Where the clone gets the submodule's repository back, audit reads the move and says so.
    _git(code, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
    again = run_inprocess("audit", "v4", cwd=v2_frozen)
    assert again.code == 0, again.text
    assert f"submodule {where} is readable here: 1 commit(s) in the move" in again.out


# Audit re-derives what the scan follows from the recorded tips' trees, not from the record.
def test_audit_finds_a_link_target_commit_a_scan_record_left_out(linked: Path) -> None:
    from freezer.domain.manifest import Scan
    from freezer.freeze import assemble as assemble_mod
    from freezer.freeze.snapshot import write_version
    from freezer.parse.yamlload import load_file
    from freezer.registry import config as config_mod
    from freezer.registry.model import Suite
    from freezer.registry.record import read_version_files, side
    from freezer.resolve.provenance import ResolvedProvenance

    changed = code_commit(linked, {"lib/rank.rs": "// ranking, second revision\n"}, "lib: rerank")
    version = _draft(linked, 4, changed, [])
    cfg = config_mod.load(linked)
    suite = cfg.suite(None)
    v3 = Suite.of(suite).versions()[-1]
    model = v3.manifest_model()
    # A scan record that claims rules 2 but followed nothing: what a cut that ignored the link would write.
    hollow = Scan(model.scan_tips, (changed,), model.scan_globs, True, rules=2)
    resolved = ResolvedProvenance(model.pinned_sha, changed, [], hollow)
    resolved.repo_identity = CodeRepoIdentity.from_data(v3.manifest()["code_repo"])
    resolved.grep = v3.manifest()["checks"]["grep"]
    doc = load_file(version, "version.yaml").document
    assert doc is not None
    drafts = {p.relative_to(suite.drafts).as_posix(): p.read_bytes() for p in suite.drafts.rglob("*.yaml")}
    frozen_v3 = {rel: (v3.path / rel).read_bytes() for rel in v3.manifest()["files"]}
    previous = side(model, *read_version_files(frozen_v3))
    template = (v3.path / "METHOD.md.j2").read_bytes()
    record = assemble_mod.record(suite, 4, doc.data, resolved, v3, template)
    files = assemble_mod.assemble(record, drafts, template, previous, suite.dimensions, read_version_files(drafts))
    write_version(cfg.root, suite.versions / "graph_v4", files)
    assert run_inprocess("audit", "--no-code", cwd=linked).code == 0  # consistent files: only the code can tell
    result = run_inprocess("audit", "v4", cwd=linked)
    assert_clean_failure(result)
    assert "the tool-surface scan's followed links and gitlinks differ from what the manifest recorded" in result.out
    assert f'undeclared tool-surface commit {changed[:12]} "lib: rerank" in the recorded range' in result.out


# 3. A folder moved away from its glob: refused, unless the suite says that surface is gone.
def test_a_glob_that_no_longer_matches_is_refused_until_declared_gone(v2_frozen: Path) -> None:
    code = v2_frozen / "sample-code"
    _git(code, "mv", TOOLS, "crates/orbit-graph/src/toolbox")
    _git(code, "commit", "-q", "-m", "move tools/ to toolbox/")
    moved = _head(code)
    config = v2_frozen / "freezer.yaml"
    _edit(config, "    tool_surface:\n", "    tool_surface:\n      - 'crates/orbit-graph/src/toolbox/**'\n")
    _draft(v2_frozen, 3, moved, [moved[:12]])
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert re.search(
        r"freezer\.yaml:\d+: \$\.suites\.graph\.tool_surface\[\d\]: tool_surface glob "
        rf"'{TOOLS}/\*\*' matched files at \w{{8}} \(graph_v2\) and matches none at {moved[:8]}",
        result.err,
    ), result.err
    assert "tool_surface_gone" in result.err
    # Dropping the glob from the config does not help: the previous version's scan keeps it.
    _edit(config, f"      - '{TOOLS}/**'\n", "")
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f"'{TOOLS}/**' (kept from graph_v2's scan) matched files" in result.err
    _edit(config, "    tool_surface:\n", f"    tool_surface_gone:\n      - '{TOOLS}/**'\n    tool_surface:\n")
    _cut(v2_frozen, "v3")
    assert _scan(v2_frozen, "graph_v3")["gone"] == [f"{TOOLS}/**"]
    commit_all(v2_frozen, "freeze v3")
    # The next version inherits "gone" from v3's scan, and the new folder is scanned.
    changed = code_commit(v2_frozen, {"crates/orbit-graph/src/toolbox/search.rs": "// moved\n"}, "toolbox: edit")
    _draft(v2_frozen, 4, changed, [])
    _edit(config, f"    tool_surface_gone:\n      - '{TOOLS}/**'\n", "")
    result = run_inprocess("cut", "v4", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f"undeclared tool-surface commit {changed[:12]}" in result.err
    assert "matches none" not in result.err


# 4. A binary rolled back past the previous version's surface commits: a move, stated.
def test_a_rollback_to_an_older_build_is_stated_as_a_move(v2_frozen: Path) -> None:
    v1 = _manifest(v2_frozen, "graph_v1")
    older = v1["pinned_sha"]["full"]
    _draft(v2_frozen, 3, str(older), [])
    _cut(v2_frozen, "v3")
    back = {c["sha"][:8] for c in _scan(v2_frozen, "graph_v3")["rolled_back"]}
    assert {"56117f6c", "5f861caf", "7e86d41c"} <= back
    delta = json.loads((v2_frozen / "versions/graph_v3/delta.json").read_text())
    assert {"indexer", "descriptions", "surface"} <= set(delta["moved"])
    rolled = [c for e in delta["tool_surface"] for c in e["commits"] if c["effect"].startswith("rolled back")]
    assert {c["sha"][:8] for c in rolled} >= {"56117f6c", "5f861caf", "7e86d41c"}
    section = _delta_section(v2_frozen, "graph_v3")
    assert "did not move: no commit touching it" not in section
    assert re.search(r"`7e86d41c` T20260423-0506 \(surface trim\) — rolled back", section), section
    commit_all(v2_frozen, "freeze v3")
    audit = run_inprocess("audit", "v3", cwd=v2_frozen)
    assert audit.code == 0, audit.text
    assert "rolled back" in audit.out


def test_a_build_on_a_branch_without_a_declared_commit_rolls_it_back(v2_frozen: Path) -> None:
    code = v2_frozen / "sample-code"
    base = _head(code)
    surface = code_commit(v2_frozen, {f"{TOOLS}/search.rs": "// search, revised\n"}, "search: revise")
    _draft(v2_frozen, 3, surface, [surface[:12]])
    _cut(v2_frozen, "v3")
    commit_all(v2_frozen, "freeze v3")
    _git(code, "checkout", "-q", "-b", "hotfix", base)
    other = code_commit(v2_frozen, {"README.md": "# orbit\n\nhotfix\n"}, "readme: hotfix")
    _draft(v2_frozen, 4, other, [])
    _cut(v2_frozen, "v4")
    [back] = _scan(v2_frozen, "graph_v4")["rolled_back"]
    assert back["sha"] == surface and back["paths"] == [f"{TOOLS}/search.rs"]
    delta = json.loads((v2_frozen / "versions/graph_v4/delta.json").read_text())
    assert "surface" in delta["moved"]
    section = _delta_section(v2_frozen, "graph_v4")
    assert f"`{surface[:8]}`" in section and "rolled back" in section


# 5. (class 8) A merge commit lists the paths it brings.
def test_a_merge_commit_lists_the_paths_it_brings(v2_frozen: Path) -> None:
    code = v2_frozen / "sample-code"
    _git(code, "checkout", "-q", "-b", "side")
    side = code_commit(v2_frozen, {f"{TOOLS}/side.rs": "// side\n"}, "side: add side.rs")
    _git(code, "checkout", "-q", "-")
    main = code_commit(v2_frozen, {f"{TOOLS}/main.rs": "// main\n"}, "main: add main.rs")
    _git(code, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = _head(code)
    _draft(v2_frozen, 3, merge, [])
    result = run_inprocess("cut", "v3", cwd=v2_frozen)
    assert_clean_failure(result)
    assert f'undeclared tool-surface commit {merge[:12]} "merge side" touches {TOOLS}/side.rs;' in result.err
    assert "touches ;" not in result.err
    for sha in (side, main):
        assert f"undeclared tool-surface commit {sha[:12]}" in result.err
    # Declared, the merge touches the surface: the cut goes through.
    _draft(v2_frozen, 3, merge, [side[:12], main[:12], merge[:12]])
    _cut(v2_frozen, "v3")


def test_status_follows_links_as_the_cut_does(linked: Path) -> None:
    changed = code_commit(linked, {"lib/rank.rs": "// ranking, third revision\n"}, "lib: rerank again")
    result = run_inprocess("status", "--format", "json", cwd=linked)
    assert result.code == 1, result.text  # an undeclared commit a cut would refuse
    suites = json.loads(result.out)["result"]["suites"]
    undeclared = [c for s in suites for c in s["undeclared"]]
    assert [c["sha"] for c in undeclared] == [changed], undeclared
    assert undeclared[0]["paths"] == ["lib/rank.rs"]
