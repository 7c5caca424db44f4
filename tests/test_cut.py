"""freezer cut: every check refuses bad input, the write is atomic and final."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, V2, assert_clean_failure, run_forked, run_forked_together, run_inprocess
from registry_helpers import code_commit, commit_all, set_build_sha, set_drafts, snapshot

SEED = REPO.parent / "shared" / "seed" / "000_ce6f45612ba0f861.txt"


def cut_v1_then_draft_v2(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    set_drafts(reg, "v2")
    commit_all(reg, "drafts v2")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_cut_v1_then_v2_and_method(reg: Path) -> None:
    first = run_inprocess("cut", "v1", cwd=reg)
    assert first.code == 0, first.text
    assert "✓ froze graph_v1" in first.out
    set_drafts(reg, "v2")
    second = run_inprocess("cut", "v2", cwd=reg)
    assert second.code == 0, second.text
    version = reg / "versions" / "graph_v2"
    method = (version / "METHOD.md").read_text(encoding="utf-8")
    provenance = (V2 / "version.yaml").read_text(encoding="utf-8")
    import yaml

    block = yaml.safe_load(provenance)["provenance_text"]
    assert block in method
    if SEED.exists():
        assert block in SEED.read_text(encoding="utf-8")
    delta = method[method.index("## Delta vs v1") :]
    for sha in ("56117f6c", "5f861caf", "7e86d41c"):
        assert sha in delta
    for task in ("callers-run-deterministic-containers", "trace-tool-call-event-construct-sites"):
        assert f"`{task}`" in delta
    assert "Removed (5)" in delta and "Added (6)" in delta and "Changed (1)" in delta
    assert "`$.oracle.must_not_include`: added AuditSink, NullSink" in delta
    moved = "fixture set, version record, run configuration, indexer, descriptions, surface, binary, code under test"
    assert f"these dimensions moved: **{moved}**" in delta
    assert "`$.acceptance.min_landed`: 6 → 4" in delta
    assert "- **binary build**: graph_v2: The design notes say" in delta
    assert "> **Caveat.** graph_v2: the binary's build SHA is unknown" in delta
    assert "These did not: checks, Gate B grep oracle." in delta
    manifest = json.loads((version / "manifest.json").read_text())
    assert manifest["pinned_sha"]["short"] == "7df885db"
    assert manifest["previous"]["name"] == "graph_v1"
    sums = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=version, capture_output=True, text=True)
    assert sums.returncode == 0, sums.stdout + sums.stderr
    assert all(not (p.stat().st_mode & 0o222) for p in version.rglob("*") if p.is_file())


def test_first_version_says_there_is_nothing_to_compare(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    method = (reg / "versions" / "graph_v1" / "METHOD.md").read_text()
    assert "There is no earlier version of suite `graph`: `graph_v1` is the first" in method


def test_undeclared_tool_surface_commit_is_refused(reg: Path) -> None:
    cut_v1_then_draft_v2(reg)
    sha = code_commit(
        reg, {"crates/orbit-graph/src/tools/callers.rs": "// changed\n"}, "callers: quietly change output"
    )
    edit(reg / "drafts/graph/version.yaml", "pinned_sha: 7df885db", f"pinned_sha: {sha}")
    before = snapshot(reg / "versions")
    result = run_inprocess("cut", "v2", cwd=reg)
    assert_clean_failure(result)
    assert "step 'check provenance'" in result.err
    assert f'undeclared tool-surface commit {sha[:12]} "callers: quietly change output"' in result.err
    assert "crates/orbit-graph/src/tools/callers.rs" in result.err
    assert snapshot(reg / "versions") == before


def test_declared_commit_outside_the_build_is_refused(reg: Path) -> None:
    cut_v1_then_draft_v2(reg)
    version = reg / "drafts/graph/version.yaml"
    set_build_sha(version, "56117f6c")
    result = run_inprocess("cut", "v2", cwd=reg)
    assert_clean_failure(result)
    assert "commit 5f861caf is not an ancestor of the binary's build SHA 56117f6c" in result.err


def test_ground_truth_off_by_one(reg: Path) -> None:
    cut_v1_then_draft_v2(reg)
    fixture = reg / "drafts/graph/fixtures/callers-run-deterministic-containers.yaml"
    edit(fixture, "line: 486", "line: 487")
    result = run_inprocess("cut", "v2", cwd=reg)
    assert_clean_failure(result)
    assert "step 'verify ground truth'" in result.err
    assert "callers-run-deterministic-containers.yaml:" in result.err
    assert "$.ground_truth[1].line: crates/orbit-engine/src/activity_job/groundhog.rs:487 at 7df885db" in result.err


def test_wrong_container_is_refused(reg: Path) -> None:
    cut_v1_then_draft_v2(reg)
    fixture = reg / "drafts/graph/fixtures/callers-run-deterministic-containers.yaml"
    edit(fixture, "container: load_task\n", "container: verify_checkpoint\n")
    result = run_inprocess("cut", "v2", cwd=reg)
    assert_clean_failure(result)
    assert "groundhog.rs:573 at 7df885db is inside load_task, not verify_checkpoint" in result.err


def test_gate_b_that_no_longer_reproduces(reg: Path) -> None:
    cut_v1_then_draft_v2(reg)
    fixture = reg / "drafts/graph/fixtures/impact-tool-context-struct-literals.yaml"
    edit(fixture, "expected_matches: 240", "expected_matches: 239")
    result = run_inprocess("cut", "v2", cwd=reg)
    assert_clean_failure(result)
    assert "step 'reproduce Gate B'" in result.err
    assert "returns 240 matches in 95 files, the fixture records 239 in 95" in result.err


def test_recut_identical_is_a_noop_and_changed_is_refused(reg: Path) -> None:
    cut_v1_then_draft_v2(reg)
    assert run_inprocess("cut", "v2", cwd=reg).code == 0
    before = snapshot(reg / "versions")
    again = run_inprocess("cut", "v2", cwd=reg)
    assert again.code == 0, again.text
    assert "already frozen with identical inputs" in again.out
    assert snapshot(reg / "versions") == before
    edit(reg / "drafts/graph/fixtures/locate-loopaudit-variants.yaml", "difficulty: easy", "difficulty: medium")
    changed = run_inprocess("cut", "v2", cwd=reg)
    assert_clean_failure(changed)
    assert "fixtures/locate-loopaudit-variants.yaml differs from the frozen copy" in changed.err
    assert "as v3 instead" in changed.err
    assert snapshot(reg / "versions") == before


def test_version_gaps_and_mismatches_are_refused(reg: Path) -> None:
    assert_clean_failure(run_inprocess("cut", "v3", cwd=reg), code=2)
    assert_clean_failure(run_inprocess("cut", "vx", cwd=reg), code=2)
    result = run_inprocess("cut", "v1", cwd=reg)
    assert result.code == 0
    set_drafts(reg, "v1")
    wrong = run_inprocess("cut", "v2", cwd=reg)
    assert_clean_failure(wrong)
    assert "the drafts say version 1, not 2" in wrong.err


@pytest.mark.parametrize(
    ("sha", "message"),
    [
        ("--output=/tmp/pwned", "is not a commit SHA: write 7 to 40 hex digits"),
        ("deadbeefdeadbeef", "does not name a commit"),
    ],
)
def test_bad_pinned_sha(reg: Path, sha: str, message: str) -> None:
    edit(
        reg / "drafts/graph/version.yaml",
        "pinned_sha: bb736e3961b0d3bec4631c48782ff0c286a01456",
        f"pinned_sha: '{sha}'",
    )
    result = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(result)
    assert message in result.err or message in result.out
    assert not Path("/tmp/pwned").exists()


def test_option_like_refs_never_reach_git(reg: Path, tmp_path: Path) -> None:
    from freezer.domain.errors import GitError
    from freezer.git.gitrepo import CodeRepo

    pwned = tmp_path / "pwned"
    with CodeRepo(reg / "sample-code") as code:
        for ref in (f"--output={pwned}", "-c core.pager=touch", "--all"):
            with pytest.raises(GitError, match="looks like an option"):
                code.resolve(ref)
    assert not pwned.exists()


def test_ambiguous_short_sha(tmp_path: Path) -> None:
    from freezer.domain.errors import GitError
    from freezer.git.gitrepo import CodeRepo

    repo = tmp_path / "many"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    stream = []
    for index in range(1500):
        message = f"commit {index}"
        stream.append(
            f"commit refs/heads/main\nmark :{index + 1}\ncommitter t <t@t> {1700000000 + index} +0000\n"
            f"data {len(message)}\n{message}\n"
        )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input="".join(stream), text=True, check=True)
    shas = subprocess.run(["git", "rev-list", "main"], cwd=repo, capture_output=True, text=True).stdout.split()
    by_prefix: dict[str, int] = {}
    for sha in shas:
        by_prefix[sha[:4]] = by_prefix.get(sha[:4], 0) + 1
    prefix = next(p for p, count in by_prefix.items() if count > 1)
    with CodeRepo(repo) as code, pytest.raises(GitError, match="is ambiguous"):
        code.resolve(prefix)
    with CodeRepo(repo) as code:
        assert code.resolve(shas[0][:12]) == shas[0]


def test_dry_run_writes_nothing(reg: Path) -> None:
    result = run_inprocess("cut", "v1", "--dry-run", cwd=reg)
    assert result.code == 0, result.text
    assert result.out.startswith("# graph_v1 — METHOD")
    assert not (reg / "versions").exists()
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=reg, capture_output=True, text=True)
    assert status.stdout.strip() == "!! sample-code/"


def test_template_code_in_fixtures_renders_literally(reg: Path) -> None:
    fixture = reg / "drafts/graph/fixtures/locate-register-tools.yaml"
    edit(
        fixture,
        "question: Where are the graph tools registered?",
        "question: 'Where {{ 7*7 }} {% if x %} a | b `x` <b>hi</b>?'",
    )
    edit(fixture, "  must_include: [register_tools]", "  must_include: [register_tools, 'a | b', \"c\\nd\"]")
    result = run_inprocess("cut", "v1", cwd=reg)
    assert result.code == 0, result.text
    method = (reg / "versions/graph_v1/METHOD.md").read_text()
    assert "{{ 7\\*7 }}" in method or "{{ 7*7 }}" in method
    assert "49" not in method.split("register-tools")[1].split("###")[0]
    # Markdown rules 4 (issue 27): a tag's "<" is escaped by a backslash, not spelt as an entity.
    assert "{% if x %} a \\| b \\`x\\` \\<b>hi\\</b>?" in method
    assert "must_include: register_tools, a \\| b, c d." in method
    for line in method.splitlines():
        if line.startswith("| "):
            cells = line.replace("\\|", "").count("|")
            assert cells >= 3, line
    header_rows = [line for line in method.splitlines() if line.startswith("|---")]
    assert header_rows, method


def test_concurrent_cuts_produce_one_version(reg: Path) -> None:
    # Four processes of their own, forked at once: they race in the cut, not in an interpreter's start.
    racers = run_forked_together(*[["cut", "v1"]] * 4, cwd=reg)
    outcomes = [(racer.code, racer.out, racer.err) for racer in racers]
    for code, out, err in outcomes:
        assert "Traceback" not in out + err
        assert code in (0, 1), out + err
    winners = [o for o in outcomes if "✓ froze graph_v1" in o[1]]
    assert len(winners) == 1, outcomes
    for _, out, err in outcomes:
        if "✓ froze graph_v1" not in out:
            assert "already frozen with identical inputs" in out or "holds the registry lock" in err, (out, err)
    assert [p.name for p in (reg / "versions").iterdir()] == ["graph_v1"]
    staging = reg / ".freezer" / "staging"
    assert not staging.exists() or not any(staging.iterdir())
    assert run_inprocess("audit", "--no-code", cwd=reg).code == 0


def test_sigkill_never_leaves_a_partial_version(reg: Path) -> None:
    import random
    import shutil

    rng = random.Random(7)
    target = reg / "versions" / "graph_v1"
    complete = 0
    for _ in range(12):
        # A process of its own, killed at a random moment (SIGKILL); forked, so the moment falls in the cut.
        run_forked("cut", "v1", cwd=reg, kill_after=rng.uniform(0.05, 0.9))
        if target.exists():
            complete += 1
            assert run_inprocess("audit", "--no-code", cwd=reg).code == 0, "a killed cut left an incomplete version"
            for path in target.rglob("*"):
                path.chmod(0o755 if path.is_dir() else 0o644)
            shutil.rmtree(target)
        versions = reg / "versions"
        assert not versions.exists() or list(versions.iterdir()) == []
    final = run_inprocess("cut", "v1", cwd=reg)
    assert final.code == 0, final.text
    staging = reg / ".freezer" / "staging"
    assert not any(staging.iterdir()), "the next cut must clear staging left by killed cuts"


def test_registry_template_is_used_frozen_and_sandboxed(reg: Path) -> None:
    # A suite template places freezer's §Delta block ({{ delta_block }}); it cannot leave it out.
    (reg / "my-method.j2").write_text(
        "# {{ name }} by our own template\n\n{{ provenance_text | fence }}\n\n{{ delta_block }}\n"
    )
    config = reg / "freezer.yaml"
    config.write_text(
        config.read_text().replace(
            "    code_repo: sample-code\n", "    code_repo: sample-code\n    template: my-method.j2\n"
        )
    )
    dry = run_inprocess("cut", "v1", "--dry-run", cwd=reg)
    assert dry.code == 0, dry.text
    assert dry.out.startswith("# graph_v1 by our own template\n")
    assert run_inprocess("cut", "v1", "--dry-run", cwd=reg).out == dry.out  # rendering is deterministic
    (reg / "my-method.j2").write_text("{{ ''.__class__.__mro__[1].__subclasses__() }}\n{{ delta_block }}\n")
    escape = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(escape)
    assert "my-method.j2: template failed to render" in escape.err
    (reg / "my-method.j2").write_text("line one\n{% if %}\n")
    broken = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(broken)
    assert "my-method.j2:2: template syntax error" in broken.err
    (reg / "my-method.j2").write_text("# {{ name }}\n{{ delta_block }}\n")
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    assert (reg / "versions/graph_v1/METHOD.md.j2").read_text() == "# {{ name }}\n{{ delta_block }}\n"
    assert run_inprocess("audit", cwd=reg).code == 0


def test_templates_are_compiled_once_per_source() -> None:
    from freezer.render.render import TemplateProblem, _compiled, _render, render_method

    first, second = "# {{ name }}\n{{ note | text }}\n", "## {{ name }}!\n"
    context = {"name": "graph_v2", "note": "# not a heading"}
    hits = _compiled.cache_info().hits
    # The in-process path (the shipped template's) compiles once; a registry's own template is
    # compiled and rendered in a bounded child each time, since compiling evaluates constants.
    assert _render(first, context, "t") == "# graph_v2\n\\# not a heading\n"
    assert _render(first, context, "t") == "# graph_v2\n\\# not a heading\n"
    assert _compiled.cache_info().hits == hits + 1
    assert render_method(first, context) == "# graph_v2\n\\# not a heading\n"
    assert render_method(second, context) == "## graph_v2!\n"  # another source, another template
    assert render_method(first, {"name": "graph_v3", "note": ""}) == "# graph_v3\n\n"  # context is not cached
    for _ in range(2):  # a broken template fails every time; failures are not cached as templates
        with pytest.raises(TemplateProblem, match=r"METHOD.md.j2:2: template syntax error"):
            render_method("ok\n{% if %}\n", context)
