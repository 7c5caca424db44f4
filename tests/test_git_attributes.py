"""Attributes and config can never make freezer run a program through git, or hide a change from check.

A committed ``.gitattributes`` line chooses a driver (``filter=x``, ``diff=x``,
``merge=x``) or a conversion (``ident``, ``working-tree-encoding``); the
repository's config, or a file it includes, names the program. Each vector is
first shown to run a marker program under plain git (or, for a conversion, to
change the bytes while ``git diff`` sees nothing); then freezer runs over the
same repository: the marker never appears, and a conversion is reported.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hostile.git_programs import CONVERSIONS, DRIVERS, FROZEN, ID_FILE
from test_git_policy import marker_program, plain_git

from conftest import REPO, assert_clean_failure, run_forked, run_inprocess
from registry_helpers import commit_all, make_registry, set_drafts


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry with graph_v1 frozen and committed."""
    root = make_registry(tmp_path_factory.mktemp("frozen"), tmp_path_factory.mktemp("cache"))
    draft = root / "drafts/graph/fixtures/locate-register-tools.yaml"
    draft.write_text(draft.read_text(encoding="utf-8") + "# $Id$\n", encoding="utf-8")
    commit_all(root, "drafts")
    assert run_inprocess("cut", "v1", cwd=root).code == 0
    commit_all(root, "freeze v1")
    return root


@pytest.fixture
def registry(frozen: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "registry"
    shutil.copytree(frozen, copy, symlinks=True)
    return copy


def commit_attributes(root: Path, text: str) -> None:
    (root / ".gitattributes").write_text(text, encoding="utf-8")
    # A version cut since 0.4 unsets filter, ident and working-tree-encoding in its own
    # .gitattributes, which beats the root's; $GIT_DIR/info/attributes beats both, so the
    # vector still reaches the frozen files and the guard is tested where attributes win.
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_text(text, encoding="utf-8")
    plain_git("add", ".gitattributes", cwd=root, check=True)
    plain_git("commit", "-q", "-m", "attributes", cwd=root, check=True)


_STAMPS = itertools.count(1_000_000_000, 60)


def touch_frozen(root: Path) -> None:
    """Make every frozen file stat-dirty (a time no index has recorded), so that git would re-read,
    and filter, each one."""
    stamp = next(_STAMPS)
    for path in (root / FROZEN).rglob("*"):
        if path.is_file() and not path.is_symlink():
            os.utime(path, (stamp, stamp))


def assert_check_passes_without_running(root: Path, marker: Path) -> None:
    for base in ("HEAD", "HEAD~1"):
        touch_frozen(root)
        result = run_inprocess("check", "--base", base, cwd=root)
        assert result.code == 0, result.text
        assert not marker.exists(), f"freezer check --base {base} ran the program"


def live_vector(root: Path, marker: Path, *git_args: str) -> None:
    """The vector fires under plain git; then the marker is removed for freezer's turn."""
    touch_frozen(root)
    # The drafts too: an attribute of lower precedence than a version's own .gitattributes
    # (core.attributesFile) reaches only them, and plain git's diff still runs it there.
    stamp = next(_STAMPS)
    for path in (root / "drafts").rglob("*"):
        if path.is_file() and not path.is_symlink():
            os.utime(path, (stamp, stamp))
    plain_git(*git_args, cwd=root)
    assert marker.exists(), f"git {' '.join(git_args)} did not run the program; the test proves nothing"
    marker.unlink()


@pytest.mark.parametrize(("name", "keys", "attribute", "fire"), DRIVERS, ids=[d[0] for d in DRIVERS])
def test_drivers_in_the_registry_never_run(
    registry: Path, tmp_path: Path, name: str, keys: dict[str, str], attribute: str, fire: tuple[str, ...]
) -> None:
    if attribute:
        commit_attributes(registry, attribute + "\n")
    else:
        commit_all(registry, "an empty commit, so that HEAD~1 is the frozen one")
    script, marker = marker_program(tmp_path, name)
    outside = tmp_path / "outside.attributes"
    outside.write_text("* filter=x diff=x\n", encoding="utf-8")
    for key, value in keys.items():
        plain_git("config", key, value.format(script=script, attributes=outside), cwd=registry, check=True)
    frozen_bytes = (registry / ID_FILE).read_bytes()
    if fire[0] == "checkout":
        (registry / ID_FILE).unlink()  # a smudge filter runs when git writes a file out
    live_vector(registry, marker, *fire)
    assert (registry / ID_FILE).read_bytes() == frozen_bytes  # a failed filter leaves the bytes as they are
    assert_check_passes_without_running(registry, marker)
    touch_frozen(registry)
    assert run_inprocess("list", cwd=registry).code == 0
    assert not marker.exists()


def test_an_included_config_names_no_program(registry: Path, tmp_path: Path) -> None:
    """The registry's config includes a file outside it, which defines a filter and an fsmonitor."""
    script, marker = marker_program(tmp_path, "include")
    outside = tmp_path / "outside.config"
    outside.write_text(f'[filter "x"]\n\tclean = {script}\n[core]\n\tfsmonitor = {script}\n', encoding="utf-8")
    commit_attributes(registry, "* filter=x\n")
    plain_git("config", "include.path", str(outside), cwd=registry, check=True)
    plain_git("config", f"includeIf.gitdir:{registry}/.git.path", str(outside), cwd=registry, check=True)
    live_vector(registry, marker, "status", "--porcelain")
    assert_check_passes_without_running(registry, marker)


def test_a_merge_driver_never_runs(registry: Path, tmp_path: Path) -> None:
    """Two branches change the same draft; plain git merge runs the driver, check against the other never."""
    script, marker = marker_program(tmp_path, "merge")
    commit_attributes(registry, "* merge=x\n")
    plain_git("config", "merge.x.driver", f"{script} %O %A %B", cwd=registry, check=True)
    draft = registry / "drafts/graph/fixtures/locate-register-tools.yaml"
    original = draft.read_text(encoding="utf-8")
    plain_git("checkout", "-q", "-b", "other", cwd=registry, check=True)
    draft.write_text(original.replace("question: Where", "question: Exactly where"), encoding="utf-8")
    commit_all(registry, "other side")
    plain_git("checkout", "-q", "main", cwd=registry, check=True)
    draft.write_text(original.replace("question: Where", "question: Precisely where"), encoding="utf-8")
    commit_all(registry, "this side")
    plain_git("merge", "-q", "other", cwd=registry)
    assert marker.exists(), "git merge did not run the merge driver"
    marker.unlink()
    plain_git("merge", "--abort", cwd=registry)
    touch_frozen(registry)
    result = run_inprocess("check", "--base", "other", cwd=registry)
    assert result.code == 0, result.text
    assert not marker.exists()


@pytest.mark.parametrize(("name", "line", "path", "written"), CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_a_checkout_conversion_is_a_change(registry: Path, name: str, line: str, path: str, written: bytes) -> None:
    """The blobs are unchanged, so git diff sees nothing; the bytes every reader gets are not the frozen ones."""
    frozen_bytes = (registry / path).read_bytes()
    commit_attributes(registry, line)
    (registry / path).unlink()
    plain_git("checkout", "--", path, cwd=registry, check=True)
    converted = (registry / path).read_bytes()
    assert converted != frozen_bytes and written in converted, f"{name} did not convert {path} at checkout"
    assert plain_git("diff", "--quiet", "HEAD~1", "--", FROZEN, cwd=registry).returncode == 0, "git saw the change"
    result = run_inprocess("check", "--base", "HEAD~1", cwd=registry)
    assert_clean_failure(result)
    assert f"{path}:1: $: frozen file modified" in result.out, result.out
    assert "only the working tree differs" in result.out
    # The bytes are what the audit reads, and it agrees.
    audit = run_inprocess("audit", cwd=registry)
    assert_clean_failure(audit)


def test_assume_unchanged_hides_nothing(registry: Path) -> None:
    """git diff trusts an assume-unchanged entry and never looks at the file; check reads it."""
    target = registry / f"{FROZEN}/METHOD.md"
    plain_git("update-index", "--assume-unchanged", f"{FROZEN}/METHOD.md", cwd=registry, check=True)
    target.chmod(0o644)
    target.write_text(target.read_text(encoding="utf-8").replace("moved", "shifted"), encoding="utf-8")
    assert plain_git("diff", "--quiet", "HEAD", cwd=registry).returncode == 0
    result = run_inprocess("check", "--base", "HEAD", cwd=registry)
    assert_clean_failure(result)
    assert f"{FROZEN}/METHOD.md:1: $: frozen file modified" in result.out


def test_the_index_and_the_working_tree_are_both_guarded(registry: Path) -> None:
    """A staged edit undone in the working tree still commits it; a file removed from the index only,
    still on disk, is deleted by the commit."""
    target = registry / f"{FROZEN}/METHOD.md"
    frozen_text = target.read_text(encoding="utf-8")
    target.chmod(0o644)
    target.write_text(frozen_text + "\n", encoding="utf-8")
    plain_git("add", f"{FROZEN}/METHOD.md", cwd=registry, check=True)
    target.write_text(frozen_text, encoding="utf-8")
    plain_git("rm", "-q", "--cached", f"{FROZEN}/delta.json", cwd=registry, check=True)
    result = run_inprocess("check", "--base", "HEAD", cwd=registry)
    assert_clean_failure(result)
    assert f"{FROZEN}/METHOD.md:1: $: frozen file modified" in result.out
    assert "only the working tree differs" not in result.out
    assert f"{FROZEN}/delta.json: $: frozen file deleted" in result.out


def test_links_are_compared_as_links(registry: Path, tmp_path: Path) -> None:
    """A frozen file replaced by a link to the same bytes, and a frozen folder replaced by a link to a copy."""
    target = registry / f"{FROZEN}/METHOD.md"
    copy = tmp_path / "METHOD.md"
    shutil.copy(target, copy)
    target.unlink()
    target.symlink_to(copy)
    result = run_inprocess("check", "--base", "HEAD", cwd=registry)
    assert_clean_failure(result)
    assert f"{FROZEN}/METHOD.md:1: $: frozen file changed type" in result.out

    target.unlink()
    shutil.copy(copy, target)
    elsewhere = tmp_path / "graph_v1"
    shutil.copytree(registry / FROZEN, elsewhere, symlinks=True)
    for path in [registry / FROZEN, *(registry / FROZEN).rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(registry / FROZEN)
    (registry / FROZEN).symlink_to(elsewhere, target_is_directory=True)
    result = run_inprocess("check", "--base", "HEAD", cwd=registry)
    assert_clean_failure(result)
    assert f"{FROZEN}/manifest.json: $: frozen file deleted" in result.out


def test_an_unchanged_registry_passes_and_a_fifo_is_never_opened(registry: Path) -> None:
    assert run_inprocess("check", "--base", "HEAD", cwd=registry).code == 0
    target = registry / f"{FROZEN}/delta.json"
    target.unlink()
    os.mkfifo(target)
    result = run_inprocess("check", "--base", "HEAD", cwd=registry, timeout=60)
    assert_clean_failure(result)
    assert f"{FROZEN}/delta.json:1: $: frozen file changed type" in result.out


def test_a_version_name_with_a_trailing_newline_is_no_version(registry: Path) -> None:
    """``graph_v1\\n`` beside graph_v1 is a stray folder, not a second graph_v1 to audit as new."""
    shutil.copytree(registry / FROZEN, registry / "versions/graph_v1\n", symlinks=True)
    result = run_inprocess("check", "--base", "HEAD", cwd=registry)
    assert_clean_failure(result)
    assert "not part of any version of suite 'graph'" in result.out
    assert "new: graph_v1" not in result.out


def test_a_ref_with_a_trailing_newline_is_refused(registry: Path) -> None:
    result = run_inprocess("check", "--base", "HEAD\n", cwd=registry)
    assert_clean_failure(result, code=2)
    assert "is not a valid git ref" in result.err


def test_freezer_demo_and_init_ignore_a_hostile_home(tmp_path: Path) -> None:
    """The user's config names a template whose config defines a filter, their attributes file applies
    it everywhere, and GIT_TEMPLATE_DIR names the template too: git init + add runs the filter, while
    the repositories freezer makes (demo, init) never do."""
    script, marker = marker_program(tmp_path, "home")
    home = tmp_path / "home"
    template = home / "template"
    (template / "hooks").mkdir(parents=True)
    (template / "config").write_text(f'[filter "x"]\n\tclean = {script}\n', encoding="utf-8")
    (template / "hooks" / "post-commit").write_text(f"#!/bin/sh\ntouch '{marker}'\n", encoding="utf-8")
    (template / "hooks" / "post-commit").chmod(0o755)
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "attributes").write_text("* filter=x\n", encoding="utf-8")
    (home / ".gitconfig").write_text(f"[init]\n\ttemplateDir = {template}\n", encoding="utf-8")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "GIT_TEMPLATE_DIR": str(template)}

    live = tmp_path / "live"
    live.mkdir()
    plain = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | env
    subprocess.run(["git", "init", "-q", "."], cwd=live, env=plain, check=True)
    (live / "a.txt").write_text("a\n", encoding="utf-8")
    subprocess.run(["git", "add", "a.txt"], cwd=live, env=plain, check=False, capture_output=True)
    assert marker.exists(), "the hostile home did not run the filter under plain git"
    marker.unlink()

    result = run_forked("demo", str(tmp_path / "demo"), cwd=REPO, env=env, timeout=300)
    assert result.code == 0, result.text
    assert not marker.exists(), "freezer demo ran the program"
    assert "filter" not in (tmp_path / "demo" / ".git" / "config").read_text(encoding="utf-8")
    result = run_forked("init", str(tmp_path / "new"), cwd=REPO, env=env)
    assert result.code == 0, result.text
    assert not marker.exists(), "freezer init ran the program"
    assert "filter" not in (tmp_path / "new" / ".git" / "config").read_text(encoding="utf-8")


@pytest.mark.parametrize("driver", ["clean", "process"])
def test_the_code_repository_runs_no_driver(registry: Path, tmp_path: Path, driver: str) -> None:
    """The code repository's own attributes and config name a filter, a textconv and a diff command;
    reading it (ground truth, Gate B's tree, provenance) through cut and audit never runs them."""
    code = registry / "sample-code"
    script, marker = marker_program(tmp_path, f"code-{driver}")
    (code / ".git/info/attributes").write_text("* filter=x diff=x merge=x ident\n", encoding="utf-8")
    for key in (f"filter.x.{driver}", "diff.x.textconv", "diff.x.command", "merge.x.driver"):
        plain_git("config", key, str(script), cwd=code, check=True)
    for path in code.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            os.utime(path, (1_000_000_000, 1_000_000_000))
    plain_git("diff", "--name-only", cwd=code)
    assert marker.exists(), f"the code repository's {driver} filter did not run under plain git"
    marker.unlink()
    plain_git("log", "-p", "-1", cwd=code)
    assert marker.exists(), "the code repository's textconv did not run under plain git log -p"
    marker.unlink()

    set_drafts(registry, "v2")
    for command in (["cut", "--dry-run", "v2"], ["audit"]):
        result = run_inprocess(*command, cwd=registry)
        assert result.code == 0, result.text
        assert not marker.exists(), f"freezer {' '.join(command)} ran the program"
