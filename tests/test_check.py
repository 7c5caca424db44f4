"""freezer check, list/show/diff, the Python API, the demo and the pre-commit hooks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_git_calls_read_only import calls, wrapper

from freezer.git.gitrepo import run_git

from conftest import REPO, assert_clean_failure, run_inprocess
from registry_helpers import commit_all, set_drafts


@pytest.fixture
def v1_frozen(reg: Path) -> Path:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    commit_all(reg, "freeze v1")
    return reg


def test_commit_changing_a_frozen_file_fails(v1_frozen: Path) -> None:
    target = v1_frozen / "versions/graph_v1/fixtures/locate-register-tools.yaml"
    target.chmod(0o644)
    target.write_text(target.read_text() + "# tweak\n")
    commit_all(v1_frozen, "tweak a frozen fixture")
    result = run_inprocess("check", "--base", "HEAD~1", cwd=v1_frozen)
    assert_clean_failure(result)
    assert "versions/graph_v1/fixtures/locate-register-tools.yaml:1: $: frozen file modified" in result.out
    # the next step, not only the fact: how to restore it, and where a change belongs instead
    base = result.out.split("frozen in ")[1][:8]
    restore = f"git checkout {base} -- versions/graph_v1/fixtures/locate-register-tools.yaml"
    assert f"restore it with `{restore}`" in result.out
    assert "`freezer next`" in result.out


def test_a_deleted_version_is_one_problem_that_says_how_to_restore_it(v1_frozen: Path) -> None:
    shutil.rmtree(v1_frozen / "versions/graph_v1")
    result = run_inprocess("check", "--base", "HEAD", cwd=v1_frozen)
    assert_clean_failure(result)
    problems = [line for line in result.out.splitlines() if "graph_v1" in line]
    assert len(problems) == 1, result.out
    assert problems[0].startswith("versions/graph_v1: $: frozen version deleted: graph_v1 (")
    assert "`git checkout " in problems[0] and "-- versions/graph_v1`" in problems[0]
    assert "`freezer yank graph_v1 --reason" in problems[0]


def test_deleted_and_renamed_versions_fail(v1_frozen: Path) -> None:
    (v1_frozen / "versions/graph_v1").rename(v1_frozen / "versions/graph_v9")
    result = run_inprocess("check", "--base", "HEAD", cwd=v1_frozen)
    assert_clean_failure(result)
    assert "versions/graph_v1: $: frozen version deleted: graph_v1" in result.out
    assert "graph_v9" in result.out


def test_adding_a_valid_version_passes(v1_frozen: Path) -> None:
    set_drafts(v1_frozen, "v2")
    commit_all(v1_frozen, "drafts v2")
    assert run_inprocess("cut", "v2", cwd=v1_frozen).code == 0
    commit_all(v1_frozen, "freeze v2")
    result = run_inprocess("check", "--base", "HEAD~2", cwd=v1_frozen)
    assert result.code == 0, result.text
    assert "new: graph_v2" in result.out


def test_adding_a_broken_version_fails(v1_frozen: Path) -> None:
    set_drafts(v1_frozen, "v2")
    assert run_inprocess("cut", "v2", cwd=v1_frozen).code == 0
    method = v1_frozen / "versions/graph_v2/METHOD.md"
    method.chmod(0o644)
    method.write_text(method.read_text().replace("moved", "shifted"))
    result = run_inprocess("check", "--base", "HEAD", cwd=v1_frozen)
    assert_clean_failure(result)
    assert "new version graph_v2" in result.out


def test_valid_draft_edit_passes_invalid_fails(v1_frozen: Path) -> None:
    fixture = v1_frozen / "drafts/graph/fixtures/locate-register-tools.yaml"
    fixture.write_text(fixture.read_text().replace("question: Where", "question: Precisely where"))
    commit_all(v1_frozen, "edit a draft")
    assert run_inprocess("check", "--base", "HEAD~1", cwd=v1_frozen).code == 0
    fixture.write_text(fixture.read_text().replace("class: locate", "class: 7"))
    result = run_inprocess("check", "--base", "HEAD~1", cwd=v1_frozen, env={"GITHUB_ACTIONS": "true"})
    assert_clean_failure(result)
    assert "::error file=drafts/graph/fixtures/locate-register-tools.yaml,line=2" in result.out


def test_default_base_is_the_merge_base_with_origin(v1_frozen: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(v1_frozen), str(clone)], check=True)
    shutil.copytree(v1_frozen / "sample-code", clone / "sample-code")
    subprocess.run(["git", "checkout", "-q", "-b", "feature"], cwd=clone, check=True)
    target = clone / "versions/graph_v1/METHOD.md"
    target.write_text(target.read_text() + "\n")
    commit_all(clone, "touch METHOD.md")
    result = run_inprocess("check", cwd=clone)
    assert_clean_failure(result)
    assert "(merge-base of HEAD and origin/HEAD)" in result.out
    assert "versions/graph_v1/METHOD.md:1" in result.out
    assert_clean_failure(run_inprocess("check", "--base", "no-such-branch", cwd=clone), code=2)


def test_without_an_upstream_the_base_is_head_learnt_with_the_top_in_one_git_call(
    v1_frozen: Path, tmp_path: Path
) -> None:
    """A pre-commit hook in a repository with no upstream and no origin: the base is HEAD, and the
    repository's top comes with it in one ``git rev-parse``, not three (each a hook's milliseconds)."""
    log = tmp_path / "git-calls"
    env = {"PATH": f"{wrapper(tmp_path / 'bin', log)}{os.pathsep}{os.environ['PATH']}"}
    result = run_inprocess("check", cwd=v1_frozen, env=env)
    assert result.code == 0, result.text
    head = run_git(["rev-parse", "HEAD"], v1_frozen).strip()
    assert f"against {head[:8]} (HEAD, as there is no upstream branch or origin/HEAD" in result.out, result.text
    rev_parses = [args for sub, *args in calls(log) if sub == "rev-parse"]
    asked_top = [args for args in rev_parses if "--show-toplevel" in args]
    assert asked_top == [["--show-toplevel", "--verify", "--quiet", "HEAD^{commit}"]], rev_parses
    assert not [args for args in rev_parses if "--is-inside-work-tree" in args], rev_parses


def test_check_outside_a_git_repository_is_a_usage_error(reg: Path, tmp_path: Path) -> None:
    registry = tmp_path / "no-git"
    shutil.copytree(reg, registry, ignore=shutil.ignore_patterns(".git"))
    result = run_inprocess("check", cwd=registry)
    assert_clean_failure(result, code=2)
    assert "is not a git repository; freezer check compares against a base ref" in result.err, result.text


def test_list_show_diff(v1_frozen: Path) -> None:
    set_drafts(v1_frozen, "v2")
    assert run_inprocess("cut", "v2", cwd=v1_frozen).code == 0
    listing = run_inprocess("list", cwd=v1_frozen)
    assert listing.code == 0
    assert "graph_v2  7df885db" in listing.out and "4       3        impact, locate, trace  ok" in listing.out
    rows = json.loads(run_inprocess("list", "--format", "json", cwd=v1_frozen).out)["result"]["versions"]
    assert [r["version"] for r in rows] == ["graph_v1", "graph_v2"]
    shown = run_inprocess("show", "v2", cwd=v1_frozen)
    assert "pinned 7df885dbe3b4ac5017f1bbfb08604e60dabb1f25" in shown.out
    assert "deps-orbit-common-reverse-consumers" in shown.out and "dropped at gate_b" in shown.out
    delta = json.loads(run_inprocess("diff", "graph_v1", "graph_v2", "--format", "json", cwd=v1_frozen).out)["result"]
    frozen_delta = json.loads((v1_frozen / "versions/graph_v2/delta.json").read_text())
    # The same engine: the same sections and verdicts; JSON keeps values whole where delta.json clips them.
    assert sorted(delta) == sorted(frozen_delta)
    assert (delta["moved"], delta["unmoved"], delta["unknown"]) == (
        frozen_delta["moved"],
        frozen_delta["unmoved"],
        frozen_delta["unknown"],
    )
    assert delta["tool_surface"] == frozen_delta["tool_surface"]
    assert "[surface] 7e86d41c" in run_inprocess("diff", "v1", "v2", cwd=v1_frozen).out
    assert_clean_failure(run_inprocess("show", "v7", cwd=v1_frozen), code=2)


def test_python_api(v1_frozen: Path) -> None:
    import freezer
    from freezer.domain.errors import IntegrityError

    loaded = freezer.load("graph_v1", registry=v1_frozen)
    assert loaded.name == "graph_v1"
    assert len(loaded.landed) == 6
    manifest = v1_frozen / "versions/graph_v1/manifest.json"
    import hashlib

    assert loaded.manifest_sha256 == hashlib.sha256(manifest.read_bytes()).hexdigest()
    assert loaded.fixture("locate-register-tools")["class"] == "locate"
    target = v1_frozen / "versions/graph_v1/fixtures/locate-register-tools.yaml"
    target.chmod(0o644)
    target.write_text(target.read_text() + "#\n")
    with pytest.raises(IntegrityError, match=r"locate-register-tools\.yaml: content changed"):
        freezer.load("v1", registry=v1_frozen)


def test_demo(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    result = run_inprocess("demo", str(target))
    assert result.code == 0, result.text
    assert "✓ audit graph_v2: 13 data files hashed; chain to graph_v1 intact" in result.out
    assert (target / "versions/graph_v2/METHOD.md").is_file()
    audit = run_inprocess("audit", cwd=target)
    assert audit.code == 0, audit.text
    assert "code: verified at 7df885db" in audit.out
    status = subprocess.run(["git", "status", "--porcelain"], cwd=target, capture_output=True, text=True)
    assert status.stdout == ""
    assert_clean_failure(run_inprocess("demo", str(target)), code=2)


def _hook_repository(scratch: Path) -> tuple[str, str]:
    """This checkout as pre-commit's ``try-repo`` takes it: the repository at HEAD, or, when it has
    uncommitted edits, a clone with them committed on top (try-repo's shadow repository)."""
    head = run_git(["rev-parse", "HEAD"], REPO).strip()
    edits = subprocess.run(["git", "diff", "--binary", "HEAD"], cwd=REPO, capture_output=True, check=True).stdout
    if not edits:
        return str(REPO), head
    shadow = scratch / "shadow"
    subprocess.run(["git", "clone", "-q", str(REPO), str(shadow)], check=True)
    subprocess.run(["git", "apply", "--index", "-"], cwd=shadow, input=edits, check=True)
    commit_all(shadow, "the uncommitted edits")
    return str(shadow), run_git(["rev-parse", "HEAD"], shadow).strip()


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("pre-commit") is None and not (Path(sys.executable).parent / "pre-commit").exists(),
    reason="pre-commit is not installed",
)
def test_pre_commit_runs_freezers_hooks_from_this_repository(v1_frozen: Path, tmp_path: Path) -> None:
    """Every hook of .pre-commit-hooks.yaml, installed by pre-commit from this repository as a user's
    config names it (repo and rev), passes on a registry, refuses an edited frozen file, and passes on this
    repository, whose versions/ is a registry too. One config and one PRE_COMMIT_HOME: pre-commit
    builds the hook environment (a pip install of freezer) once, where three ``try-repo`` runs built
    it three times, each in a store of its own (about 8 s each)."""
    precommit = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    repo, rev = _hook_repository(tmp_path)
    config = tmp_path / "pre-commit-config.yaml"
    hooks = [{"id": hook["id"]} for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())]
    assert [hook["id"] for hook in hooks] == ["freezer-validate", "freezer-check"]
    config.write_text(json.dumps({"repos": [{"repo": repo, "rev": rev, "hooks": hooks}]}), encoding="utf-8")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    def pre_commit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [precommit, "run", "--config", str(config), "--all-files", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
        )

    ok = pre_commit(cwd=v1_frozen)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "freezer validate (fixture drafts)" in ok.stdout
    assert "freezer check (frozen versions never change)" in ok.stdout and "Passed" in ok.stdout
    target = v1_frozen / "versions/graph_v1/METHOD.md"
    target.write_text(target.read_text() + "\n")
    bad = pre_commit("freezer-check", cwd=v1_frozen)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "frozen file modified" in bad.stdout
    own = pre_commit(cwd=REPO)
    assert own.returncode == 0, own.stdout + own.stderr
    assert "freezer check (frozen versions never change)" in own.stdout
    assert len(list((tmp_path / "pre-commit-home").glob("repo*/py_env-*"))) == 1, "one hook environment"
